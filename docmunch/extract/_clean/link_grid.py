"""Docs-aware: is the article a grid of linked cards, whose link density is its content?

A plugin gallery, a link catalogue or an index of described entries is made of link-dense
blocks that Readability.js's link-density bars would remove one by one. :func:`is_link_grid`
tells such an article from an ordinary page with a few link lists; conditional cleaning
(:mod:`docmunch.extract._clean.conditional`) then leaves the bars out.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._weights import class_weight

__all__ = [
    "LINK_CONTENT_SHARE",
    "LINK_GRID_DENSITY",
    "LINK_GRID_MAX_PROSE",
    "LINK_GRID_WORDS",
    "is_link_grid",
]

LINK_CONTENT_SHARE = 0.5
"""Docs-aware: when the blocks that Readability's link-density bars (0.2, or 0.5 for a positive
class) would remove hold at least this share of the article's text, those blocks *are* the
content (a plugin gallery of linked cards, a link catalogue): the bars are not applied. On an
ordinary page the link-dense blocks are a small share (related links, tag lists) and go."""

LINK_GRID_WORDS = 6
"""… and only when those links average at least this many words: cards (a title and a sentence)
and described entries, not menus of one- to three-word links."""

LINK_GRID_DENSITY = 0.6
"""… and only when those blocks are mostly link text (weighted mean link density): a grid of
linked cards, not a page wrapper that mixes an article with its menus."""

LINK_GRID_MAX_PROSE = 800
"""… and only when the rest of the article (its prose) is shorter than this many characters:
a gallery page has an introduction, not an essay; an essay whose candidate swallowed the
site's menus keeps Readability's bars."""


def is_link_grid(article: HtmlElement, flags: int) -> bool:
    """Whether link-dense ``div``/``table``/``ul`` blocks hold :data:`LINK_CONTENT_SHARE` or
    more of ``article``'s text (innermost such blocks, Readability's bars and class weight), the
    rest is under :data:`LINK_GRID_MAX_PROSE` characters, the blocks are mostly link text
    (:data:`LINK_GRID_DENSITY`) and their links average :data:`LINK_GRID_WORDS` words."""
    total = dom.inner_length(article)
    if not total:
        return False
    link_text = dom.link_lengths(article)
    if link_text.get(article, 0.0) < LINK_CONTENT_SHARE * LINK_GRID_DENSITY * total:
        return False  # not enough link text on the whole page for the rule to hold
    blocks = [
        node
        for node in article.iterdescendants("div", "table", "ul", "section")
        if node in link_text
        and link_text[node] > (0.5 if class_weight(node, flags) >= 25 else 0.2) * dom.inner_length(node)
    ]
    outer: set[HtmlElement] = set()  # dense blocks holding a dense block: look inside them
    for node in blocks:
        for anc in node.iterancestors():
            if anc is article or anc in outer:
                break
            outer.add(anc)
    dense = linked = links = words = 0.0
    for node in blocks:
        if node in outer:
            continue
        dense += dom.inner_length(node)
        linked += link_text[node]
        for link in node.iter("a"):
            links += 1
            words += len(dom.text_of(link).split())
    return (
        dense >= LINK_CONTENT_SHARE * total
        and total - dense < LINK_GRID_MAX_PROSE
        and linked >= LINK_GRID_DENSITY * dense
        and words >= LINK_GRID_WORDS * links
    )
