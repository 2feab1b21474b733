"""Block elements: paragraphs, headings, block quotes, admonitions, rules, definition lists.

Decisions:

* Headings are ATX (``#`` … ``######``) on one line: inner whitespace and ``<br>`` collapse to a
  single space, a trailing ``#`` run is escaped. A heading nested in a link keeps the link inside
  (``## [Title](url)``). Inside a GFM table cell a heading is plain cell text. A heading element
  carrying :data:`ANCHOR_ATTRIBUTE` (set by :mod:`docmunch.formats.html` to the page's real
  fragment) ends with a Pandoc-style ``{#id}`` attribute block, which the sectioner strips from
  the title and uses as the section's anchor; ids that cannot be written there are left out.
* Admonitions (``div.admonition`` of Sphinx/MkDocs, Docusaurus ``theme-admonition``, VitePress
  ``custom-block``, GitHub ``markdown-alert``, ``<aside>``, ``<details>``) become a block quote
  whose first paragraph is the bold title (``> **Note**``). The GitHub ``> [!NOTE]`` form is not
  used: it is an extension that plain CommonMark renders as literal text.
* ``<dt>`` becomes a bold paragraph, ``<dd>`` its paragraphs unindented after it.
* ``<hr>`` is ``---`` between blank lines (never a setext underline).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from docmunch.convert.emphasis import CLOSE, OPEN, resolve_inline
from docmunch.convert.escaping import escape_heading_end
from docmunch.convert.state import Block, State, element_tag, finish_paragraph

__all__ = [
    "ANCHOR_ATTRIBUTE",
    "EndHandler",
    "admonition_role",
    "join_blocks",
    "prefix_lines",
    "single_line",
    "start_admonition",
    "start_dt",
    "start_heading",
    "start_hr",
    "start_quote",
    "start_title",
    "start_transparent",
]

EndHandler = Callable[[State, etree._Element], None]

_ADMONITION_CLASSES = frozenset(
    {"admonition", "theme-admonition", "custom-block", "markdown-alert", "callout"}
)
_TITLE_CLASSES = frozenset(
    {"admonition-title", "custom-block-title", "markdown-alert-title", "callout-title"}
)
_ADMONITION_TYPES = frozenset(
    {"note", "tip", "hint", "warning", "danger", "caution", "important", "attention", "error", "seealso"}
    | {"todo", "info", "alert"}
)
_TITLE_PREFIX = "admonitionHeading"  # Docusaurus CSS-module class, e.g. admonitionHeading_Gvgb
_SPACES = re.compile(r"\s+")
ANCHOR_ATTRIBUTE = "data-docmunch-anchor"
"""Heading attribute whose value is written as ``{#value}`` after the heading text."""
_WRITABLE_ID = re.compile(r"[^\s{}#\\]+")


def admonition_role(tag: str, tokens: frozenset[str], classes: str) -> str | None:
    """``"title"``, ``"admonition"`` or ``None`` for an element (local ``tag``, class ``tokens``,
    raw ``class`` attribute ``classes``).

    Besides the generators' own classes, a ``<div>`` whose class is an admonition type (``note``,
    ``tip``, ``warning``, …, ``alert``) or a CSS-module ``admonition_<hash>`` counts, so that
    admonitions survive an extractor that keeps only such classes.
    """
    if "admonition" in classes:  # cheap test first: prefixed CSS-module classes
        if any(token.startswith(_TITLE_PREFIX) for token in tokens):
            return "title"
        if any(token.startswith("admonition_") for token in tokens):
            return "admonition"
    if not _TITLE_CLASSES.isdisjoint(tokens):
        return "title"
    if not _ADMONITION_CLASSES.isdisjoint(tokens):
        return "admonition"
    if tag == "div" and not _ADMONITION_TYPES.isdisjoint(tokens):
        return "admonition"
    return None


def prefix_lines(text: str, first: str, rest: str, *, blank: str = "") -> str:
    """Prefix the first line with ``first``, later non-blank lines with ``rest``, blank with ``blank``."""
    lines = text.split("\n")
    out = [first + lines[0] if lines[0] else first.rstrip()]
    out.extend(rest + line if line else blank for line in lines[1:])
    return "\n".join(out)


def join_blocks(blocks: list[Block]) -> str:
    """Join blocks with one blank line; a list may follow a paragraph directly when it can
    interrupt one (bullet, or ordered starting at 1, and a non-empty first item)."""
    out: list[str] = []
    previous = ""
    for kind, text in blocks:
        if out:
            tight = previous == "p" and kind.startswith("list") and _can_interrupt(text)
            out.append("\n" if tight else "\n\n")
        out.append(text)
        previous = kind
    return "".join(out)


_INTERRUPTING_ITEM = re.compile(r"^(?:[-*+]|1[.)]) \S")


def _can_interrupt(list_text: str) -> bool:
    return _INTERRUPTING_ITEM.match(list_text) is not None


def single_line(blocks: list[Block], content: str, *, joiner: str = " ") -> str:
    """Flatten a container's blocks and trailing inline content into one line of inline Markdown.

    Hard breaks and paragraph boundaries become ``joiner``.
    """
    pieces = [text.replace("\\\n", joiner).replace("\n", joiner) for _, text in blocks]
    tail = resolve_inline(content).replace("\n", joiner)
    pieces.append(tail)
    text = joiner.join(piece.strip() for piece in pieces if piece.strip())
    if joiner == " ":
        text = _SPACES.sub(" ", text)
    return text.strip()


# -- handlers -------------------------------------------------------------------------------


def start_transparent(state: State, element: etree._Element) -> EndHandler:
    """``<p>``, ``<div>`` and other blocks without own syntax: they only end paragraphs."""
    state.end_paragraph()
    return _end_transparent


def _end_transparent(state: State, element: etree._Element) -> None:
    state.end_paragraph()


def start_heading(state: State, element: etree._Element) -> EndHandler:
    """``<h1>`` … ``<h6>`` (plain text inside table cells and admonition titles / terms)."""
    if state.cell_depth or state.top.kind in {"title", "dt"}:
        return start_transparent(state, element)
    state.push_block("heading", int(element_tag(element)[1]))
    return _end_heading


def _end_heading(state: State, element: etree._Element) -> None:
    frame, content = state.pop_block()
    text = single_line(frame.blocks, content)
    if text:
        anchor = element.get(ANCHOR_ATTRIBUTE)
        suffix = f" {{#{anchor}}}" if anchor and _WRITABLE_ID.fullmatch(anchor) else ""
        state.add_block("heading", "#" * int(frame.data) + " " + escape_heading_end(text) + suffix)


def start_quote(state: State, element: etree._Element) -> EndHandler:
    """``<blockquote>``."""
    if state.flat:
        return start_transparent(state, element)
    state.push_block("quote")
    return _end_quote


def start_admonition(state: State, element: etree._Element) -> EndHandler:
    """An admonition container: rendered as a block quote (its title handled by start_title)."""
    return start_quote(state, element)


def _end_quote(state: State, element: etree._Element) -> None:
    frame, content = state.pop_block()
    blocks = list(frame.blocks)
    paragraph = finish_paragraph(content)
    if paragraph:
        blocks.append(("p", paragraph))
    body = join_blocks(blocks)
    if body:
        state.add_block("quote", prefix_lines(body, "> ", "> ", blank=">"))


def start_title(state: State, element: etree._Element) -> EndHandler:
    """An admonition title or ``<summary>``: a bold one-line paragraph."""
    state.push_block("title")
    return _end_bold_line


def start_dt(state: State, element: etree._Element) -> EndHandler:
    """``<dt>``: the term as a bold paragraph."""
    state.push_block("dt")
    return _end_bold_line


def _end_bold_line(state: State, element: etree._Element) -> None:
    frame, content = state.pop_block()
    raw = " ".join([text.replace("\\\n", " ") for _, text in frame.blocks] + [content])
    raw = _SPACES.sub(" ", raw).strip()  # one line: hard breaks and paragraph ends become spaces
    if not raw:
        return
    raw = raw.replace(OPEN["strong"], "").replace(CLOSE["strong"], "")  # already bold as a whole
    state.add_block("p", finish_paragraph(OPEN["strong"] + raw + CLOSE["strong"]))


def start_hr(state: State, element: etree._Element) -> None:
    """``<hr>``: a thematic break (dropped inside table cells)."""
    state.skip()
    if not state.cell_depth:
        state.add_block("hr", "---")
