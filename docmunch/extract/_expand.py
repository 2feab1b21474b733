"""Articles split across blocks: widen the top candidate to the block that holds all of its prose.

Readability-style scoring picks the single best-scoring element; its siblings join only when
they are direct siblings that score well
(:func:`docmunch.extract._readability.siblings.join_siblings`).
Three common layouts put one article into several blocks that are *not* siblings of the winner:

- sectioned posts (org-mode, Markdown converters, CMS "section" blocks): each section is a
  wrapper holding a heading and a text block, and the winning text block's only siblings are
  its heading;
- page-builder layouts: the article is a column of rows, each row a column wrapper around
  one text block;
- a lead paragraph or standfirst in a wrapper of its own above the body.

:func:`widen_article` climbs from the top candidate while the text that the next ancestor adds
is prose — paragraphs of running text with few links — and not furniture (link lists, teaser
grids, forms, short labels) nor another story (a block with its own ``<h1>``). Each level is
judged on what it adds: headings are neutral, and the climb stops at the first ancestor whose
added text is mostly not prose or is link-heavy.
Clean-room rule (the idea of merging a winner's prose-bearing ancestors appears in many
extractors, e.g. trafilatura's and Boilerpipe's block merging; no code is taken from them).
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["widen_article"]

WIDEN_LEVELS = 4
"""How many ancestors that add text may be taken above the top candidate (a row, a column, a
section, a body); wrappers that add nothing do not count."""
MAX_CLIMB = 16
"""Ancestors visited at most, wrappers included (bounds the climb on deep pages)."""
PROSE_SHARE = 0.7
"""Share of the added text (characters, headings left out) that must sit in prose paragraphs."""
PROSE_MIN_CHARS = 80
"""A paragraph counts as prose from this many characters (Readability's sibling-paragraph bar)."""
PROSE_LINK_DENSITY = 0.25
"""A paragraph with more link text than this share is a teaser or a link list, not prose."""
ADDED_LINK_DENSITY = 0.2
"""The added text as a whole may hold at most this share of link text."""
STORY_SHARE = 0.5
"""A sibling block with its own ``<h1>`` and at least this share of the winner's text is another
story (the next article of an infinite-scroll page), not part of this one."""
MIN_ADDED_SHARE = 0.1
"""A level must add at least this share of the text it already has (characters): what a long
article's wrapper adds in a few lines is furniture around it, not more of it."""
MIN_ADDED_CHARS = 25
"""Added text shorter than this (a heading, a label) neither stops nor counts: the climb goes on."""

_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_PROSE = ("p", "li", "td", "dd")
_FURNITURE = frozenset(("form", "nav", "aside", "footer", "header", "menu", "button", "input", "select"))


def widen_article(top: HtmlElement) -> HtmlElement:
    """The ancestor of ``top`` (or ``top``) that holds the whole split article.

    ``top``: the winning candidate inside the scored page copy. Never climbs to ``<body>``, takes
    at most :data:`WIDEN_LEVELS` levels that add text and visits at most :data:`MAX_CLIMB`.
    Cost: the text of each visited ancestor's children, once.
    """
    node = top
    best = top
    levels = 0
    for _ in range(MAX_CLIMB):
        parent = node.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        verdict = _adds_prose(parent, node)
        if verdict is False:
            break
        node = parent
        if verdict:
            best = parent
            levels += 1
            if levels == WIDEN_LEVELS:
                break
    return best


def _adds_prose(parent: HtmlElement, child: HtmlElement) -> bool | None:
    """``True`` when ``parent``'s text besides ``child`` is prose, ``False`` when it is not,
    ``None`` when it adds (almost) nothing but headings."""
    added = 0
    prose = 0
    linked = 0.0
    own = dom.inner_length(child)
    for sibling in parent:
        if sibling is child or not isinstance(sibling.tag, str):
            continue
        if sibling.tag in _HEADINGS:
            continue
        length = dom.inner_length(sibling)
        if not length:
            continue
        if sibling.tag in _FURNITURE or sibling.find(".//form") is not None:
            return False
        if sibling.find(".//h1") is not None and length >= STORY_SHARE * own:
            return False  # another story with its own headline (infinite scroll, a list page)
        added += length
        linked += _link_chars(sibling)
        prose += _prose_chars(sibling)
    added += len((parent.text or "").strip()) + sum(len((c.tail or "").strip()) for c in parent)
    if added < MIN_ADDED_CHARS:
        return None
    if added < MIN_ADDED_SHARE * own:
        return False  # a bio, a credit or a "published at" note below a long article
    if linked > ADDED_LINK_DENSITY * added:
        return False
    return prose >= PROSE_SHARE * added


def _link_chars(el: HtmlElement) -> int:
    """Characters of link text under ``el``; in-page links count in full (a table of contents is
    links, though Readability's link density discounts ``#`` links)."""
    return sum(dom.inner_length(a) for a in el.iter("a"))


def _prose_chars(el: HtmlElement) -> int:
    """Characters of ``el`` in prose: paragraphs of running text, list items and table cells,
    each with few links (a paragraph from :data:`PROSE_MIN_CHARS` characters)."""
    total = 0
    for block in el.iter(*_PROSE):
        if block.tag != "p" and block.find(".//p") is not None:
            continue  # its paragraphs are counted themselves
        length = dom.inner_length(block)
        if block.tag == "p" and length < PROSE_MIN_CHARS:
            continue
        if _link_chars(block) <= PROSE_LINK_DENSITY * length:
            total += length
    return total
