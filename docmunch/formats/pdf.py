"""PDF → Markdown rendition with one block per line group, located by page and box (pypdfium2).

Coordinates: PDF user space in points (1/72 inch) as pdfium reports them — origin at the
**bottom-left** of the page (before any ``/Rotate``), x to the right, y **up**. A ``bbox`` is
``[x0, y0, x1, y1]`` = [left, bottom, right, top], the union of the tight boxes of the block's
characters, rounded to 0.01 pt.

Block positions: ``({"type": "bbox", "page": 1-based, "page_label": label or None,
"bbox": [x0, y0, x1, y1]},)``.

Layout (characters → lines → groups) lives in :mod:`docmunch.formats.pdf_layout`, columns
in :mod:`docmunch.formats.pdf_columns`;
outline reading and matching in :mod:`docmunch.formats.pdf_outline`. Headings, strongest
evidence first:

1. The outline (bookmarks): each entry is matched to the line(s) showing its title near its
   destination; level = outline depth + 1 (capped at 6). An entry whose title is not found on
   its page becomes a heading line of its own (with no block) at the destination.
2. When fewer than two outline entries matched, tagged structure: lines whose characters all
   belong to ``H1``–``H6``/``H``/``Title`` structure elements (:mod:`docmunch.formats.pdf_tags`);
   consecutive lines of one heading form one heading.
3. When outline and tags give fewer than two headings, headings are inferred from type: a group
   of at most two lines whose font is ≥ 1 pt larger than the body size (most common size by
   characters) — weight 2; bold (or a bold number before text in a font without bold) — 1;
   a numbering pattern — 1; weight ≥ 2 including size or bold qualifies; vetoes and level
   ranking as for DOCX (:mod:`docmunch.formats.docx_headings`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from docmunch.errors import ConvertError, NoTextLayer, PasswordRequired
from docmunch.formats import isolate
from docmunch.formats.base import Rendition
from docmunch.formats.heading_rules import MAX_CHAR_SHARE, MAX_PARA_SHARE, is_numbered, vetoed_text
from docmunch.formats.markdown_writer import MarkdownWriter, escape_inline, escape_line_start, normalize_ws
from docmunch.formats.pdf_columns import reading_order
from docmunch.formats.pdf_layout import Group, Line, group_lines, page_chars, page_lines
from docmunch.formats.pdf_limits import PDF_MAX_MEMORY_BYTES, PDF_MAX_SECONDS, PageBudget
from docmunch.formats.pdf_outline import match_entry, read_outline
from docmunch.formats.pdf_tags import heading_mcids

__all__ = ["render_pdf", "render_pdf_in_process"]

_MAX_GROUP_LINES = 2
_LARGER_BY = 1.0


@dataclass(slots=True)
class _Page:
    index: int
    label: str | None
    lines: list[Line]
    heading_spans: dict[int, tuple[int, int]]
    """first line index → (end index, level)."""
    synthetic: dict[int, list[tuple[int, str]]]
    """line index → headings to emit before it: (level, title)."""
    tags: dict[int, int]
    """Tagged-PDF MCID → heading level."""
    groups: list[tuple[Group, int | None]] | None = None
    """Line groups with their heading level (``None`` = body)."""


def render_pdf(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render a PDF's bytes as a Markdown :class:`Rendition` with bbox blocks.

    The work runs in the memory-capped worker process of :mod:`docmunch.formats.isolate`
    (pdfium's own allocations cannot be bounded from inside); :func:`render_pdf_in_process`
    is the same rendering in this process.

    Args:
        path: the file's path (recorded, made absolute, as ``source_ref``).
        data: the file's bytes.
        password: user or owner password of an encrypted PDF.

    Returns:
        A rendition with ``source_kind="pdf"``; ``meta`` holds ``pages``, ``outline_entries``,
        ``headings`` and ``heading_source`` (``"outline"``/``"inferred"``/``"none"``).

    Raises:
        PasswordRequired: the PDF is encrypted and no password or a wrong one was given.
        NoTextLayer: no page has any text (a scan); OCR is not supported.
        ConvertError: the bytes are not a readable PDF.
        LimitExceeded: over a limit of :mod:`docmunch.formats.pdf_limits` (pages, page
            objects, characters, the worker's memory and time).
    """
    return isolate.call(
        "docmunch.formats.pdf:render_pdf_in_process",
        {"path": str(path.resolve()), "data": data, "password": password},
        memory=PDF_MAX_MEMORY_BYTES,
        seconds=PDF_MAX_SECONDS,
        what="PDF",
        path=str(path.resolve()),
    )


def render_pdf_in_process(path: Path | str, data: bytes, *, password: str | None = None) -> Rendition:
    """:func:`render_pdf` without the worker process (what the worker itself runs)."""
    path = Path(path)
    source = str(path.resolve())
    try:
        pdf = pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            if password is None:
                raise PasswordRequired("encrypted PDF; pass --password", path=source) from None
            raise PasswordRequired("wrong password for encrypted PDF (--password)", path=source) from None
        raise ConvertError(f"not a readable PDF: {exc}", path=source) from None
    try:
        return _render(pdf, source)
    finally:
        pdf.close()


def _render(pdf: pdfium.PdfDocument, source: str, *, use_outline: bool = True) -> Rendition:
    """Render an open document (``use_outline=False`` ignores bookmarks, for tests of the
    tagged-structure and typographic rules on files that also carry an outline)."""
    pages: list[_Page] = []
    budget = PageBudget(len(pdf), source)  # issue 12: bounded pages, objects, characters
    for index in range(len(pdf)):
        page = pdf[index]
        try:
            budget.check_page(page, index)
        except BaseException:
            page.close()
            raise
        textpage = page.get_textpage()
        try:
            budget.check_text(textpage, index)
            lines = reading_order(page_lines(page_chars(textpage)))
            tags = heading_mcids(page)
        finally:
            textpage.close()
            page.close()
        label = pdf.get_page_label(index) or None
        pages.append(_Page(index, label, lines, {}, {}, tags))
    if not any(page.lines for page in pages):
        raise NoTextLayer("no text layer (scanned); OCR is not supported", path=source)

    outline = read_outline(pdf) if use_outline else []
    matched = _apply_outline(outline, pages)
    tagged = 0 if matched >= 2 else _apply_tags(pages)
    for page in pages:
        page.groups = _groups(page)
    inferred = 0 if matched + tagged >= 2 else _infer_headings(pages)
    writer = MarkdownWriter()
    title: str | None = None
    headings = 0
    for page in pages:
        line_index = 0
        for group, level in page.groups or []:
            for syn_level, syn_title in page.synthetic.pop(line_index, []):
                writer.unit("#" * syn_level + " " + escape_inline(syn_title))
                title = title or syn_title
                headings += 1
            line_index += len(group.lines)
            text = normalize_ws(group.text)
            position = {
                "type": "bbox",
                "page": page.index + 1,
                "page_label": page.label,
                "bbox": [round(v, 2) for v in group.box],
            }
            md = escape_inline(text)
            if level is not None:
                md = "#" * level + " " + (md[:-1] + "\\#" if md.endswith("#") else md)
                title = title or text
                headings += 1
                kind = "heading"
            else:
                md = escape_line_start(md)
                kind = "lines"
            writer.unit(md, kind=kind, text=text, positions=(position,))
        for leftovers in page.synthetic.values():
            for syn_level, syn_title in leftovers:
                writer.unit("#" * syn_level + " " + escape_inline(syn_title))
                headings += 1
    metadata = pdf.get_metadata_dict(skip_empty=True)
    return Rendition(
        markdown=writer.getvalue(),
        source_kind="pdf",
        title=_metadata_title(metadata.get("Title")) or title,
        blocks=tuple(writer.blocks),
        source_ref=source,
        meta={
            "pages": len(pages),
            "outline_entries": len(outline),
            "headings": headings,
            "heading_source": _source(matched, tagged, inferred),
        },
    )


def _source(matched: int, tagged: int, inferred: int) -> str:
    if matched >= 2:
        return "outline"
    if matched + tagged >= 2:
        return "tags"
    return "inferred" if inferred else "none"


def _metadata_title(value: str | None) -> str | None:
    """The Info dictionary's /Title unless it is a placeholder (``untitled``, a file name,
    Word's ``Microsoft Word - name.doc``)."""
    title = " ".join((value or "").split())
    lowered = title.lower()
    if not title or lowered in ("untitled", "title", "no title") or lowered.startswith("microsoft word - "):
        return None
    if lowered.endswith((".doc", ".docx", ".pdf", ".tex", ".dvi", ".indd")):
        return None
    return title


def _apply_outline(outline: list[Any], pages: list[_Page]) -> int:
    """Mark outline titles on their pages; returns how many entries matched text."""
    matched = 0
    taken: dict[int, set[int]] = {p.index: set() for p in pages}
    for entry in outline:
        level = min(entry.level + 1, 6)
        candidates = [pages[entry.page]] if entry.page is not None and entry.page < len(pages) else pages
        for page in candidates:
            span = match_entry(entry, page.lines, taken[page.index])
            if span is None:
                continue
            first, end = span
            page.heading_spans[first] = (end, level)
            taken[page.index].update(range(first, end))
            matched += 1
            break
        else:
            if entry.page is not None and entry.page < len(pages) and entry.title:
                page = pages[entry.page]
                at = _line_at_y(page.lines, entry.y)
                page.synthetic.setdefault(at, []).append((level, entry.title))
    return matched


def _apply_tags(pages: list[_Page]) -> int:
    """Mark lines whose characters all belong to tagged headings; returns how many headings."""
    found = 0
    for page in pages:
        i = 0
        while i < len(page.lines):
            level = _tag_level(page, i)
            if level is None or any(i in range(f, e) for f, (e, _) in page.heading_spans.items()):
                i += 1
                continue
            end = i + 1
            while end < len(page.lines) and end not in page.heading_spans and _tag_level(page, end) == level:
                end += 1
            page.heading_spans[i] = (end, level)
            found += 1
            i = end
    return found


def _tag_level(page: _Page, i: int) -> int | None:
    mcids = page.lines[i].mcids
    if not mcids or not page.tags or any(m not in page.tags for m in mcids):
        return None
    return min(page.tags[m] for m in mcids)


def _line_at_y(lines: list[Line], y: float | None) -> int:
    if y is None:
        return 0
    for i, line in enumerate(lines):
        if line.box[3] <= y + 1:
            return i
    return len(lines)


def _groups(page: _Page) -> list[tuple[Group, int | None]]:
    out: list[tuple[Group, int | None]] = []
    run_start = 0
    i = 0
    lines = page.lines

    def body(start: int, end: int) -> list[tuple[Group, int | None]]:
        starts = frozenset(k - start for k in page.synthetic if start <= k < end)
        return [(g, None) for g in group_lines(lines[start:end], starts=starts)]

    while i < len(lines):
        if i in page.heading_spans:
            out.extend(body(run_start, i))
            end, level = page.heading_spans[i]
            out.append((Group(tuple(lines[i:end])), level))
            i = run_start = end
        else:
            i += 1
    out.extend(body(run_start, len(lines)))
    return out


def _infer_headings(pages: list[_Page]) -> int:
    """Assign levels to type-distinguished groups (module docstring, rule 2); returns count."""
    sizes: Counter[float] = Counter()
    all_groups = [
        (page, i, g) for page in pages for i, (g, lvl) in enumerate(page.groups or []) if lvl is None
    ]
    for _page, _i, group in all_groups:
        for line in group.lines:
            sizes[line.size] += len(line.text)
    if not sizes:
        return 0
    body = sizes.most_common(1)[0][0]
    candidates: dict[tuple[int, int], tuple[float, bool]] = {}
    for page, i, group in all_groups:
        text = normalize_ws(group.text)
        if len(group.lines) > _MAX_GROUP_LINES or vetoed_text(text):
            continue
        numbered = is_numbered(text)
        larger = group.size >= body + _LARGER_BY
        bold = group.bold or (numbered and group.lines[0].bold_prefix)
        weight = 2 * larger + bold + numbered
        if weight >= 2 and (larger or bold):
            candidates[(page.index, i)] = (round(group.size * 2) / 2, bold)
    total_chars = sum(len(g.text) for _p, _i, g in all_groups) or 1
    cand_chars = sum(len(pages[p].groups[i][0].text) for p, i in candidates)  # type: ignore[index]
    if len(candidates) > MAX_PARA_SHARE * len(all_groups) or cand_chars > MAX_CHAR_SHARE * total_chars:
        return 0
    looks = sorted(set(candidates.values()), key=lambda look: (-look[0], not look[1]))
    rank = {look: min(n + 1, 6) for n, look in enumerate(looks)}
    for (p, i), look in candidates.items():
        groups = pages[p].groups
        assert groups is not None
        groups[i] = (groups[i][0], rank[look])
    return len(candidates)
