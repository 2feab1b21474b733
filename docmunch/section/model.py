"""Records of the section model (design brief §3).

A :class:`Section` is one heading and the body up to the next heading of any level. Offsets
are **UTF-8 byte offsets** into the stored document bytes: the user's own file for Markdown
and text sources (BOM, CRLF and lone CR kept and counted), the stored Markdown rendition for
converted sources (HTML, URL, DOCX, PDF), which then carry a ``locator`` into the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Section:
    """One addressable section of a document."""

    id: str
    """``{repo}::{doc_path}::{slug_path}#{level}``; stable for the same bytes."""
    repo: str
    """Name of the indexed repo (collection) the document belongs to."""
    doc_path: str
    """POSIX path of the document inside the repo (``guide/install.md``)."""
    title: str
    """Heading text as plain text (no Markdown markup); the document title for level 0."""
    level: int
    """Heading level 1–6; 0 for the preamble before the first heading (or a whole .txt file)."""
    parent_id: str | None
    """Id of the nearest enclosing section of lower level, ``None`` at top level."""
    slug: str
    """This heading's own slug (after de-duplication); ``slug_path``'s last component."""
    byte_start: int
    """First byte of the heading line (UTF-8 byte offset, inclusive)."""
    byte_end: int
    """Byte after the section's own body: the next heading of any level or end of file."""
    subtree_end: int
    """Byte after the last descendant section (``>= byte_end``)."""
    content_hash: str
    """sha256 hex of ``data[byte_start:byte_end]``."""
    summary: str
    """First sentence of the body as plain text, at most 200 characters."""
    token_estimate: int
    """Rough token count of the own range: ``(byte_end - byte_start) // 4``."""
    line: int
    """0-based line number of the heading in the document (0 for the preamble)."""
    anchor: str | None = None
    """The fragment a renderer would give this heading (explicit ``{#id}`` else the slug)."""
    locator: dict[str, Any] | None = None
    """Where the section lives in the original source, for converted sources (see formats)."""


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """The sections of one document, in document order."""

    title: str | None
    """Front-matter ``title``, else the first level-1 heading, else ``None``."""
    sections: tuple[Section, ...]
    """All sections in document order; their own ranges tile the body (front matter excluded)."""
    front_matter: dict[str, Any] = field(default_factory=dict)
    """Parsed YAML/TOML front matter (empty when absent or unparsable)."""
    body_start: int = 0
    """Byte offset where the body begins (after BOM-less front matter, if any)."""


@dataclass(frozen=True, slots=True)
class HeadingSpec:
    """A section start found by a source's own parser (reStructuredText, MDX, …) on the stored bytes.

    The heading contract between renderers (``formats/``) and the sectioner: a renderer that
    knows where its headings are hands these to :func:`~docmunch.section.split_at_headings`
    (through ``Rendition.headings``); the sectioner then applies its own slug, id, title and
    tiling rules.
    """

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
