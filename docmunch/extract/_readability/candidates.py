"""Steps 2–3 of the scoring: content scores and the top candidate (Readability.js's ``_grabArticle``).

Every element the walk collected (:mod:`.walk`) with ≥ 25 characters scores
``1 + commas + min(chars // 100, 3)``, given to its 5 nearest ancestors divided by 1, 2, then
3 × level; an ancestor starts from its tag's score (:data:`_TAG_SCORE`) plus its class/id
weight (:func:`docmunch.extract._weights.class_weight`). Each score is then scaled by
``1 - link density``; the best of the top :data:`N_TOP_CANDIDATES` is the top candidate, or
the common ancestor of three others within 75 % of it; a parent scoring higher climbs up, and
single-child parents are absorbed. No candidate (or ``<body>`` itself) → a new ``<div>``
holding the whole body.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._budget import check_budget
from docmunch.extract._weights import class_weight

__all__ = ["score_candidates", "top_candidate"]

N_TOP_CANDIDATES = 5
_SCORE_PREFIX = 4096
"""Characters of an element's text read to learn whether its normalised length reaches 300."""
_COMMA_CHARS = "\u002c\u060c\ufe50\ufe10\ufe11\u2e41\u2e34\u2e32\uff0c"
_TAG_SCORE = {
    "div": 5,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "h1": -5,
    "h2": -5,
    "h3": -5,
    "h4": -5,
    "h5": -5,
    "h6": -5,
    "th": -5,
}


def _init_score(el: HtmlElement, flags: int) -> float:
    tag = el.tag
    return (_TAG_SCORE.get(tag, 0) if isinstance(tag, str) else 0) + class_weight(el, flags)


def score_candidates(to_score: list[HtmlElement], flags: int) -> dict[HtmlElement, float]:
    """Step 2: ``{ancestor: content score}`` from the elements ``to_score`` (in their order)."""
    scores: dict[HtmlElement, float] = {}
    for el in to_score:
        check_budget()
        parent = el.getparent()
        if parent is None:
            continue
        raw = dom.text_of(el)
        # len(inner_text) matters up to 300 (min(length // 100, 3)): measure a prefix first
        length = len(" ".join(raw[:_SCORE_PREFIX].split()))
        if length < 300 and len(raw) > _SCORE_PREFIX:
            length = len(" ".join(raw.split()))  # == len(inner_text), see dom.inner_length
        if length < 25:
            continue
        ancestors = dom.ancestors(el, 5)
        if not ancestors:
            continue
        # whitespace is never a comma; ASCII text (isascii is O(1)) can only hold ","
        commas = raw.count(",") if raw.isascii() else sum(raw.count(comma) for comma in _COMMA_CHARS)
        content = 2 + commas + min(length // 100, 3)  # length ≥ 300 counts as 300
        for level, anc in enumerate(ancestors):
            if anc.getparent() is None:
                continue
            if anc not in scores:
                scores[anc] = _init_score(anc, flags)
            divider = 1 if level == 0 else 2 if level == 1 else level * 3
            scores[anc] += content / divider
    return scores


def top_candidate(
    page: HtmlElement, scores: dict[HtmlElement, float], flags: int
) -> tuple[HtmlElement, bool]:
    """Step 3: ``(top candidate, created)``, ``created`` when no candidate was found and a new
    ``<div>`` holding the whole of ``page`` stands in; ``scores`` is scaled and completed in place."""
    links = dom.link_lengths(page)  # all link densities in one pass (same values)
    for el in list(scores):
        check_budget()
        linked = links.get(el, 0.0)
        if linked:
            length = dom.inner_length(el)
            scores[el] *= 1 - (linked / length if length else 0.0)
    top = sorted(scores, key=lambda e: -scores[e])[:N_TOP_CANDIDATES]
    if not top or top[0].tag == "body":
        div = page.makeelement("div", {})
        div.text, page.text = page.text, None
        for child in list(page):
            div.append(child)
        page.append(div)
        scores[div] = _init_score(div, flags)
        return div, True
    best = top[0]
    alternatives = (
        [set(dom.ancestors(c)) for c in top[1:] if scores[c] / scores[best] >= 0.75] if scores[best] else []
    )
    if len(alternatives) >= 3:
        parent = best.getparent()
        while parent is not None and parent.tag != "body":
            if sum(1 for a in alternatives if parent in a) >= 3:
                best = parent
                break
            parent = parent.getparent()
    if best not in scores:
        scores[best] = _init_score(best, flags)
    parent = best.getparent()
    last = scores[best]
    threshold = last / 3
    while parent is not None and parent.tag != "body":
        if parent not in scores:
            parent = parent.getparent()
            continue
        if scores[parent] < threshold:
            break
        if scores[parent] > last:
            best = parent
            break
        last = scores[parent]
        parent = parent.getparent()
    parent = best.getparent()
    while parent is not None and parent.tag != "body" and len(parent) == 1:
        best = parent
        parent = best.getparent()
    if best not in scores:
        scores[best] = _init_score(best, flags)
    return best, False
