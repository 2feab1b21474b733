"""Lists: ``<ul>``, ``<ol>`` (``start``, ``reversed``, ``li[value]``), ``<li>``, task items.

* Bullets are ``-``; ordered markers ``N.``. A list that directly follows another list in the
  same container uses the other marker (``*`` / ``N)``) so CommonMark keeps them apart.
* Continuation lines of an item are indented by the marker width plus one space (2 for ``-``,
  3 for ``1.``, 4 for ``10.``), which is the item's content column in CommonMark.
* Items are separated by a blank line only when one of them holds a blank line (loose list).
* Inside a GFM table cell (and beyond the nesting cap) items become separate lines (``<br>``
  in cells) with a ``- `` / ``N. `` prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from docmunch.convert.blocks import EndHandler, join_blocks, prefix_lines
from docmunch.convert.state import State, element_tag, finish_paragraph

__all__ = ["ListState", "start_li", "start_list"]

_MAX_NUMBER = 999_999_999  # CommonMark: at most nine digits
_THEMATIC_BREAK = re.compile(r"^(?:- *)+---$")


@dataclass(slots=True)
class ListState:
    """Numbering and marker of an open list."""

    ordered: bool
    """``<ol>`` (numbers) rather than ``<ul>`` (bullets)."""
    number: int
    """Number of the next item (ordered lists)."""
    step: int
    """+1, or -1 for ``<ol reversed>``."""
    marker: str
    """Bullet character (``-`` or ``*``) or ordered delimiter (``.`` or ``)``)."""

    def next_marker(self, value: str | None) -> str:
        """The marker for the next item (``value`` = the item's ``value`` attribute)."""
        if not self.ordered:
            return self.marker
        if value is not None:
            parsed = _parse_int(value)
            if parsed is not None:
                self.number = parsed
        number = min(max(self.number, 0), _MAX_NUMBER)
        self.number += self.step
        return f"{number}{self.marker}"


def _parse_int(value: str | None) -> int | None:
    try:
        return int((value or "").strip())
    except ValueError:
        return None


def start_list(state: State, element: etree._Element) -> EndHandler:
    """``<ul>``, ``<ol>``, ``<menu>``."""
    flat = state.flat
    state.end_paragraph()
    previous = None if flat else state.last_block_kind()
    ordered = element_tag(element) == "ol"
    if ordered:
        reverse = element.get("reversed") is not None
        start = _parse_int(element.get("start"))
        if start is None:
            start = sum(1 for child in element if element_tag(child) == "li") if reverse else 1
        marker = ")" if previous == "list:." else "."
        data = ListState(True, start, -1 if reverse else 1, marker)
    else:
        data = ListState(False, 1, 1, "*" if previous == "list:-" else "-")
    if flat:
        state.flat_lists.append(data)
        return _end_flat_list
    state.push_block("list", data)
    return _end_list


def _end_flat_list(state: State, element: etree._Element) -> None:
    state.end_paragraph()
    state.flat_lists.pop()


def _end_list(state: State, element: etree._Element) -> None:
    frame, _ = state.pop_block()
    items = [
        text if kind == "item" else _render_item(frame.data.next_marker(None), text)
        for kind, text in frame.blocks
    ]
    if not items:
        return
    loose = any("\n\n" in item for item in items)
    state.add_block(f"list:{frame.data.marker}", ("\n\n" if loose else "\n").join(items))


def start_li(state: State, element: etree._Element) -> EndHandler:
    """``<li>`` (an item outside any list is treated as a bullet item)."""
    if state.flat and state.top.kind != "list":
        state.end_paragraph()
        marker = state.flat_lists[-1].next_marker(element.get("value")) if state.flat_lists else "-"
        own = marker + " "
        state.prefix += own  # written before the item's first text, whatever block holds it

        def end_inline_item(state: State, element: etree._Element) -> None:
            if state.prefix.endswith(own):  # an empty item writes nothing
                state.prefix = state.prefix[: -len(own)]
            state.end_paragraph()

        return end_inline_item
    state.push_block("li")
    return _end_li


def _end_li(state: State, element: etree._Element) -> None:
    frame, content = state.pop_block()
    blocks = list(frame.blocks)
    paragraph = finish_paragraph(content)
    if paragraph:
        blocks.append(("p", paragraph))
    body = join_blocks(blocks)
    parent = state.top
    if parent.kind == "list" and isinstance(parent.data, ListState):
        marker = parent.data.next_marker(element.get("value"))
        parent.blocks.append(("item", _render_item(marker, body)))
    else:
        state.add_block("list:-", _render_item("-", body))


def _render_item(marker: str, body: str) -> str:
    if not body:
        return marker
    indent = " " * (len(marker) + 1)
    text = prefix_lines(body, marker + " ", indent)
    first, newline, rest = text.partition("\n")
    if _THEMATIC_BREAK.match(first):
        # "- ---" and "- - ---" would read as one thematic break, not an item holding one.
        first = first[:-3] + "___"
    return first + newline + rest
