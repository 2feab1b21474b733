"""The page's title heading: kept once, even when it sits just outside the chosen block.

Readability.js deletes the first ``<h1>``/``<h2>`` that repeats the title (it reports the title
as metadata). Documentation needs that ``<h1>``: it is the root of the page's outline and the
heading agents search for. So the scoring walk (:mod:`docmunch.extract._readability`) keeps a
title-like ``<h1>`` and marks it with :data:`TITLE_MARK`; after the article is built,
:func:`keep_title_heading` makes sure it appears once at the top of the article when it was
part of it or sat *just outside* it: before the top candidate, inside one of its
:data:`NEAR_LEVELS` nearest ancestors below ``<body>`` (a ``<header>`` above the article body,
a title row beside a breadcrumb). A title ``<h1>`` farther away (a site banner) is left out, as
are ``<h2>`` titles, which Readability's rule still removes.
"""

from __future__ import annotations

import copy

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._metadata import text_similarity

__all__ = [
    "NEAR_LEVELS",
    "TITLE_MARK",
    "TITLE_SIMILARITY",
    "keep_title_heading",
    "rescue_title",
    "title_article",
    "title_near",
    "title_snapshot",
]

TITLE_MARK = "data-docmunch-title"
"""Attribute the scoring walk puts on the title ``<h1>`` it keeps (removed again here)."""

TITLE_SIMILARITY = 0.75
"""Readability's bar: an ``<h1>`` whose text covers more than this share of the title's."""

NEAR_LEVELS = 3
"""How many ancestors of the top candidate may hold a title ``<h1>`` that is "just outside"."""


def _marked(root: HtmlElement) -> HtmlElement | None:
    for heading in root.iter("h1"):
        if heading.get(TITLE_MARK) is not None:
            return heading
    return None


def rescue_title(unlikely: HtmlElement, title: str) -> HtmlElement | None:
    """The title ``<h1>`` inside an element about to be removed as unlikely, detached and marked.

    A post header (``<header class="post-header">``: breadcrumb, title, date) matches the
    unlikely pattern; the caller puts the returned heading in the header's place.
    """
    if not title:
        return None
    for heading in unlikely.iter("h1"):
        if text_similarity(title, dom.inner_text(heading, False)) > TITLE_SIMILARITY:
            heading.set(TITLE_MARK, "")
            dom.remove(heading)
            return heading
    return None


def title_near(page: HtmlElement, top: HtmlElement) -> HtmlElement | None:
    """The marked title ``<h1>`` of ``page`` when it is inside ``top`` or just before it."""
    heading = _marked(page)
    if heading is None:
        return None
    if top is heading or top in dom.ancestors(heading):
        return heading
    meeting = _meeting(heading, top, NEAR_LEVELS)
    if meeting is None:
        return None  # a heading that only shares <body> with the article is a site banner
    parent, holder, node = meeting
    siblings = list(parent)
    return heading if siblings.index(holder) < siblings.index(node) else None


def _meeting(
    heading: HtmlElement, top: HtmlElement, levels: int
) -> tuple[HtmlElement, HtmlElement, HtmlElement] | None:
    """Where ``top`` (neither ``heading`` nor one of its ancestors) meets ``heading`` climbing at most
    ``levels`` parents, below ``<body>``: ``(common parent, its child holding the heading, its
    child holding top)``; ``None`` when they do not meet that close."""
    chain = [heading, *dom.ancestors(heading)]
    node = top
    for _ in range(levels):
        parent = node.getparent()
        if parent is None or parent.tag == "body":
            return None
        if parent in chain:
            return parent, chain[chain.index(parent) - 1], node
        node = parent
    return None


def title_article(
    page: HtmlElement, top: HtmlElement, scores: dict[HtmlElement, float]
) -> HtmlElement | None:
    """The page's own story when the top candidate is a later story of an infinite-scroll page.

    Infinite-scroll news pages append the next stories below the first, each a block with its
    own ``<h1>``; the longest one can win the scoring. When ``top`` sits in such a block, and an
    earlier sibling block (at most :data:`NEAR_LEVELS` + 1 ancestors up, below ``<body>``) holds
    the marked title ``<h1>`` (the heading that repeats the page title), the best-scored
    candidate inside that sibling is the article. ``None`` when nothing needs to change.
    """
    heading = _marked(page)
    if heading is None or top is heading or top in dom.ancestors(heading):
        return None
    meeting = _meeting(heading, top, NEAR_LEVELS + 1)
    if meeting is None:
        return None
    parent, holder, node = meeting
    siblings = list(parent)
    if holder is heading or siblings.index(holder) > siblings.index(node):
        return None
    if not any(True for _ in node.iter("h1")):
        return None  # the top block is not a story of its own: the title is a header above
    inside = [el for el in holder.iter() if el in scores and el is not heading]
    return max(inside, key=lambda el: scores[el]) if inside else None


def title_snapshot(heading: HtmlElement | None) -> HtmlElement | None:
    """A detached copy of ``heading`` (without its tail), taken before cleaning may drop it."""
    if heading is None:
        return None
    snapshot = copy.deepcopy(heading)
    snapshot.tail = None
    return snapshot


def keep_title_heading(wrapper: HtmlElement, snapshot: HtmlElement | None) -> None:
    """Make the title ``<h1>`` appear once in ``wrapper`` (the article's page ``<div>``).

    Leaves a marked heading that survived in place; otherwise inserts ``snapshot`` first unless
    an ``<h1>`` with the same text is already there. Removes every :data:`TITLE_MARK`.
    """
    survivor = _marked(wrapper)
    for heading in list(wrapper.iter("h1")):
        if heading.get(TITLE_MARK) is not None:
            del heading.attrib[TITLE_MARK]
    if survivor is not None or snapshot is None:
        return
    text = dom.inner_text(snapshot)
    if not text or any(dom.inner_text(h) == text for h in wrapper.iter("h1")):
        return
    del snapshot.attrib[TITLE_MARK]
    snapshot.tail = wrapper.text
    wrapper.text = None
    wrapper.insert(0, snapshot)
