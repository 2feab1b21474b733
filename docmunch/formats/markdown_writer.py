"""Markdown assembly with exact UTF-8 byte offsets, shared by the DOCX and PDF renderers.

A renderer appends one Markdown *unit* at a time (a heading line, a paragraph, a table row …);
the writer separates units with blank lines and records, for each unit, the half-open UTF-8
byte range ``[md_start, md_end)`` it occupies in the final Markdown, so that
``markdown[md_start:md_end].decode()`` is exactly the unit's Markdown (no trailing newline).

Escaping follows CommonMark 0.31 §2.4 (backslash escapes): any ASCII punctuation character may
be escaped with a backslash, so escaping is always safe; we escape only what could change the
block structure or start inline markup, to keep the rendition readable.
"""

from __future__ import annotations

import re
from typing import Any

from docmunch.formats.blocks import Block

__all__ = ["MarkdownWriter", "escape_inline", "escape_line_start", "normalize_ws"]

_WS = re.compile(r"\s+")
# Inline characters that open emphasis, code, links, autolinks/HTML, or end a hard break.
_INLINE = re.compile(r"([\\`*_\[\]<>~])")
_INLINE_CELL = re.compile(r"([\\`*_\[\]<>~|])")
# Line starts that would open a block construct (CommonMark §4.2 ATX heading, §4.1 thematic
# break, §5.1 block quote, §5.2 list item, §4.5 fenced code, §4.3 setext underline).
_LINE_START = re.compile(r"^(#{1,6}(?=\s|$)|[>+=-]|\d{1,9}(?=[.)]))")


def normalize_ws(text: str) -> str:
    """Collapse every run of Unicode whitespace to one space and strip both ends."""
    return _WS.sub(" ", text).strip()


def escape_inline(text: str, *, table_cell: bool = False) -> str:
    """Backslash-escape inline Markdown syntax in ``text`` (``|`` only matters in table cells)."""
    return (_INLINE_CELL if table_cell else _INLINE).sub(r"\\\1", text)


def escape_line_start(text: str) -> str:
    """Escape a leading character that would turn the line into a block construct.

    ``text`` must already be inline-escaped; for an ordered-list-like start (``1.``) the
    delimiter is escaped (``1\\.``), otherwise the first character is.
    """
    match = _LINE_START.match(text)
    if match is None:
        return text
    token = match.group(1)
    if token[0].isdigit():
        end = len(token)
        return text[:end] + "\\" + text[end:]
    return "\\" + text


class MarkdownWriter:
    """Accumulates Markdown units and the :class:`Block` records that point into them."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self.blocks: list[Block] = []

    @property
    def size(self) -> int:
        """Bytes written so far."""
        return self._size

    def _write(self, text: str) -> tuple[int, int]:
        data = text.encode("utf-8")
        start = self._size
        self._parts.append(data)
        self._size += len(data)
        return start, self._size

    def unit(
        self,
        markdown: str,
        *,
        kind: str | None = None,
        text: str = "",
        positions: tuple[dict[str, Any], ...] = (),
        tight: bool = False,
    ) -> None:
        """Append one unit; record a block for it when ``kind`` is given.

        Args:
            markdown: the unit's Markdown, without a trailing newline (may contain newlines).
            kind: block kind (``"heading"``, ``"paragraph"``, ``"table_row"``, ``"list_item"``,
                ``"lines"``, ``"footnote"``) or ``None`` for structure that is no block
                (e.g. a GFM table's delimiter row).
            text: the block's visible text (whitespace-normalised by the caller).
            positions: the block's source positions.
            tight: join to the previous unit with a single newline (table rows, list items)
                instead of a blank line.
        """
        if self._size:
            self._write("\n" if tight else "\n\n")
        start, end = self._write(markdown)
        if kind is not None:
            self.blocks.append(Block(start, end, kind, text, positions))

    def aside(self, kind: str, *, text: str, positions: tuple[dict[str, Any], ...]) -> None:
        """Record a block that has no Markdown (text kept out of the rendition, e.g. PDF page
        furniture): zero length, at the current end of the Markdown."""
        self.blocks.append(Block(self._size, self._size, kind, text, positions))

    def getvalue(self) -> bytes:
        """The Markdown so far, ending with one newline (empty bytes if nothing was written)."""
        body = b"".join(self._parts)
        return body + b"\n" if body else body
