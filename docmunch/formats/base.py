"""Renditions: what every non-Markdown source becomes before sectioning.

A converter turns a source (HTML page, DOCX, PDF, reStructuredText, notebook, …) into a
:class:`Rendition`: UTF-8 Markdown bytes that the sectioner splits like any Markdown file,
plus the :class:`~docmunch.formats.blocks.Block` list that ties byte ranges of that Markdown
back to positions in the original. The index stores the Markdown in its raw cache and the
blocks in its database; a section's ``locator`` is built from the blocks its own byte range
overlaps (:meth:`Rendition.locator_for`).

Imports run one way: ``blocks`` ← ``locators`` ← ``base`` ← renderers. Section starts found by a
source's own parser are :class:`~docmunch.section.model.HeadingSpec` records — the heading
contract belongs to ``section/``, which never imports ``formats/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docmunch.formats.blocks import Block
from docmunch.formats.locators import docx_locator, pdf_locator
from docmunch.section.model import HeadingSpec

__all__ = ["Block", "Rendition"]


@dataclass(frozen=True, slots=True)
class Rendition:
    """Markdown rendition of one source document."""

    markdown: bytes
    """UTF-8 Markdown; section offsets point into these bytes."""
    source_kind: str
    """``"markdown"``, ``"text"``, ``"html"``, ``"url"``, ``"docx"``, ``"pdf"``, ``"rst"``, …"""
    title: str | None = None
    """Document title found by the converter (overrides the sectioner's guess when set); may
    be the text of its first heading."""
    declared_title: str | None = None
    """The title the source declares outside its body text — DOCX core ``dc:title``, PDF
    ``/Title``, an HTML page's metadata title, MDX front matter — or ``None``. It names the
    preamble (text before the first heading), which must never take a later heading's text."""
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
        if self.source_kind == "docx":
            return docx_locator(overlapping, self.source_ref)
        if self.source_kind == "pdf":
            pages = {p.get("page") for b in overlapping for p in b.positions}
            furniture = [b for b in self.blocks if b.kind == "furniture"
                         and any(p.get("page") in pages for p in b.positions)]
            return pdf_locator(overlapping, self.source_ref, furniture=furniture)
        positions = [p for b in overlapping for p in b.positions]
        return {"source": self.source_ref, "positions": positions}
