"""Converter state: a stack of block frames, each with a stack of inline frames.

The converter walks the tree with ``lxml.etree.iterwalk`` (start/end events, no Python
recursion). Container blocks (block quotes, list items, headings, table cells, …) push a
:class:`BlockFrame`; formatting elements (emphasis, links, ``<sup>``, …) push an
:class:`InlineFrame` on the current block frame. Transparent blocks (``<p>``, ``<div>``, …) push
nothing: they only end the paragraph being built. Inline text is kept as Markdown pieces in which
``"\\n"`` stands for a hard line break, resolved per context (paragraph, heading, table cell).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from docmunch.convert.emphasis import resolve_inline
from docmunch.convert.escaping import HTML_WHITESPACE, code_span, escape_line_starts, escape_text

__all__ = [
    "MAX_NESTING",
    "Block",
    "BlockFrame",
    "InlineFrame",
    "State",
    "class_tokens",
    "element_tag",
    "finish_paragraph",
]

Block = tuple[str, str]
"""A rendered block: (kind, Markdown without trailing newline). Kinds: ``p``, ``heading``,
``code``, ``hr``, ``quote``, ``table``, ``html`` (raw HTML table), ``math``, ``item`` (a list
item inside a list frame) and ``list:<marker>`` with the list's marker (``-``, ``*``, ``.``,
``)``) so that a following list can choose the other one."""

InlineRender = Callable[["InlineFrame", str], str]


@dataclass(slots=True)
class InlineFrame:
    """An open formatting element inside the current block."""

    kind: str
    """Element role: ``base`` (the paragraph itself), ``em``, ``strong``, ``del``, ``a``, ``html``."""
    render: InlineRender | None
    """Turns the frame's finished content into Markdown (``None`` for the base frame)."""
    data: Any = None
    """Per-kind data (link target and title, HTML tag name)."""
    parts: list[str] = field(default_factory=list)
    """Markdown pieces collected so far."""
    code_text: str | None = None
    """Text of the last code span added here (adjacent code spans are merged into one)."""


@dataclass(slots=True)
class BlockFrame:
    """An open container block."""

    kind: str
    """``root``, ``quote``, ``li``, ``list``, ``heading``, ``cell``, ``caption``, ``table``,
    ``title`` or ``dt``."""
    data: Any = None
    """Per-kind data (heading level, list or table state)."""
    blocks: list[Block] = field(default_factory=list)
    """Finished child blocks, in order."""
    inlines: list[InlineFrame] = field(default_factory=lambda: [InlineFrame("base", None)])
    """Inline stack; ``inlines[0]`` is the paragraph being built."""
    last_space: bool = True
    """Whether the last inline output ended in whitespace (or nothing was written yet)."""


_SPACES_AROUND_BREAK = re.compile(r" *\n *")


def finish_paragraph(content: str, *, line_starts: bool = True) -> str:
    """Turn finished inline Markdown into paragraph text: hard breaks, markers, line starts.

    ``line_starts=False`` skips the line-start escapes (text inside a GFM table cell never
    starts a Markdown line).
    """
    content = _SPACES_AROUND_BREAK.sub("\n", resolve_inline(content)).strip(" \n")
    if not content:
        return ""
    if line_starts:
        content = escape_line_starts(content)
    return content.replace("\n", "\\\n")


def _append(parts: list[str], markdown: str) -> None:
    if markdown:
        parts.append(markdown)


_INDENTING = frozenset({"quote", "li"})
MAX_NESTING = 32
"""Deepest nesting of list items and block quotes, in levels; deeper ones continue inline at
this level.

Indentation makes output size quadratic in depth (5,000 nested lists would be 25 MB of
spaces) and each level re-indents its content, so depth is capped. 32 is far beyond real
documentation (the fixtures nest at most 6 levels) and keeps a line's indentation under
~130 characters, so a hostile page of nested lists grows at most ~13× when converted."""


class State:
    """Mutable conversion state shared by the element handlers."""

    __slots__ = ("_walker", "base_url", "cell_depth", "flat_lists", "frames", "nesting", "prefix", "skipped")

    def __init__(self, base_url: str | None) -> None:
        self.base_url = base_url
        """URL that relative links and image sources are resolved against (or ``None``)."""
        self.frames: list[BlockFrame] = [BlockFrame("root")]
        """Open block frames, root first."""
        self.cell_depth = 0
        """How many GFM table cells are open (blocks inside render inline)."""
        self.nesting = 0
        """How many indenting containers (list items, block quotes) are open."""
        """How many GFM table cells are open (blocks inside render inline)."""
        self.skipped = False
        """Set by :meth:`skip` for the element being started."""
        self.flat_lists: list[Any] = []
        """Numbering of lists written inline (in table cells, beyond the nesting cap)."""
        self.prefix = ""
        """Markdown to put before the next inline output (an inline list item's marker)."""
        self._walker: Any = None

    # -- walking ---------------------------------------------------------------------------

    def attach(self, walker: Any) -> None:
        """Attach the ``iterwalk`` iterator so handlers can skip subtrees."""
        self._walker = walker

    def skip(self) -> None:
        """Do not descend into the element being started (its text is not added either)."""
        self.skipped = True
        self._walker.skip_subtree()

    @property
    def top(self) -> BlockFrame:
        """The innermost open block frame."""
        return self.frames[-1]

    @property
    def flat(self) -> bool:
        """Whether block structure is flattened here (inside a table cell or at the nesting cap)."""
        return self.cell_depth > 0 or self.nesting >= MAX_NESTING

    # -- inline output ---------------------------------------------------------------------

    def add_text(self, text: str | None) -> None:
        """Add character data, collapsing HTML whitespace as a browser does."""
        if not text:
            return
        frame = self.top
        if frame.kind in {"table", "list"}:  # whitespace between rows or items
            return
        if "\n" in text or "\t" in text or "  " in text or "\r" in text or "\f" in text:
            text = HTML_WHITESPACE.sub(" ", text)
        if text[0] == " " and frame.last_space:
            text = text[1:]
        if not text:
            return
        if self.prefix:
            self._flush_prefix(frame)
        frame.inlines[-1].parts.append(escape_text(text))
        frame.last_space = text[-1] == " "

    def add_markdown(self, markdown: str, *, ends_in_space: bool = False) -> None:
        """Add already-rendered inline Markdown (a link, a code span, a hard break ``"\\n"``)."""
        if not markdown:
            return
        frame = self.top
        if self.prefix and markdown != "\n":  # a lone line break does not make an item non-empty
            self._flush_prefix(frame)
        _append(frame.inlines[-1].parts, markdown)
        frame.last_space = ends_in_space

    def _flush_prefix(self, frame: BlockFrame) -> None:
        frame.inlines[0].parts.append(self.prefix)  # nothing but line breaks came before
        self.prefix = ""

    def add_code(self, text: str) -> None:
        """Add an inline code span; one right after another merges with it (```a``b``` would not
        parse back as two spans)."""
        inline = self.top.inlines[-1]
        previous = inline.code_text
        if previous is not None and inline.parts and inline.parts[-1] == code_span(previous):
            inline.parts.pop()
            text = previous + text
        self.add_markdown(code_span(text))
        inline.code_text = text

    def push_inline(self, kind: str, render: InlineRender, data: Any = None) -> None:
        """Open a formatting element."""
        self.top.inlines.append(InlineFrame(kind, render, data))

    def pop_inline(self) -> None:
        """Close the innermost formatting element and add its rendering to its parent."""
        inlines = self.top.inlines
        if len(inlines) < 2:
            return
        frame = inlines.pop()
        assert frame.render is not None
        _append(inlines[-1].parts, frame.render(frame, "".join(frame.parts)))

    def inline_kinds(self) -> list[str]:
        """Kinds of the open inline frames of the current block, outermost first."""
        return [frame.kind for frame in self.top.inlines]

    # -- blocks ----------------------------------------------------------------------------

    def _collapse_inlines(self, frame: BlockFrame) -> str:
        """Close every open inline frame of ``frame`` into its base, keep them open but empty."""
        inlines = frame.inlines
        for index in range(len(inlines) - 1, 0, -1):
            inner = inlines[index]
            if inner.parts:
                assert inner.render is not None
                _append(inlines[index - 1].parts, inner.render(inner, "".join(inner.parts)))
                inner.parts = []
        content = "".join(inlines[0].parts)
        inlines[0].parts = []
        frame.last_space = True
        return content

    def end_paragraph(self) -> None:
        """Finish the paragraph being built in the current block (if it has any text)."""
        frame = self.top
        if not any(inline.parts for inline in frame.inlines):
            return
        text = finish_paragraph(self._collapse_inlines(frame), line_starts=not self.cell_depth)
        if text:
            frame.blocks.append(("p", text))

    def add_block(self, kind: str, markdown: str) -> None:
        """Append a finished block to the current container (ending its paragraph first)."""
        self.end_paragraph()
        if markdown:
            self.top.blocks.append((kind, markdown))

    def push_block(self, kind: str, data: Any = None) -> BlockFrame:
        """Open a container block; it inherits (empty copies of) the open formatting elements."""
        self.end_paragraph()
        outer = self.top
        frame = BlockFrame(kind, data)
        frame.inlines.extend(
            InlineFrame(inline.kind, inline.render, inline.data) for inline in outer.inlines[1:]
        )
        self.frames.append(frame)
        if kind in _INDENTING:
            self.nesting += 1
        return frame

    def pop_block(self) -> tuple[BlockFrame, str]:
        """Close the current container; returns it and its unfinished inline Markdown."""
        frame = self.frames.pop()
        if frame.kind in _INDENTING:
            self.nesting -= 1
        return frame, self._collapse_inlines(frame)

    def last_block_kind(self) -> str | None:
        """Kind of the last block already written in the current container."""
        blocks = self.top.blocks
        return blocks[-1][0] if blocks else None


_TAG_NAMES: dict[str, str] = {}
_TAG_CACHE_SIZE = 4096


def element_tag(element: etree._Element) -> str:
    """Lower-case local tag name ("" for comments and processing instructions)."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    name = _TAG_NAMES.get(tag)
    if name is None:
        name = tag.rpartition("}")[2].lower()
        if len(_TAG_NAMES) < _TAG_CACHE_SIZE:
            _TAG_NAMES[tag] = name
    return name


def class_tokens(element: etree._Element) -> list[str]:
    """The element's ``class`` attribute split on whitespace."""
    return (element.get("class") or "").split()
