"""Split Markdown (and plain text) into sections with exact UTF-8 byte offsets.

How offsets are found: the document is decoded as UTF-8 and its parse view handed to the
CommonMark + GFM tables *block* parser of :mod:`.blocks` (pulldown-cmark; markdown-it-py's
inline parser is run only for heading text and for the one paragraph per section that gives
the summary). Headings come back with 0-based line numbers. CRLF and lone CR become LF
before lines are counted (CommonMark §2.1 "line ending"), so the byte offset of every line
start is computed on the *original* bytes with the same rule (``\\r\\n``, ``\\r`` or ``\\n``
end a line); line N of the parser is then byte ``line_starts[N]`` of the file. Line endings
are ASCII, so this mapping is exact whatever the encoding of the text in between.

Rules decided here:

* **Lead-in.** A UTF-8 BOM, YAML/TOML front matter (see :mod:`.frontmatter`) and blank lines
  before the first section are not body text. ``ParsedDocument.body_start`` is the first
  byte of the first section (``len(data)`` when there is none); the sections' own ranges tile
  ``[body_start, len(data))`` exactly. So a heading's ``byte_start`` always points at its own
  line (its ``#``, or the 1–3 spaces of indentation before it), never at a BOM.
* **Preamble.** A level-0 section (slug ``_preamble``) exists only when there is non-blank
  text between the lead-in and the first heading. Its title is the title the document
  declares — front matter ``title``, else the converter's title property (``declared_title``:
  DOCX ``dc:title``, PDF ``/Title``, an HTML page's metadata title) — else the file name;
  never the text of the heading that follows it (the preamble is what comes *before* that
  heading). Its ``line`` is the 0-based line where it starts.
* **Which headings start sections** (see :mod:`.outline`): only headings at the document's top
  nesting level, found on the dialect parse view (:mod:`.dialects`: template code blocks,
  admonitions and containers masked, same lines): a heading inside a blockquote, list item,
  admonition or tab/callout template block is content and stays in the body of the enclosing
  section. ``<h1>``–``<h6>`` in top-level HTML blocks start sections too (:mod:`.html_headings`).
  Everything else is decided by the CommonMark parser: ATX headings indented 1–3 spaces count;
  ``#`` lines in fences (any length, any info string), indented code, list-item fences and
  HTML blocks (including ``<!-- -->`` comments) do not; ``---`` under a paragraph is a setext
  underline but after a list item, blockquote or fence is a thematic break. A setext
  heading's section starts at its first text line.
* **Slugs** (see :mod:`.slug`): explicit ``{#id}`` else the GitHub slug of the title,
  de-duplicated across the whole document; an empty slug falls back to
  ``section-<n>``, n = 1-based ordinal of the heading among the document's headings (then
  de-duplicated like any slug). ``anchor`` is the explicit id, else the unique slug.
* **Titles** are the plain text of the heading's first 2000 characters of inline source;
  template tags show what they display, a tag-only heading is named from its tags'
  arguments (:mod:`.templates`, :func:`.plain.heading_title`).
* **Summary**: the first sentence (≤ 200 characters) of the first paragraph of the section's
  own body that has visible text, skipping code, HTML blocks/comments, tables and paragraphs
  made only of template tags (the text after an HTML heading in its block comes first).
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import replace
from itertools import accumulate
from pathlib import PurePosixPath
from typing import Any

from markdown_it import MarkdownIt

from docmunch.errors import ConvertError
from docmunch.section.frontmatter import find_front_matter
from docmunch.section.model import HeadingSpec, ParsedDocument, Section
from docmunch.section.outline import MD as _MD
from docmunch.section.outline import RawHeading, scan
from docmunch.section.plain import collapse, first_sentence, heading_title
from docmunch.section.slug import Slugger, slugify, split_explicit_id

__all__ = [
    "PREAMBLE_SLUG", "TITLE_SOURCE_CHARS", "section_id", "split_at_headings", "split_markdown", "split_text",
]

PREAMBLE_SLUG = "_preamble"
"""Slug (and slug_path) of the level-0 section before the first heading."""

BOM = b"\xef\xbb\xbf"
_NEWLINE_RE = re.compile(rb"\r\n?|\n")
_NON_BLANK_RE = re.compile(rb"[^ \t\r\n\f\v]")
TITLE_SOURCE_CHARS = 2000
"""Characters of a heading's inline source parsed for its title (inline parsing can go
quadratic on odd input; any sensible heading lies well within this prefix)."""


def section_id(repo: str, doc_path: str, slug_path: str, level: int) -> str:
    """The section id ``{repo}::{doc_path}::{slug_path}#{level}`` (design brief §3)."""
    return f"{repo}::{doc_path}::{slug_path}#{level}"


def split_markdown(
    data: bytes, *, repo: str, doc_path: str, declared_title: str | None = None
) -> ParsedDocument:
    """Split a Markdown document into sections.

    Args:
        data: the file's bytes exactly as stored (BOM, CRLF and lone CR allowed).
        repo: repo name, the first part of every section id.
        doc_path: POSIX path of the document inside the repo.
        declared_title: the title a converter read from the source's properties (DOCX
            ``dc:title``, PDF ``/Title``), never a heading's text; with no front-matter
            ``title`` it names the preamble and the document.

    Returns:
        A :class:`ParsedDocument` whose sections' own ranges tile ``[body_start, len(data))``.

    Raises:
        ConvertError: the bytes are not valid UTF-8.
    """
    lead = len(BOM) if data.startswith(BOM) else 0
    front = find_front_matter(data, lead)
    fm_end, fm_lines = (front.end, front.lines) if front else (lead, 0)
    _check_utf8(data[:fm_end], doc_path, 0)
    body = _check_utf8(data[fm_end:], doc_path, fm_end)
    if "\r" in body:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in body:
        body = body.replace("\0", "\ufffd")  # markdown-it's normalize rule, same lengths

    env: dict[str, Any] = {}
    front_data = front.data if front else {}
    headings, preamble_summary = scan(body, _MD, env, front=front_data)
    line_starts = _line_starts(data, fm_end)
    for heading in headings:
        heading.start = line_starts[heading.line]
    preamble = RawHeading(line=0, level=0, source="", summary=preamble_summary)

    end = len(data)
    first_heading = headings[0].start if headings else end
    first_text = _NON_BLANK_RE.search(data, fm_end, first_heading)
    if first_text is not None:
        preamble.line = bisect_right(line_starts, first_text.start()) - 1
        preamble.start = line_starts[preamble.line]
        body_start = preamble.start
    else:
        body_start = first_heading

    declared = _front_title(front_data) or declared_title or None
    sections = _build(
        headings, preamble if first_text is not None else None, _MD, env, end=end,
        data=data, repo=repo, doc_path=doc_path, doc_title=declared, fm_lines=fm_lines, front=front_data,
    )
    doc_title = declared or next((s.title for s in sections if s.level == 1 and s.title), None)
    if sections and sections[0].level == 0:  # named by what precedes it, never the next heading
        sections[0] = replace(sections[0], title=declared or PurePosixPath(doc_path).name)
    return ParsedDocument(
        title=doc_title,
        sections=tuple(sections),
        front_matter=front_data,
        body_start=body_start,
    )


def split_text(data: bytes, *, repo: str, doc_path: str) -> ParsedDocument:
    """Treat a plain-text file as one level-0 section (only when it has non-blank text).

    The section covers the whole file after an optional BOM; its title is the file name and
    its summary the first sentence of the text. ``ParsedDocument.title`` is ``None``.

    Raises:
        ConvertError: the bytes are not valid UTF-8.
    """
    text = _check_utf8(data, doc_path, 0)
    lead = len(BOM) if data.startswith(BOM) else 0
    if not text.strip(" \t\r\n\f\v\ufeff"):
        return ParsedDocument(title=None, sections=(), body_start=len(data))
    slug_path = PREAMBLE_SLUG
    section = Section(
        id=section_id(repo, doc_path, slug_path, 0),
        repo=repo,
        doc_path=doc_path,
        title=PurePosixPath(doc_path).name,
        level=0,
        parent_id=None,
        slug=PREAMBLE_SLUG,
        byte_start=lead,
        byte_end=len(data),
        subtree_end=len(data),
        content_hash=hashlib.sha256(data[lead:]).hexdigest(),
        summary=first_sentence(text[:4096].lstrip("\ufeff")),
        token_estimate=(len(data) - lead) // 4,
        line=0,
        anchor=None,
    )
    return ParsedDocument(title=None, sections=(section,), body_start=lead)


def split_at_headings(
    data: bytes,
    headings: Sequence[HeadingSpec],
    *,
    repo: str,
    doc_path: str,
    title: str | None = None,
    declared_title: str | None = None,
) -> ParsedDocument:
    """Split a document at section starts found by another parser (reStructuredText, MDX).

    The same slug, id, hash and tiling rules as :func:`split_markdown` apply; only the
    heading lines come from the caller. Line numbers use the same line-end rule
    (``\\r\\n``, ``\\r`` or ``\\n``) on the original bytes.

    Args:
        data: the stored bytes (the user's file).
        headings: section starts in document order; a first spec of level 0 is a preamble.
            Specs pointing past the end of the file are ignored.
        repo, doc_path: as for :func:`split_markdown`.
        title: the document title, if the caller knows it (may be a heading's text).
        declared_title: the title the source declares outside its headings (MDX front
            matter); names the preamble, else the file name does.

    Returns:
        A :class:`ParsedDocument` whose sections' own ranges tile ``[body_start, len(data))``.

    Raises:
        ConvertError: the bytes are not valid UTF-8.
    """
    lead = len(BOM) if data.startswith(BOM) else 0
    _check_utf8(data, doc_path, 0)
    line_starts = _line_starts(data, lead)
    preamble: RawHeading | None = None
    found: list[RawHeading] = []
    for spec in headings:
        if not 0 <= spec.line < len(line_starts) or line_starts[spec.line] >= len(data):
            continue
        heading = RawHeading(spec.line, spec.level, spec.title, spec.summary or None, line_starts[spec.line])
        if spec.level == 0:
            if preamble is None and not found:
                preamble = heading
            continue
        if found and heading.start <= found[-1].start:
            continue  # keep starts strictly increasing so ranges tile
        found.append(heading)
    if preamble is not None and found and preamble.start >= found[0].start:
        preamble = None
    body_start = preamble.start if preamble else (found[0].start if found else len(data))
    sections = _build(found, preamble, _MD, {}, end=len(data), data=data, repo=repo,
                      doc_path=doc_path, doc_title=title, fm_lines=0)
    anchors = {spec.line: spec.anchor for spec in headings if spec.anchor}
    sections = [replace(s, anchor=anchors.get(s.line, s.anchor)) if s.level else s for s in sections]
    title = title or declared_title or next((s.title for s in sections if s.level == 1), None)
    if sections and sections[0].level == 0:  # as in split_markdown: never the next heading's text
        sections[0] = replace(sections[0], title=declared_title or PurePosixPath(doc_path).name)
    return ParsedDocument(title=title, sections=tuple(sections), body_start=body_start)


def _build(
    headings: list[RawHeading],
    preamble: RawHeading | None,
    md: MarkdownIt,
    env: dict[str, Any],
    *,
    end: int,
    data: bytes,
    repo: str,
    doc_path: str,
    doc_title: str | None,
    fm_lines: int,
    front: dict[str, Any] | None = None,
) -> list[Section]:
    sections: list[Section] = []
    if preamble is not None:
        stop = headings[0].start if headings else end
        sections.append(
            _section(
                data, repo, doc_path, title="", level=0, parent_id=None, slug=PREAMBLE_SLUG,
                slug_path=PREAMBLE_SLUG, start=preamble.start, stop=stop, subtree_end=stop,
                summary=preamble.summary, line=fm_lines + preamble.line, anchor=None,
            )
        )
    # subtree ends: the start of the next heading of the same or a lower level
    subtree_ends = [end] * len(headings)
    open_: list[int] = []  # indices of headings whose subtree is still open
    for i, heading in enumerate(headings):
        while open_ and headings[open_[-1]].level >= heading.level:
            subtree_ends[open_.pop()] = heading.start
        open_.append(i)

    slugger = Slugger()
    stack: list[tuple[int, str, str]] = []  # (level, slug_path, id) of open ancestors
    for i, heading in enumerate(headings):
        source, explicit = split_explicit_id(heading.source)
        raw = heading_title(md, source[:TITLE_SOURCE_CHARS], env, front=front)
        title = collapse(raw)
        base = explicit or slugify(raw.strip()) or f"section-{i + 1}"
        slug = slugger.unique(base)
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parent_path, parent_id = (stack[-1][1] + "/", stack[-1][2]) if stack else ("", None)
        slug_path = parent_path + slug
        stop = headings[i + 1].start if i + 1 < len(headings) else end
        section = _section(
            data, repo, doc_path, title=title, level=heading.level, parent_id=parent_id,
            slug=slug, slug_path=slug_path, start=heading.start, stop=stop,
            subtree_end=subtree_ends[i], summary=heading.summary,
            line=fm_lines + heading.line, anchor=explicit or slug,
        )
        sections.append(section)
        stack.append((heading.level, slug_path, section.id))
    return sections


def _section(
    data: bytes, repo: str, doc_path: str, *, title: str, level: int, parent_id: str | None,
    slug: str, slug_path: str, start: int, stop: int, subtree_end: int, summary: str | None,
    line: int, anchor: str | None,
) -> Section:
    return Section(
        id=section_id(repo, doc_path, slug_path, level),
        repo=repo,
        doc_path=doc_path,
        title=title,
        level=level,
        parent_id=parent_id,
        slug=slug,
        byte_start=start,
        byte_end=stop,
        subtree_end=subtree_end,
        content_hash=hashlib.sha256(data[start:stop]).hexdigest(),
        summary=summary or "",
        token_estimate=(stop - start) // 4,
        line=line,
        anchor=anchor,
    )


def _front_title(front: dict[str, Any]) -> str | None:
    title = front.get("title")
    if title is None or isinstance(title, dict | list):
        return None
    text = collapse(str(title))
    return text or None


def _line_starts(data: bytes, start: int) -> list[int]:
    """Byte offsets of the lines of ``data`` from ``start`` on (``start`` first): after every
    ``\r\n``, ``\r`` or ``\n`` — the line ends ``bytes.splitlines`` splits at."""
    starts = list(accumulate(map(len, data[start:].splitlines(keepends=True)), initial=start))
    if len(data) > start and data[-1] not in b"\r\n":
        starts.pop()  # the last line has no line end: no line starts after it
    return starts


def _check_utf8(chunk: bytes, doc_path: str, offset: int) -> str:
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConvertError(
            f"{doc_path}: not valid UTF-8 at byte {offset + exc.start} ({exc.reason})",
            path=doc_path,
        ) from exc
