"""PDF → Markdown rendition with one block per line group, located by page and box (pypdfium2).

Coordinates: PDF user space in points (1/72 inch) as pdfium reports them — origin at the
**bottom-left** of the page (before any ``/Rotate``), x to the right, y **up**. A ``bbox`` is
``[x0, y0, x1, y1]`` = [left, bottom, right, top], the union of the tight boxes of the block's
characters, rounded to 0.01 pt.

Block positions: ``({"type": "bbox", "page": 1-based, "page_label": label or None,
"bbox": [x0, y0, x1, y1]},)``; page furniture blocks (zero-length, kind ``"furniture"``) add
``"role"``.

Steps: characters → lines → columns → groups (:mod:`docmunch.formats.pdf_layout`,
:mod:`docmunch.formats.pdf_columns`), text repairs (:mod:`docmunch.formats.pdf_text`:
ligatures, symbol-font glyphs, unmapped glyphs, line-end hyphens), page furniture taken out
(:mod:`docmunch.formats.pdf_furniture`), headings from the outline, tags or type
(:mod:`docmunch.formats.pdf_headings`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from docmunch.errors import ConvertError, NoTextLayer, PasswordRequired
from docmunch.formats import isolate
from docmunch.formats.base import Rendition
from docmunch.formats.markdown_writer import MarkdownWriter, escape_inline, escape_line_start, normalize_ws
from docmunch.formats.pdf_columns import reading_order
from docmunch.formats.pdf_furniture import find_furniture
from docmunch.formats.pdf_headings import PdfPage, apply_outline, apply_tags, infer_headings
from docmunch.formats.pdf_layout import Group, group_lines, page_chars, page_lines
from docmunch.formats.pdf_limits import PDF_MAX_MEMORY_BYTES, PDF_MAX_SECONDS, PageBudget
from docmunch.formats.pdf_outline import read_outline
from docmunch.formats.pdf_tags import heading_mcids
from docmunch.formats.pdf_text import Dehyphenator, GlyphReport
from docmunch.formats.titles import title_property

__all__ = ["render_pdf", "render_pdf_in_process"]


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
        ``headings``, ``heading_source`` (``"outline"``/``"tags"``/``"inferred"``/``"none"``),
        ``furniture_lines`` (lines taken out as page furniture) and ``glyphs`` (the text
        repairs made, see :class:`~docmunch.formats.pdf_text.GlyphReport`).

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
            what = "encrypted PDF" if password is None else "wrong password for encrypted PDF"
            raise PasswordRequired(f"{what}; {PasswordRequired.HINT}", path=source) from None
        raise ConvertError(f"not a readable PDF: {exc}", path=source) from None
    try:
        return _render(pdf, source)
    finally:
        pdf.close()


def _render(pdf: pdfium.PdfDocument, source: str, *, use_outline: bool = True) -> Rendition:
    """Render an open document (``use_outline=False`` ignores bookmarks, for tests of the
    tagged-structure and typographic rules on files that also carry an outline)."""
    pages: list[PdfPage] = []
    report = GlyphReport()
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
            lines = reading_order(page_lines(page_chars(textpage, report)))
            tags = heading_mcids(page)
            box = tuple(page.get_mediabox())
        finally:
            textpage.close()
            page.close()
        label = pdf.get_page_label(index) or None
        pages.append(PdfPage(index, label, lines, box, tags))
    if not any(page.lines for page in pages):
        raise NoTextLayer("no text layer (scanned); OCR is not supported", path=source)
    furniture = find_furniture([page.lines for page in pages], [page.box for page in pages])
    for page, found in zip(pages, furniture, strict=True):
        gone = {f.index for f in found}
        page.furniture = [(page.lines[f.index], f.role) for f in found]
        page.lines = [line for i, line in enumerate(page.lines) if i not in gone]

    outline = read_outline(pdf) if use_outline else []
    matched = apply_outline(outline, pages)
    tagged = 0 if matched >= 2 else apply_tags(pages)
    for page in pages:
        page.groups = _groups(page)
    inferred = 0 if matched + tagged >= 2 else infer_headings(pages)
    dehyphenate = Dehyphenator(line.text for page in pages for line in page.lines)
    writer = MarkdownWriter()
    title: str | None = None
    headings = 0
    for page in pages:
        for line, role in page.furniture:
            writer.aside("furniture", text=normalize_ws(line.text), positions=(
                {**_position(page, line.box), "role": role},
            ))
        line_index = 0
        for group, level in page.groups or []:
            for syn_level, syn_title in page.synthetic.pop(line_index, []):
                writer.unit("#" * syn_level + " " + escape_inline(syn_title))
                title = title or syn_title
                headings += 1
            line_index += len(group.lines)
            text = dehyphenate(normalize_ws(group.text))
            md = escape_inline(text)
            if level is not None:
                md = "#" * level + " " + (md[:-1] + "\\#" if md.endswith("#") else md)
                title = title or text
                headings += 1
                kind = "heading"
            else:
                md = escape_line_start(md)
                kind = "lines"
            writer.unit(md, kind=kind, text=text, positions=(_position(page, group.box),))
        for leftovers in page.synthetic.values():
            for syn_level, syn_title in leftovers:
                writer.unit("#" * syn_level + " " + escape_inline(syn_title))
                headings += 1
    metadata = pdf.get_metadata_dict(skip_empty=True)
    declared = title_property(metadata.get("Title"))
    return Rendition(
        markdown=writer.getvalue(),
        source_kind="pdf",
        title=declared or title,
        declared_title=declared,
        blocks=tuple(writer.blocks),
        source_ref=source,
        meta={
            "pages": len(pages),
            "outline_entries": len(outline),
            "headings": headings,
            "heading_source": _source(matched, tagged, inferred),
            "furniture_lines": sum(len(page.furniture) for page in pages),
            "glyphs": report.as_meta(),
        },
    )


def _position(page: PdfPage, box: tuple[float, float, float, float]) -> dict[str, Any]:
    return {"type": "bbox", "page": page.index + 1, "page_label": page.label,
            "bbox": [round(v, 2) for v in box]}


def _source(matched: int, tagged: int, inferred: int) -> str:
    if matched >= 2:
        return "outline"
    if matched + tagged >= 2:
        return "tags"
    return "inferred" if inferred else "none"


def _groups(page: PdfPage) -> list[tuple[Group, int | None]]:
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
