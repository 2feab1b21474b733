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
wrapper and stays (:data:`.walk.PAGE_WRAPPER_SHARE`); nodes inside ``<pre>``, ``<code>``, ``<math>``
and ``<svg>`` are never removed as unlikely (pygments' ``c1``/``cm`` "comment" spans are code);
headings keep their level (Readability renames ``h1`` to ``h2``); the title ``<h1>`` is kept
once, also when it sits just outside the chosen block (:mod:`docmunch.extract._title`).

Modules, in the order of the steps: :mod:`.walk` (step 1: the cleaning walk that collects the
elements to score and the byline), :mod:`.candidates` (steps 2–3: content scores and the top
candidate), :mod:`.siblings` (step 4: the siblings that join it); this one runs the attempts
(step 5: the flags retried, the attempt that wins) and returns the :class:`Grab`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._clean import prep_article
from docmunch.extract._expand import widen_article
from docmunch.extract._readability.candidates import score_candidates, top_candidate
from docmunch.extract._readability.siblings import join_siblings
from docmunch.extract._readability.walk import prepare_and_collect
from docmunch.extract._title import keep_title_heading, title_article, title_near, title_snapshot
from docmunch.extract._weights import CLEAN_CONDITIONALLY, STRIP_UNLIKELY, WEIGHT_CLASSES

__all__ = ["Grab", "grab_article"]

CHAR_THRESHOLD = 500

RETRY_KEEP_SHARE = 0.5
"""When every attempt is short, one that kept less than this share of the strictest real
attempt's three-word runs went to another part of the page and loses to the ones that kept it."""
RETRY_MIN_CHARS = 250
"""Shortest attempt (characters) that counts as the reference of :data:`RETRY_KEEP_SHARE`: a
strict pass that found a caption, a cookie notice or a button label found nothing (half of
:data:`CHAR_THRESHOLD`)."""


@dataclass(slots=True)
class Grab:
    """Outcome of one scoring pass: the article ``<div>`` and what was learned on the way."""

    content: HtmlElement | None
    text_length: int
    byline: str | None = None
    dir: str | None = None
    scores: dict[HtmlElement, float] = field(default_factory=dict)


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
        to_score, byline = prepare_and_collect(page, flags, title, need_byline)
        scores = score_candidates(to_score, flags)
        top, _created = top_candidate(page, scores, flags)
        switched = title_article(page, top, scores)
        if switched is not None:
            top = switched
        wide = widen_article(top)
        if wide is not top:
            scores[wide] = max(scores.get(wide, 0.0), scores[top])
            top = wide
        parent = top.getparent()
        title_heading = title_snapshot(title_near(page, top))
        article = join_siblings(top, scores)
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
