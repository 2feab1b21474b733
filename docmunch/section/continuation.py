"""A nested paragraph's continuation lines, cut the way markdown-it-py cuts them.

A paragraph inside block quotes and list items reaches the inline parser without the
containers' markers and indentation. pulldown-cmark (:mod:`docmunch.section.blocks`) reports
the paragraph's byte span only, so this module replays, on each continuation line, what
markdown-it-py's block rules do to their per-line state (``StateBlock``: ``bMarks``,
``tShift``, ``sCount``, ``bsCount``) — the block quote rule moving the line start past
``>`` and one optional space (a tab after ``>`` counting one column of its width), a list
item's first line fixing its content indent (CommonMark §5.2: the columns after the marker,
1 when they are more than 4 or the line is blank), a lazy line keeping its start — and then
``StateBlock.getLines``: up to the innermost container's indent of leading columns dropped,
the columns of a tab that reaches past it given back as spaces. Algorithm: markdown-it
(``rules_block/blockquote.js``, ``list.js``, ``state_block.js``), rewritten here.

Titles and summaries therefore see the same text, whitespace included, as before the
parser changed (a summary's source is cut at a character count, so leading spaces count).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Container", "CutLine", "cut_line", "leading_blanks"]

_ITEM_MARK = re.compile(r"[-+*]|[0-9]{1,9}[.)]")


@dataclass(slots=True)
class Container:
    """An open block quote or list item around a paragraph."""

    quote: bool
    """A block quote (else a list item)."""
    line: int
    """0-based line of the view where the container starts (a list item: its marker's line)."""
    indent: int = -1
    """List item: content indent in markdown-it-py's columns (relative to the enclosing block
    quote's content); -1 until computed."""


@dataclass(frozen=True, slots=True)
class CutLine:
    """A continuation line, cut."""

    text: str
    """The text the paragraph's inline source carries for the line."""
    columns: int
    """Columns of indentation beyond the innermost container's (markdown-it-py's ``sCount -
    blkIndent``; negative for a line indented less than a list item's content)."""
    lazy: bool
    """A lazy line: a block quote's marker is missing on it."""


def leading_blanks(text: str) -> tuple[int, int]:
    """``(characters, columns)`` of the spaces and tabs ``text`` starts with, tabs to the next
    stop of 4 columns (CommonMark §2.2)."""
    chars = col = 0
    for char in text:
        if char == " ":
            col += 1
        elif char == "\t":
            col += 4 - col % 4
        else:
            break
        chars += 1
    return chars, col


class _Line:
    """markdown-it-py's block state of one line (offsets in characters of ``text``)."""

    __slots__ = ("bs_count", "mark", "s_count", "t_shift", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.mark = 0
        """``bMarks``: where the line starts for the innermost container."""
        shift, col = leading_blanks(text)
        self.t_shift = shift
        """``tShift``: characters of indentation after :attr:`mark`."""
        self.s_count = col
        """``sCount``: columns of that indentation; -1 on a lazy line."""
        self.bs_count = 0
        """``bsCount``: columns consumed before :attr:`mark` (for tab stops)."""


def cut_line(
    line_no: int,
    containers: Sequence[Container],
    line_text: Callable[[int], str],
    *,
    markers: int = -1,
    text: str | None = None,
) -> CutLine:
    """Continuation line ``line_no`` of a paragraph inside ``containers`` (outermost first), as
    the paragraph's inline source carries it (module docstring).

    Args:
        line_no: 0-based line of the view.
        containers: the paragraph's open block quotes and list items, outermost first.
        line_text: the text of a view line (without its ``\\n``), by number.
        markers: how many of the block quotes have their marker on this line, as the block
            parser found (the others are lazy); -1: decide by CommonMark's rule (a ``>``
            after 0-3 columns of indentation).
        text: the line's text, when the caller has it.

    Returns:
        The line's text after the containers' markers and indentation, and where it stands.
    """
    state, indent = _walk(line_no, containers, len(containers), line_text, markers, text)
    text = state.text
    first = state.mark
    column = 0
    while first < len(text) and column < indent:
        char = text[first]
        if char == "\t":
            column += 4 - (column + state.bs_count) % 4
        elif char == " " or first - state.mark < state.t_shift:
            column += 1
        else:
            break
        first += 1
    lazy = state.s_count < 0
    rest = " " * (column - indent) + text[first:] if column > indent else text[first:]
    return CutLine(rest, -1 if lazy else state.s_count - indent, lazy)


def _walk(
    line_no: int,
    containers: Sequence[Container],
    depth: int,
    line_text: Callable[[int], str],
    markers: int = -1,
    text: str | None = None,
) -> tuple[_Line, int]:
    """The state of ``line_no`` inside the first ``depth`` containers, and the block indent
    there (0 in a block quote, the item's content indent in a list item)."""
    state = _Line(line_text(line_no) if text is None else text)
    indent = 0
    quotes = 0
    for n in range(depth):
        container = containers[n]
        if container.quote:
            if markers < 0 or quotes < markers:
                _quote(state, indent, strict=markers < 0)
            else:
                state.s_count = -1  # lazy: the parser found no marker of this quote here
            quotes += 1
            indent = 0
        else:
            if container.line == line_no:
                container.indent = _item(state)
            elif container.indent < 0:  # from its first line, where every outer marker is
                container.indent = _item(_walk(container.line, containers, n, line_text, n)[0])
            indent = container.indent
    return state, indent


def _quote(state: _Line, indent: int, *, strict: bool) -> None:
    """A block quote's marker on a line: move past it, or mark the line lazy (markdown-it-py's
    ``rules_block/blockquote.py``; ``strict``: a ``>`` indented 4 or more columns is no marker,
    as in CommonMark §5.1)."""
    text = state.text
    pos = state.mark + state.t_shift
    deep = strict and state.s_count >= indent + 4
    if state.s_count < indent or deep or pos >= len(text) or text[pos] != ">":
        state.s_count = -1
        return
    pos += 1
    initial = offset = state.s_count + 1
    after = text[pos] if pos < len(text) else ""
    adjust_tab = space_after = False
    if after == " ":
        pos, initial, offset, space_after = pos + 1, initial + 1, offset + 1, True
    elif after == "\t":
        space_after = True
        if (state.bs_count + offset) % 4 == 3:
            pos, initial, offset = pos + 1, initial + 1, offset + 1
        else:
            adjust_tab = True
    state.mark = pos
    while pos < len(text):
        char = text[pos]
        if char == "\t":
            offset += 4 - (offset + state.bs_count + (1 if adjust_tab else 0)) % 4
        elif char == " ":
            offset += 1
        else:
            break
        pos += 1
    state.bs_count = state.s_count + 1 + (1 if space_after else 0)
    state.s_count = offset - initial
    state.t_shift = pos - state.mark


def _item(state: _Line) -> int:
    """A list item's first line: its content indent, and the line moved to its content
    (markdown-it-py's ``rules_block/list.py``)."""
    text = state.text
    pos = state.mark + state.t_shift
    mark = _ITEM_MARK.match(text, pos)
    end = mark.end() if mark is not None else pos
    initial = offset = state.s_count + end - pos
    pos = end
    while pos < len(text):
        char = text[pos]
        if char == "\t":
            offset += 4 - (offset + state.bs_count) % 4
        elif char == " ":
            offset += 1
        else:
            break
        pos += 1
    after_marker = 1 if pos >= len(text) else offset - initial
    if after_marker > 4:
        after_marker = 1
    state.t_shift = pos - state.mark
    state.s_count = offset
    return initial + after_marker
