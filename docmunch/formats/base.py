"""Renditions: what every non-Markdown source becomes before sectioning.

A converter turns a source (HTML page, DOCX, PDF, reStructuredText, notebook, …) into a
:class:`Rendition`: UTF-8 Markdown bytes that the sectioner splits like any Markdown file,
plus the :class:`Block` list that ties byte ranges of that Markdown back to positions in the
original. The index stores the Markdown in its raw cache and the blocks in its database;
a section's ``locator`` is built from the blocks its own byte range overlaps
(:meth:`Rendition.locator_for`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Block:
    """One addressable unit of the original (paragraph, table row, list item, PDF line group)."""

    md_start: int
    """UTF-8 byte offset in the rendition where the block's Markdown starts (inclusive)."""
    md_end: int
    """UTF-8 byte offset in the rendition where it ends (exclusive)."""
    kind: str
    """``"paragraph"``, ``"heading"``, ``"table_row"``, ``"list_item"``, ``"lines"``, …"""
    text: str
    """Visible text of the block (whitespace-normalised), used for fingerprints and tests."""
    positions: tuple[dict[str, Any], ...]
    """Source positions, e.g. ``{"type": "paraid", ...}`` or ``{"type": "bbox", ...}``."""


@dataclass(frozen=True, slots=True)
class HeadingSpec:
    """A heading found by a non-Markdown parser (reStructuredText, …) on the stored bytes."""

    line: int
    """0-based line (``\\r\\n``, ``\\r`` or ``\\n`` end a line) where the section starts."""
    level: int
    """Heading level 1–6 (0 only for a leading preamble)."""
    title: str
    """Title as inline Markdown (plain text is fine; ``{#id}`` at the end is honoured)."""
    anchor: str | None = None
    """The id a renderer gives the heading (URL fragment), if known."""
    summary: str = ""
    """First sentence or paragraph of the section body (≤ 200 characters)."""


@dataclass(frozen=True, slots=True)
class Rendition:
    """Markdown rendition of one source document."""

    markdown: bytes
    """UTF-8 Markdown; section offsets point into these bytes."""
    source_kind: str
    """``"markdown"``, ``"text"``, ``"html"``, ``"url"``, ``"docx"``, ``"pdf"``, ``"rst"``, …"""
    title: str | None = None
    """Document title found by the converter (overrides the sectioner's guess when set)."""
    blocks: tuple[Block, ...] = ()
    """Addressable blocks in document order (empty for Markdown/text sources)."""
    source_ref: str | None = None
    """Where the original lives: absolute path or URL (locators are relative to it)."""
    headings: tuple[HeadingSpec, ...] | None = None
    """When set, section starts given by the source's own parser: the sectioner splits
    :attr:`markdown` at these lines instead of parsing it as Markdown. A first spec of level 0
    marks a preamble (text before the first heading)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Converter metadata (byline, lang, platform, page count, etag, …); JSON-serialisable."""

    def locator_for(
        self, byte_start: int, byte_end: int, *, anchor: str | None = None
    ) -> dict[str, Any] | None:
        """Locator for the rendition byte range ``[byte_start, byte_end)``.

        Args:
            byte_start, byte_end: half-open UTF-8 byte range in :attr:`markdown`.
            anchor: the section heading's fragment (slug or explicit id), if any.

        Returns:
            ``None`` for Markdown/text sources; for web pages ``{"url": url#anchor}`` (the bare
            URL when ``meta["anchors"]`` lists the page's real fragments and ``anchor`` is not one);
            for DOCX/PDF the shapes of :mod:`docmunch.formats.locators`; otherwise
            ``{"source": source_ref, "positions": [positions of overlapping blocks]}``.
        """
        if self.source_kind in ("markdown", "text", "rst", "mdx"):
            return None
        if self.source_kind in ("html", "url") and self.source_ref:
            url = self.source_ref.split("#", 1)[0]
            real = self.meta.get("anchors")  # the page's own fragments, when the converter knows them
            if anchor and real is not None and anchor not in real:
                anchor = None
            return {"url": f"{url}#{anchor}" if anchor else url}
        overlapping = [b for b in self.blocks if b.md_start < byte_end and b.md_end > byte_start]
        if self.source_kind in ("docx", "pdf"):
            from docmunch.formats import locators  # lazy: keeps this module dependency-free

            build = locators.docx_locator if self.source_kind == "docx" else locators.pdf_locator
            return build(overlapping, self.source_ref)
        positions = [p for b in overlapping for p in b.positions]
        return {"source": self.source_ref, "positions": positions}
