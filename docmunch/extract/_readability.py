"""Main-content scoring: a clean-room re-implementation of Readability.js's ``_grabArticle``.

Algorithm (Mozilla Readability.js, Apache-2.0, itself after Arc90's readability 1.7.1):

1. Walk the body in document order, dropping hidden nodes, modal dialogs, the byline (kept
   as metadata), a heading that repeats the title and — while ``STRIP_UNLIKELY`` is on —
   nodes whose class/id look like chrome (``comment``, ``sidebar``, …) or carry a navigation
   role. ``<div>``s that hold only phrasing content become ``<p>``; loose phrasing runs inside
   a ``<div>`` are wrapped in ``<p>``.
2. Every ``p``/``pre``/``td``/``section``/``h2-h6`` with ≥ 25 characters scores
   ``1 + commas + min(chars // 100, 3)``; that score goes to its 5 nearest ancestors, divided
   by 1, 2, then 3 × level. An ancestor's base score comes from its tag (div +5, pre/td/
   blockquote +3, lists/forms −3, headings/th −5) and class/id weight (±25).
3. Each candidate's score is scaled by ``1 - link density``; the best is the top candidate.
   If three of the other top-5 candidates reach 75 % of its score, their common ancestor is
   taken instead; a parent whose score is higher climbs up; single-child parents are
   absorbed.
4. Siblings of the top candidate join when their score passes ``max(10, 0.2 × top)``
   (+20 % bonus for the same class) or when they are text-rich, link-poor paragraphs.
5. The result is cleaned (:mod:`docmunch.extract._clean`); shorter than 500 characters →
   retry on a fresh copy with ``STRIP_UNLIKELY``, then ``WEIGHT_CLASSES``, then
   ``CLEAN_CONDITIONALLY`` turned off; if every try is short, the longest one wins.

Divergences, on purpose: an "unlikely" node holding most of the page's text is a layout
wrapper and stays (:data:`PAGE_WRAPPER_SHARE`); nodes inside ``<pre>``, ``<code>``, ``<math>``
and ``<svg>`` are never removed as unlikely (pygments' ``c1``/``cm`` "comment" spans are code);
headings keep their level (Readability renames ``h1`` to ``h2``); the title ``<h1>`` is kept
once, also when it sits just outside the chosen block (:mod:`docmunch.extract._title`).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import WRAPPER_NAMES
from docmunch.extract._budget import check_budget
from docmunch.extract._clean import prep_article
from docmunch.extract._code import is_code_container
from docmunch.extract._expand import widen_article
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._metadata import text_similarity
from docmunch.extract._prep import wrap_phrasing
from docmunch.extract._title import (
    TITLE_MARK,
    keep_title_heading,
    rescue_title,
    title_article,
    title_near,
    title_snapshot,
)
from docmunch.extract._weights import (
    CLEAN_CONDITIONALLY,
    STRIP_UNLIKELY,
    WEIGHT_CLASSES,
    class_weight,
    is_section_anchor,
)

__all__ = ["Grab", "grab_article", "is_visible"]

CHAR_THRESHOLD = 500
N_TOP_CANDIDATES = 5
PAGE_WRAPPER_SHARE = 0.5
"""An "unlikely" node (class ``has-sidebar``, ``header-wrapper``…) holding more than this share of
the page's text (characters) is a layout wrapper, not chrome, and is not stripped (divergence)."""

RETRY_KEEP_SHARE = 0.5
"""When every attempt is short, one that kept less than this share of the strictest real
attempt's three-word runs went to another part of the page and loses to the ones that kept it."""
RETRY_MIN_CHARS = 250
"""Shortest attempt (characters) that counts as the reference of :data:`RETRY_KEEP_SHARE`: a
strict pass that found a caption, a cookie notice or a button label found nothing (half of
:data:`CHAR_THRESHOLD`)."""

UNLIKELY = FoldedPattern(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|"
    r"legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|"
    r"ad-break|agegate|pagination|pager|popup|yom-remote"
)
MAYBE_CANDIDATE = FoldedPattern(r"and|article|body|column|content|main|mathjax|shadow")
BYLINE = FoldedPattern(r"byline|author|dateline|writtenby|p-author")
_SCORE_PREFIX = 4096
"""Characters of an element's text read to learn whether its normalised length reaches 300."""
_COMMA_CHARS = "\u002c\u060c\ufe50\ufe10\ufe11\u2e41\u2e34\u2e32\uff0c"
COMMAS = re.compile(f"[{_COMMA_CHARS}]")
_DISPLAY_NONE = FoldedPattern(r"display\s*:\s*none")
_VISIBILITY_HIDDEN = FoldedPattern(r"visibility\s*:\s*hidden")
_DOT_END = re.compile(r"\.( |$)")

UNLIKELY_ROLES = frozenset(
    ("menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog")
)
DIV_TO_P = frozenset(("blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"))
ALTER_TO_DIV_EXCEPTIONS = frozenset(("div", "article", "section", "p", "ol", "ul"))
TAGS_TO_SCORE = frozenset(("section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"))
_EMPTY_REMOVABLE = frozenset(("div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"))
_OPAQUE = frozenset(("pre", "code", "math", "svg"))
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


@dataclass(slots=True)
class Grab:
    """Outcome of one scoring pass: the article ``<div>`` and what was learned on the way."""

    content: HtmlElement | None
    text_length: int
    byline: str | None = None
    dir: str | None = None
    scores: dict[HtmlElement, float] = field(default_factory=dict)


def _visible_attributes(attrs: dict[str, str]) -> bool:
    style = attrs.get("style")
    if style and (_DISPLAY_NONE.found_in(style) or _VISIBILITY_HIDDEN.found_in(style)):
        return False
    if attrs.get("hidden") is not None:
        return False
    return attrs.get("aria-hidden") != "true" or "fallback-image" in (attrs.get("class") or "")


_NO_ATTRIBUTES: dict[str, str] = {}


def is_visible(el: HtmlElement) -> bool:
    """Readability's ``_isProbablyVisible``: no ``display: none``/``visibility: hidden`` style,
    no ``hidden`` attribute, not ``aria-hidden`` (except a fallback image)."""
    return _visible_attributes(dict(el.items()))


@lru_cache(maxsize=4096)
def _byline_match(match: str) -> bool:
    return BYLINE.found_in(match)


@lru_cache(maxsize=4096)
def _unlikely_match(match: str) -> bool:
    """Readability's unlikely-candidate test on ``class + " " + id`` (cached: pages repeat them)."""
    return UNLIKELY.found_in(match) and not MAYBE_CANDIDATE.found_in(match)


def _is_byline(el: HtmlElement, attrs: dict[str, str], match: str) -> bool:
    """Readability's ``_isValidByline`` test on ``el`` (``attrs``: its attributes)."""
    if attrs.get("rel") == "author" or "author" in (attrs.get("itemprop") or "") or _byline_match(match):
        length = len(dom.text_of(el).strip())
        return 0 < length < 100
    return False


def _byline_text(el: HtmlElement) -> str:
    for sub in el.iterdescendants():
        if "name" in (sub.get("itemprop") or ""):
            return dom.text_of(sub).strip()
    return dom.text_of(el).strip()


def _is_page_wrapper(node: HtmlElement, page_chars: int) -> bool:
    """A node holding most of the page's text is a layout wrapper, whatever its class says."""
    if page_chars <= 0:
        return False
    bound = PAGE_WRAPPER_SHARE * page_chars
    raw = dom.text_of(node)
    # the normalised length (dom.inner_length) never exceeds the raw one: most nodes are ruled
    # out without it
    return len(raw) > bound and len(" ".join(raw.split())) > bound


def _init_score(el: HtmlElement, flags: int) -> float:
    tag = el.tag
    return (_TAG_SCORE.get(tag, 0) if isinstance(tag, str) else 0) + class_weight(el, flags)


def _prepare_and_collect(
    page: HtmlElement, flags: int, title: str, need_byline: bool
) -> tuple[list[HtmlElement], str | None]:
    """Step 1: clean the walk, return the elements to score and the byline found."""
    to_score: list[HtmlElement] = []
    byline: str | None = None
    remove_title_header = True
    strip = bool(flags & STRIP_UNLIKELY)
    page_chars = dom.inner_length(page)
    node: HtmlElement | None = page
    count = 0
    while node is not None:
        count += 1
        if not count & 63:
            check_budget()
        tag = node.tag
        # one C call for the attributes: most nodes have none, and lxml's get() is slow
        items = node.items()
        if items:
            attrs: dict[str, str] = dict(items)
            match = (attrs.get("class") or "") + " " + (attrs.get("id") or "")
            if not _visible_attributes(attrs):
                node = dom.remove_and_get_next(node)
                continue
            if attrs.get("aria-modal") == "true" and attrs.get("role") == "dialog":
                node = dom.remove_and_get_next(node)
                continue
            if need_byline and byline is None and _is_byline(node, attrs, match):
                byline = _byline_text(node)
                node = dom.remove_and_get_next(node)
                continue
        else:
            attrs, match = _NO_ATTRIBUTES, " "
        if (
            remove_title_header
            and tag in ("h1", "h2")
            and title
            and text_similarity(title, dom.inner_text(node, False)) > 0.75
        ):
            remove_title_header = False
            if tag == "h1":  # docs-aware: the page's own title heading stays (see _title)
                node.set(TITLE_MARK, "")
            else:
                node = dom.remove_and_get_next(node)
                continue
        if tag in _OPAQUE:
            if tag == "pre":
                to_score.append(node)
            node = dom.next_node(node, True)
            continue
        if strip and tag not in ("body", "a"):
            if (
                _unlikely_match(match)
                and not (is_section_anchor(node) and not UNLIKELY.found_in(node.get("class") or ""))
                and not dom.has_ancestor_tag(node, "table")
                and not dom.has_ancestor_tag(node, "code")
                and not _is_page_wrapper(node, page_chars)
                and not is_code_container(node)
            ):
                rescued = rescue_title(node, title) if remove_title_header else None
                if rescued is not None:  # a post header: its title h1 stays in the header's place
                    remove_title_header = False
                    dom.replace(node, rescued)
                    node = dom.next_node(rescued, True)
                    continue
                node = dom.remove_and_get_next(node)
                continue
            if attrs.get("role") in UNLIKELY_ROLES:
                node = dom.remove_and_get_next(node)
                continue
        if tag in _EMPTY_REMOVABLE and dom.without_content(node):
            node = dom.remove_and_get_next(node)
            continue
        if tag in TAGS_TO_SCORE:
            to_score.append(node)
        if tag == "div":
            wrap_phrasing(node)
            if dom.has_single_tag_inside(node, "p") and dom.link_density(node) < 0.25:
                child = node[0]
                names = dom.class_and_id(node).strip()
                if names:  # the boilerplate pass still needs the wrapper's class and id
                    child.set(WRAPPER_NAMES, f"{child.get(WRAPPER_NAMES, '')} {names}".strip())
                dom.replace(node, child)
                node = child
                to_score.append(node)
            elif not dom.has_child_block(node, DIV_TO_P):
                node.tag = "p"
                to_score.append(node)
        node = node[0] if len(node) else dom.next_node(node, True)  # dom.next_node(node), inlined
    return to_score, byline


def _score(to_score: list[HtmlElement], flags: int) -> dict[HtmlElement, float]:
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


def _top_candidate(
    page: HtmlElement, scores: dict[HtmlElement, float], flags: int
) -> tuple[HtmlElement, bool]:
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


def _join_siblings(top: HtmlElement, scores: dict[HtmlElement, float]) -> HtmlElement:
    article = top.makeelement("div", {})
    parent = top.getparent()
    threshold = max(10.0, scores[top] * 0.2)
    top_class = top.get("class") or ""
    for sibling in list(parent) if parent is not None else [top]:
        check_budget()
        append = sibling is top
        if not append:
            bonus = scores[top] * 0.2 if top_class and sibling.get("class") == top_class else 0
            if sibling in scores and scores[sibling] + bonus >= threshold:
                append = True
            elif sibling.tag == "p":
                density = dom.link_density(sibling)
                text = dom.inner_text(sibling)
                long_enough = len(text) > 80 and density < 0.25
                sentence = 0 < len(text) < 80 and density == 0 and _DOT_END.search(text)
                append = bool(long_enough or sentence)
        if append:
            if sibling.tag not in ALTER_TO_DIV_EXCEPTIONS:
                sibling.tag = "div"
            dom.remove(sibling)
            article.append(sibling)
    return article


def grab_article(body: HtmlElement, *, title: str, need_byline: bool) -> Grab:
    """Run the scoring passes on a copy of ``body``; the best article ``<div>`` or ``None``."""
    flags = STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY
    attempts: list[Grab] = []
    while True:
        source_html = body.getparent()
        html = body.makeelement("html", dict(source_html.attrib) if source_html is not None else {})
        page = copy.deepcopy(body)
        page.tail = None
        html.append(page)
        to_score, byline = _prepare_and_collect(page, flags, title, need_byline)
        scores = _score(to_score, flags)
        top, _created = _top_candidate(page, scores, flags)
        switched = title_article(page, top, scores)
        if switched is not None:
            top = switched
        wide = widen_article(top)
        if wide is not top:
            scores[wide] = max(scores.get(wide, 0.0), scores[top])
            top = wide
        parent = top.getparent()
        title_heading = title_snapshot(title_near(page, top))
        article = _join_siblings(top, scores)
        prep_article(article, flags, scores)
        wrapper = article.makeelement("div", {"id": "readability-page-1", "class": "page"})
        wrapper.text, article.text = article.text, None
        for child in list(article):
            wrapper.append(child)
        article.append(wrapper)
        keep_title_heading(wrapper, title_heading)
        length = dom.inner_length(article)
        direction = None
        for anc in [parent, top, *dom.ancestors(parent)] if parent is not None else [top]:
            if anc is not None and anc.get("dir"):
                direction = anc.get("dir")
                break
        grab = Grab(article, length, byline, direction, scores)
        if length >= CHAR_THRESHOLD and _kept_reference(attempts, grab):
            return grab
        attempts.append(grab)
        if flags & STRIP_UNLIKELY:
            flags &= ~STRIP_UNLIKELY
        elif flags & WEIGHT_CLASSES:
            flags &= ~WEIGHT_CLASSES
        elif flags & CLEAN_CONDITIONALLY:
            flags &= ~CLEAN_CONDITIONALLY
        else:
            best = _best_short_attempt(attempts)
            if not best.text_length:
                return Grab(None, 0)
            return best


def _shingles(grab: Grab) -> set[tuple[str, ...]]:
    words = dom.text_of(grab.content).split() if grab.content is not None else []
    return {tuple(words[i : i + 3]) for i in range(max(len(words) - 2, 0))}


def _reference(attempts: list[Grab]) -> Grab | None:
    return next((g for g in attempts if g.text_length >= RETRY_MIN_CHARS), None)


def _kept_reference(attempts: list[Grab], grab: Grab) -> bool:
    """Whether a retry ``grab`` still holds most of the strict attempts' text (see below)."""
    reference = _reference(attempts)
    if reference is None:
        return True
    first = _shingles(reference)
    return len(first & _shingles(grab)) >= RETRY_KEEP_SHARE * len(first)


def _best_short_attempt(attempts: list[Grab]) -> Grab:
    """The longest of the short attempts that kept the strict attempt's text (divergence).

    Readability.js takes the first retry that reaches :data:`CHAR_THRESHOLD`, else the longest
    attempt. On a short article the looser passes often move to another part of the page (a
    newsletter box, a sidebar) whose text happens to be longer. The reference is the first
    (strictest) attempt with at least :data:`RETRY_MIN_CHARS` characters; a retry holding less
    than :data:`RETRY_KEEP_SHARE` of its three-word runs went elsewhere: it neither ends the
    retries nor wins over the attempts that kept the reference.
    """
    return max((g for g in attempts if _kept_reference(attempts, g)), key=lambda g: g.text_length)
