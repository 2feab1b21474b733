""""Edit section" controls inside headings: wiki and CMS chrome, never heading text.

Wikis and CMSs put a link to edit the section into each heading — MediaWiki's
``<span class="mw-editsection">[<a href="/w/index.php?…&action=edit&section=1">edit</a>]</span>``,
DokuWiki's, Confluence's and many themes' variants. Left in, the heading reads
"History[edit]" and its title and slug carry the link. The controls are judged by structure,
not by site:

- an element inside the heading whose class words mark it as an edit control
  (:data:`_EDIT_CLASS`: ``editsection``, ``section-edit``, ``edit-link``, ``editlink``, …);
- a link whose visible text is only an edit word (:data:`_EDIT_WORDS`: "edit", "edit
  section", "edit source", bracketed or not) *after* other heading text, when its ``href`` is
  an edit/action URL (:data:`_EDIT_HREF`) or the link stands in brackets.

The control is removed with its enclosing group inside the heading (the outermost element
holding nothing but the control, its brackets and separators) and the brackets written as
bare text around it (``[``, ``]``, ``|``).
"""

from __future__ import annotations

import re

import lxml.etree as etree
from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["remove_edit_controls"]

_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_EDIT_CLASS = re.compile(
    r"(?:^|[-_])(?:edit[-_]?section|section[-_]?edit|sec[-_]?edit|edit[-_]?link|edit[-_]?button|"
    r"edit[-_]?heading|heading[-_]?edit)(?:$|[-_])",
    re.IGNORECASE,
)
"""Class words naming an edit control (``mw-editsection``, ``section-edit``, ``editlink`` …)."""
_EDIT_WORDS = frozenset(
    {"edit", "edit section", "edit this section", "edit source", "modifier", "bearbeiten"}
)
"""Visible texts of an edit link, case-folded, brackets stripped."""
_EDIT_HREF = re.compile(
    r"[?&;](?:ve)?action=(?:edit|submit)\b|[?&;]do=edit\b|/edit(?:/|$|[?#])", re.IGNORECASE
)
"""An ``href`` that opens an editor: ``?action=edit`` (MediaWiki), ``?do=edit`` (DokuWiki),
an ``/edit`` path segment (GitHub, GitLab, CMSs)."""
_GROUP_TEXT = re.compile(r"^[\s\[\]()|·/]*$")
"""Text a control's group may hold besides the control: brackets, bars, separators."""


def _words(text: str) -> str:
    return " ".join(text.replace("[", " ").replace("]", " ").split()).casefold()


def _marked(el: HtmlElement) -> bool:
    return any(_EDIT_CLASS.search(word) for word in (el.get("class") or "").split())


def _text_before(heading: HtmlElement, el: HtmlElement) -> str:
    """The heading's text that comes before ``el`` in document order."""
    parts: list[str] = []
    for event, node in etree.iterwalk(heading, events=("start", "end")):
        if event == "start":
            if node is el:
                break
            parts.append(node.text or "")
        elif node is not heading:
            parts.append(node.tail or "")
    return "".join(parts)


def _is_edit_link(heading: HtmlElement, link: HtmlElement) -> bool:
    if _words(link.text_content()) not in _EDIT_WORDS:
        return False
    if not _words(_text_before(heading, link)):
        return False  # the heading *is* the word: "Edit" as a title stays
    if _EDIT_HREF.search(link.get("href") or ""):
        return True
    previous, parent = link.getprevious(), link.getparent()
    before = (previous.tail if previous is not None else parent.text if parent is not None else "") or ""
    return before.rstrip().endswith("[") and (link.tail or "").lstrip().startswith("]")


def _group(heading: HtmlElement, el: HtmlElement) -> HtmlElement:
    """The outermost ancestor of ``el`` below ``heading`` holding only the control and brackets."""
    group = el
    parent = el.getparent()
    while parent is not None and parent is not heading and _GROUP_TEXT.match(_text_without(parent, group)):
        group, parent = parent, parent.getparent()
    return group


def _text_without(parent: HtmlElement, group: HtmlElement) -> str:
    """All text of ``parent`` except what its child ``group`` holds (``group``'s tail kept)."""
    parts = [parent.text or ""]
    for child in parent:
        if child is not group:
            parts.append(child.text_content())
        parts.append(child.tail or "")
    return "".join(parts)


def _drop(group: HtmlElement) -> None:
    """Remove ``group`` and the bare ``[``/``]``/``|`` text written right around it."""
    tail = group.tail or ""
    stripped_tail = tail.lstrip()
    if stripped_tail[:1] == "]":
        group.tail = stripped_tail[1:]
    previous = group.getprevious()
    parent = group.getparent()
    if previous is not None:
        previous.tail = _trim_open(previous.tail)
    elif parent is not None:
        parent.text = _trim_open(parent.text)
    dom.remove(group)


def _trim_open(text: str | None) -> str | None:
    if text is None:
        return None
    stripped = text.rstrip()
    if stripped.endswith(("[", "|")):
        return stripped[:-1].rstrip()
    return text


def remove_edit_controls(content: HtmlElement) -> None:
    """Delete "edit section" controls from every heading of ``content`` (rules in the module doc)."""
    for heading in list(content.iter(*_HEADING_TAGS)):
        doomed: list[HtmlElement] = []
        for el in heading.iterdescendants():
            if not isinstance(el.tag, str) or any(el is d or d in el.iterancestors() for d in doomed):
                continue
            edit_link = el.tag == "a" and _is_edit_link(heading, el)
            if edit_link or (_marked(el) and _words(_text_before(heading, el))):
                doomed.append(el)
        for el in doomed:
            if el.getparent() is not None:
                _drop(_group(heading, el))
