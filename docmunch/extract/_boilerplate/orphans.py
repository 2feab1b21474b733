"""Rule 9, run last: orphan headings — the titles of boxes the other rules emptied.

A heading, label line or headline-classed element with no text after it before the next heading
("Auch interessant", "Weitere Artikel", "Das könnte Sie auch interessieren"): only the run at the
end of the content goes (:func:`orphan_headings`).
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import HEADINGS, MEDIA, class_id
from docmunch.extract._boilerplate.teasers import LABEL_MAX_CHARS, is_label_line
from docmunch.extract._fold import FoldedPattern

__all__ = ["orphan_headings"]

_TITLE_CLASS = FoldedPattern(r"headline|heading|title")


def _heading_level(el: HtmlElement) -> int:
    return int(el.tag[1]) if el.tag in HEADINGS else 0


def orphan_headings(content: HtmlElement) -> None:
    """Rule 9: drop the trailing headings and label lines that no text follows (emptied boxes' titles).

    Only the run at the end of the content goes: a heading followed by nothing but a video or a
    sub-heading inside the article is the article's own structure.
    """
    elements = list(content.iter())
    inside = set(elements)
    # Whether an element is a box title is judged on the tree as it was before this rule
    # removed anything. Walking backwards, an element's subtree only changes when a title
    # inside it goes, so its ancestors are judged just before that removal; the others are
    # judged when reached, and the walk stops at the first title with text after it.
    judged: dict[HtmlElement, bool] = {}

    def is_title(el: HtmlElement) -> bool:
        found = judged.get(el)
        if found is None:
            found = judged[el] = isinstance(el.tag, str) and _is_box_title(el)
        return found

    for el in reversed(elements):
        if not is_title(el):
            continue
        if el.getparent() is None or _section_text_after(el, 0, inside):
            return  # the first heading or label with text after it ends the trailing run
        for anc in el.iterancestors():
            is_title(anc)
            if anc is content:
                break
        dom.remove(el)


def _is_box_title(el: HtmlElement) -> bool:
    """A heading, a label line, or a short link-less element whose class calls it a headline/title."""
    if el.tag in HEADINGS or is_label_line(el):
        return True
    if el.tag not in ("span", "div", "p", "strong", "b") or not _TITLE_CLASS.found_in(class_id(el)):
        return False
    text = dom.inner_text(el)
    return 0 < len(text) < LABEL_MAX_CHARS and dom.link_density(el) == 0


def _section_text_after(heading: HtmlElement, level: int, inside: set[HtmlElement]) -> bool:
    """Whether any text follows ``heading`` (in document order) before a heading of level ≤ ``level``."""
    if heading.tail and heading.tail.strip():
        return True
    node: HtmlElement | None = dom.next_node(heading, True)
    while node is not None:
        if node not in inside:
            return False
        if node.tag in HEADINGS and _heading_level(node) <= level:
            return False
        if node.tag in HEADINGS:
            if dom.inner_text(node) or (node.tail and node.tail.strip()):
                return True
            node = dom.next_node(node, True)
            continue
        if node.text and node.text.strip():
            return True
        if node.tail and node.tail.strip():
            return True
        if node.tag in MEDIA:
            return True
        node = dom.next_node(node)
    return False
