"""The block structure of a parse view, from a compiled CommonMark parser.

:func:`outline_blocks` reads the parse view (:mod:`docmunch.section.dialects`) with
pulldown-cmark (the Rust CommonMark 0.31.2 parser of rustdoc and mdBook, through its Python
binding pyromark; GFM tables on), which reports every block with its UTF-8 byte range, and
returns only what the outline needs, in document order:

* ``heading``: an ATX or setext heading at the top nesting level — its 0-based first line,
  level and inline source as markdown-it-py gives it (ATX: the line without its ``#`` run and
  closing sequence; setext: its text lines without the underline, CommonMark-trimmed);
* ``html``: an HTML block at the top level — its first line and its lines as written;
* ``paragraph``: a paragraph at any depth, also the implicit paragraphs of tight list items —
  its first line and inline source, with the block quote markers and list indentation of
  its continuation lines removed as markdown-it-py removes them (:mod:`.continuation`).

It also returns the link reference definitions, keyed like markdown-it-py's ``env``, so the
inline parser (markdown-it-py, kept for titles and summaries) resolves ``[text][label]``.

Two gaps of pulldown-cmark 0.13 against GFM (cmark-gfm, its reference, and markdown-it-py
agree) are closed here: tabs in a table's delimiter row (:func:`_table_tabs`) and a table
that interrupts a paragraph (:func:`_table_start`).

Why not markdown-it-py's own block parser: it is pure Python and was the largest single cost
of sectioning (2.2–2.4 s of CPU for the 1,433 files of the Kubernetes docs, against 0.6–0.8 s
here; ``docs/decisions.md``). ``tests/section/test_block_oracle.py`` runs both over every
fixture corpus, the specs' examples and generated documents and asserts the same outline.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import pyromark
from markdown_it.common.utils import mdTrim, normalizeReference

from docmunch.section.continuation import Container, CutLine, cut_line, leading_blanks

__all__ = ["MAX_NESTING", "Block", "outline_blocks"]

MAX_NESTING = 20
"""Deepest container nesting whose paragraphs are read, in markdown-it-py nesting levels (a
list and its item count one each, a block quote one): markdown-it-py's ``maxNesting`` of its
CommonMark preset, whose block parser skips anything deeper. Kept so that outlines and
summaries stay what they were; deeper text is still in the section, only never its summary."""

_PARSER = pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES)
_CONTAINERS = frozenset({"BlockQuote", "List", "Item"})
_INLINE_TAGS = frozenset({"Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript"})
_DELIMITER_ROW = re.compile(r"^([ \t>]*)([|:-][ \t|:-]*)$", re.MULTILINE)
"""A line that may be a GFM table delimiter row (``| --- |:---:|``), after any block quote
markers: what :func:`_table_tabs` looks at."""
_NEWLINE = re.compile(b"\n")
_DELIMITER_CELL = re.compile(r":?-+:?$")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


@dataclass(frozen=True, slots=True)
class Block:
    """One block the outline reads."""

    kind: str
    """``"heading"``, ``"html"`` or ``"paragraph"``."""
    line: int
    """0-based line of the view where the block starts."""
    level: int
    """Heading level 1–6; 0 for the other kinds."""
    content: str
    """Inline source (heading, paragraph) or the block's lines with their ``\\n`` (html)."""


def outline_blocks(text: str) -> tuple[list[Block], dict[str, dict[str, Any]]]:
    """Headings, HTML blocks and paragraphs of ``text`` (module docstring).

    Args:
        text: the parse view, ``\\n`` line ends.

    Returns:
        ``(blocks, references)``: blocks in document order; ``references`` maps each
        normalised link label (markdown-it-py's ``normalizeReference``) to
        ``{"href": …, "title": …}``, as markdown-it-py's ``env["references"]``.
    """
    src = text.encode("utf-8")
    starts = [0]
    starts.extend(match.end() for match in _NEWLINE.finditer(src))
    walk = _Walk(src, starts)
    for event, span in _PARSER.events_with_range(_table_tabs(text)):
        # Hot loop (one pass per event, ~370 per file): block starts and ends matter; inline
        # events only while a tight list item holds them (its implicit paragraph), or as the
        # first one on a nested paragraph's next line (where its content begins).
        if isinstance(event, dict):
            if "Start" in event:
                walk.start(event["Start"], span["start"], span["end"])
                continue
            if "End" in event:
                walk.end(event["End"], span["start"], span["end"])
                continue
        elif event == "Rule":
            walk.close_loose()
            continue
        if walk.in_item:
            walk.extend_loose(span["start"], span["end"])
        if walk.after_break:
            walk.line_begins(span["start"])
        if walk.watch and isinstance(event, str):  # a "SoftBreak" or "HardBreak"
            walk.after_break = True
    walk.close_loose()
    references: dict[str, dict[str, Any]] = {}
    if "]:" in text:
        for label, definition in _PARSER.reference_definitions(text).items():
            key = normalizeReference(label)
            if key and key not in references:
                references[key] = {"href": definition["dest"], "title": definition["title"] or ""}
    return walk.blocks, references


class _Walk:
    """State of one pass over the events."""

    def __init__(self, src: bytes, starts: list[int]) -> None:
        self.src = src
        """The view's UTF-8 bytes (the events' offsets)."""
        self.starts = starts
        """Byte offset of each line's start."""
        self.blocks: list[Block] = []
        self.stack: list[str] = []
        """Open block tags, outermost first."""
        self.containers: list[Container] = []
        """Open block quotes and list items, outermost first."""
        self.depth = 0
        """markdown-it-py nesting level of the open containers (list, item, quote: 1 each)."""
        self.in_item = False
        """The innermost open block is a list item: inline events belong to its implicit
        paragraph (a tight item has no paragraph events)."""
        self.loose_start = -1
        self.loose_end = -1
        """Byte span of that implicit paragraph so far (-1: none open)."""
        self.watch = False
        """A paragraph inside a container is open: note where its lines' content begins."""
        self.after_break = False
        """The last inline event was a line break (the next one begins a line's content)."""
        self.begins: dict[int, int] = {}
        """Line → byte offset where pulldown-cmark found the open paragraph's content on it."""

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def start(self, value: object, start: int, end: int) -> None:
        tag = value if isinstance(value, str) else next(iter(value))  # type: ignore[call-overload]
        if tag in _INLINE_TAGS:
            if self.in_item:
                self.extend_loose(start, end)
            if self.after_break:
                self.line_begins(start)
            return
        self.close_loose()
        if tag == "Paragraph":
            self.watch = bool(self.containers)
        if not self.stack:
            if tag == "Heading":
                assert isinstance(value, dict)
                self.heading(int(value["Heading"]["level"][1]), start, end)
            elif tag == "HtmlBlock":
                first, last = self.line_of(start), self.line_of(end - 1)
                stop = self.starts[last + 1] if last + 1 < len(self.starts) else len(self.src)
                content = self.src[self.starts[first] : stop].decode("utf-8")
                self.blocks.append(Block("html", first, 0, content))
        if tag in _CONTAINERS:
            self.depth += 1
            if tag == "BlockQuote":
                self.containers.append(Container(True, self.line_of(start)))
            elif tag == "Item":
                self.containers.append(Container(False, self.line_of(start)))
        self.stack.append(tag)
        self.in_item = tag == "Item"
        self.watch = self.watch or self.in_item

    def end(self, value: object, start: int, end: int) -> None:
        tag = value if isinstance(value, str) else next(iter(value))  # type: ignore[call-overload]
        if tag in _INLINE_TAGS:
            return
        if tag == "Item":
            self.close_loose()
        elif tag == "Paragraph":
            self.paragraph(start, end)
        if tag in _CONTAINERS:
            self.depth -= 1
            if tag != "List":
                self.containers.pop()
        self.stack.pop()
        self.in_item = bool(self.stack) and self.stack[-1] == "Item"
        self.watch = self.in_item

    def heading(self, level: int, start: int, end: int) -> None:
        first = self.line_of(start)
        lines = self.src[self.starts[first] : end].decode("utf-8").split("\n")
        atx = _ATX.match(lines[0])
        if atx is not None:  # markdown-it-py's rules_block/heading.py: cut "  ##  " tails
            line, pos = lines[0], atx.end(1)
            stop = len(line)
            while stop > pos and line[stop - 1] in " \t":
                stop -= 1
            hashes = stop
            while hashes > pos and line[hashes - 1] == "#":
                hashes -= 1
            if hashes > pos and line[hashes - 1] in " \t":
                stop = hashes
            content = mdTrim(line[pos:stop])
        else:
            last = self.line_of(end - 1)  # the underline
            text = lines[: last - first + 1]
            if "|" in text[0] or len(text) > 2:  # a table in it: a paragraph (_table_start)
                at = _table_start([CutLine(line, _indentation(line), False) for line in text[1:]])
                if at is not None:
                    self.blocks.append(Block("paragraph", first, 0, mdTrim("\n".join(text[: at + 1]))))
                    return
            content = mdTrim("\n".join(text[:-1]))
        self.blocks.append(Block("heading", first, level, content))

    def paragraph(self, start: int, end: int) -> None:
        """Emit the paragraph spanning bytes ``[start, end)``: its first line from ``start``,
        its continuation lines cut (:mod:`.continuation`), cut short where a table interrupts
        it (:func:`_table_start`)."""
        if self.depth >= MAX_NESTING:
            self.begins.clear()
            self.after_break = False
            return
        first, last = self.line_of(start), self.line_of(end - 1)
        raw = self.src[start:end].decode("utf-8")
        head = raw.split("\n", 1)[0]
        lines: list[CutLine] = []
        if last > first:
            lines = [self.cut(n) for n in range(first + 1, last + 1)]
        if "|" in raw:
            candidates = lines
            if last + 1 < len(self.starts) and "|" in (lines[-1].text if lines else head):
                after = self.line_text(last + 1)  # a delimiter row there: the last line heads a table
                if "-" in after:
                    candidates = [*lines, self.cut(last + 1)]
            at = _table_start(candidates)
            if at is not None:
                lines = lines[:at]
        content = "\n".join([head, *(line.text for line in lines)]) if lines or last > first else raw
        self.blocks.append(Block("paragraph", first, 0, mdTrim(content)))
        self.begins.clear()
        self.after_break = False

    def cut(self, line: int) -> CutLine:
        """Continuation ``line`` of the open paragraph without its containers' prefixes: as
        many block quote markers as pulldown-cmark passed before the line's content (all the
        ``>`` before it; a line whose content it did not report is read by CommonMark's rule)."""
        text = self.line_text(line)
        if not self.containers:
            return CutLine(text, _indentation(text), False)
        begin = self.begins.get(line)
        markers = -1
        if begin is not None:
            prefix = self.src[self.starts[line] : begin]
            markers = prefix.rstrip(b"\\").count(b">")
        return cut_line(line, self.containers, self.line_text, markers=markers, text=text)

    def line_begins(self, start: int) -> None:
        self.after_break = False
        line = self.line_of(start)
        if line not in self.begins:
            self.begins[line] = start

    def line_text(self, line: int) -> str:
        """View line ``line`` without its ``\\n``."""
        stop = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.src)
        return self.src[self.starts[line] : stop].decode("utf-8")

    def extend_loose(self, start: int, end: int) -> None:
        if self.loose_start < 0:  # the first inline event: a text's span omits its escape
            self.loose_start = start - 1 if start > 0 and self.src[start - 1] == 0x5C else start
        self.loose_end = max(self.loose_end, end)

    def close_loose(self) -> None:
        if self.loose_start >= 0:
            start, end = self.loose_start, self.loose_end
            self.loose_start = self.loose_end = -1
            self.paragraph(start, end)


def _table_tabs(text: str) -> str:
    """``text`` with the tabs inside GFM delimiter rows made spaces (same length).

    GFM lets spaces *or tabs* surround a delimiter row's cells (cmark-gfm, the spec's
    reference, and markdown-it-py read ``| -- \t|`` as one); pulldown-cmark 0.13 accepts only
    spaces there and reads the table as a paragraph. In a line made of ``|:-`` and blanks a
    tab means nothing else, except after a leading ``-`` (a list item's marker, left alone).
    """
    if "\t" not in text or "|" not in text:
        return text

    def spaces(match: re.Match[str]) -> str:
        row = match.group(2)
        if "\t" not in row or "|" not in row or "-" not in row or row[:2] in ("-\t", "- "):
            return match.group(0)  # no tab, no row, or a list item's marker ("-\t|a|")
        return match.group(1) + row.replace("\t", " ")

    return _DELIMITER_ROW.sub(spaces, text)



def _indentation(line: str) -> int:
    """Columns of a line's leading blanks (tab stops of 4)."""
    return leading_blanks(line)[1]


def _table_start(lines: list[CutLine]) -> int | None:
    """Index of the continuation line where a GFM table interrupts the paragraph (that line
    its header row, the next its delimiter row), or ``None``.

    pulldown-cmark 0.13 lets a table interrupt no paragraph; GFM does (cmark-gfm takes the
    paragraph's last line as the header row), and so does markdown-it-py, whose table rule
    (``rules_block/table.py``, as a paragraph terminator) this replays: a header row that is
    neither lazy nor indented 4 columns and holds a ``|``, a delimiter row of ``|:-`` cells
    (``:?-+:?``, blanks around) with as many cells as the header's ``|``-split ones.
    """
    for k in range(len(lines) - 1):
        header, delimiter = lines[k], lines[k + 1]
        if header.lazy or header.columns > 3 or delimiter.lazy or not 0 <= delimiter.columns <= 3:
            continue
        cells = _delimiter_cells(delimiter.text.lstrip(" \t"))
        if cells < 1:
            continue
        row = mdTrim(header.text.lstrip(" \t"))
        if "|" not in row:
            continue
        columns = _split_row(row)
        if columns and columns[0] == "":
            columns.pop(0)
        if columns and columns[-1] == "":
            columns.pop()
        if len(columns) == cells:
            return k
    return None


def _delimiter_cells(row: str) -> int:
    """Cells of a GFM delimiter row (``| :-- | --: |``), 0 when ``row`` is none."""
    if len(row) < 2 or row[0] not in "|-:" or (row[1] not in "|-: \t") or (row[0] == "-" and row[1] in " \t"):
        return 0
    if any(char not in "|-: \t" for char in row):
        return 0
    parts = row.split("|")
    cells = 0
    for i, part in enumerate(parts):
        cell = mdTrim(part)
        if not cell:
            if i == 0 or i == len(parts) - 1:
                continue
            return 0
        if _DELIMITER_CELL.match(cell) is None:
            return 0
        cells += 1
    return cells


def _split_row(row: str) -> list[str]:
    """A table row's cells split at unescaped ``|`` (markdown-it-py's ``escapedSplit``)."""
    cells: list[str] = []
    current = ""
    last = 0
    escaped = False
    for pos, char in enumerate(row):
        if char == "|":
            if not escaped:
                cells.append(current + row[last:pos])
                current = ""
                last = pos + 1
            else:
                current += row[last : pos - 1]
                last = pos
        escaped = char == "\\"
    cells.append(current + row[last:])
    return cells
