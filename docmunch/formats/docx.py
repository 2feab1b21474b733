"""DOCX → Markdown rendition with one block per paragraph, list item, table row and footnote.

:mod:`docmunch.formats.docx_package` opens the package with bounded memory (zip guard,
relationships, the body streamed one top-level block at a time); :mod:`docmunch.formats.docx_body`
walks each block with lxml and reduces it to small records before the next is read (see
:mod:`docmunch.formats.docx_xml` for the text rules); this module then gives the paragraphs
their heading levels (:mod:`docmunch.formats.docx_headings`) and writes the Markdown, the
blocks and the footnote definitions. Numbers read from the XML that size an output
(``w:gridSpan``, ``w:ilvl``) are clamped there to what Word itself allows, so an attribute
cannot expand the Markdown.

Block positions (both always present, in this order):

* ``{"type": "paraid", "part": "word/document.xml", "anchor": ordinal, "range": [first, last],
  "ordinals": [first_ordinal, last_ordinal]}`` — ``ordinal`` is the 0-based index of the
  block's first paragraph among the part's ``w:p`` elements in document order, excluding
  ``mc:Fallback`` copies (XPath ``//w:p[not(ancestor::mc:Fallback)]``); ``range`` holds the
  ``w14:paraId`` (hex string, MS-DOCX §2.6.1.3) of the first and last paragraph, ``null`` where
  a paragraph has none (LibreOffice, WPS, python-docx and Word before 2010 omit them).
  Footnote/endnote blocks name ``word/footnotes.xml``/``word/endnotes.xml`` as their part.
* ``{"type": "text_fingerprint", "anchor": 16 hex}`` — the first 16 hex digits of SHA-256 over
  the UTF-8 visible text of the block's paragraphs joined by one space, whitespace-normalised
  (every whitespace run → one space, trimmed), without automatic numbering or note markers.

Markdown: ATX headings (levels 1–6), paragraphs, ``-``/``1.`` list items for numbered
paragraphs, GFM tables (first row as header; merged cells padded), footnotes as ``[^N]`` with
``[^N]: text`` definitions at the end (endnotes as ``[^eN]``). Headers and footers are skipped.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from docmunch.errors import ConvertError
from docmunch.formats.base import Rendition
from docmunch.formats.docx_body import BodyReader, Para, Table, block_positions, paragraphs_under
from docmunch.formats.docx_headings import assign_levels
from docmunch.formats.docx_package import DocxPackage
from docmunch.formats.docx_xml import Styles, paragraph_fragments, parse_numbering, parse_styles, qn
from docmunch.formats.markdown_writer import MarkdownWriter, escape_inline, escape_line_start, normalize_ws

__all__ = ["render_docx"]

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def render_docx(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render a ``.docx`` file's bytes as a Markdown :class:`Rendition` with blocks.

    The package is read with bounded memory (:mod:`docmunch.formats.docx_package`): the body
    is streamed one top-level block at a time and every part is parsed within the limits
    named there.

    Args:
        path: the file's path (recorded, made absolute, as ``source_ref``).
        data: the file's bytes.
        password: ignored (encrypted DOCX files are refused).

    Returns:
        A rendition with ``source_kind="docx"``; ``meta`` holds ``paragraphs`` (``w:p`` count,
        mc:Fallback excluded), ``headings``, ``heading_source`` (``"styles"``/``"inferred"``/
        ``"none"``), ``tables`` and ``paraid_coverage`` (``"all"``/``"mixed"``/``"none"``).

    Raises:
        ConvertError: not a DOCX package, or an encrypted/legacy (OLE) Word file.
        LimitExceeded: the package is over one of the DOCX limits (a zip or XML bomb).
    """
    source = str(path.resolve())
    if data.startswith(_OLE_MAGIC):
        raise ConvertError(
            "encrypted or legacy Word file (OLE container); save it as an unencrypted .docx", path=source
        )
    package = DocxPackage(data, source)
    try:
        renderer = _DocxRenderer(package)
        return renderer.render(source, core_title=package.core_title())
    finally:
        package.close()


class _DocxRenderer:
    def __init__(self, package: DocxPackage) -> None:
        self.package = package
        self.styles: Styles = parse_styles(package.related_tree("styles"))
        numbering = parse_numbering(package.related_tree("numbering"))
        self.notes = {
            "footnote": package.related_tree("footnotes"),
            "endnote": package.related_tree("endnotes"),
        }
        self.writer = MarkdownWriter()
        self.body = BodyReader(self.styles, numbering)

    def render(self, source: str, *, core_title: str | None) -> Rendition:
        # Pass 1 (streamed): each top-level block is reduced to records, then dropped.
        records = self.body.read(self.package)
        # Pass 2: heading levels need every paragraph's facts, then the Markdown is written.
        ordered = [r for r in records if isinstance(r, Para)]
        levels = assign_levels([p.facts for p in ordered])
        level_of = iter(levels)
        strong = sum(1 for p, lvl in zip(ordered, levels, strict=True) if lvl is not None and _is_styled(p))
        title: str | None = None
        previous_kind = ""
        tables = 0
        for record in records:
            if isinstance(record, Table):
                tables += 1
                self._write_table(record)
                previous_kind = "table_row"
                continue
            level = next(level_of)
            if record.md is None:
                continue
            md = record.md
            if level is not None:
                kind = "heading"
                md = "#" * level + " " + (md[:-1] + "\\#" if md.endswith("#") else md)
                title = title or record.facts.text
            elif record.list_marker is not None:
                kind = "list_item"
                md = record.list_marker + md
            else:
                kind = "paragraph"
                md = escape_line_start(md)
            self.writer.unit(
                md,
                kind=kind,
                text=record.facts.text,
                positions=record.positions,
                tight=kind == "list_item" and previous_kind == "list_item",
            )
            previous_kind = kind
        self._notes()
        return Rendition(
            markdown=self.writer.getvalue(),
            source_kind="docx",
            title=title or core_title,
            declared_title=core_title,
            blocks=tuple(self.writer.blocks),
            source_ref=source,
            meta={
                "paragraphs": self.body.paragraphs,
                "headings": sum(lvl is not None for lvl in levels),
                "heading_source": "none" if not any(levels) else ("styles" if strong >= 2 else "inferred"),
                "tables": tables,
                "paraid_coverage": _coverage(self.body.paragraphs, self.body.with_paraid),
            },
        )

    def _write_table(self, table: Table) -> None:
        for i, (line, text, positions) in enumerate(table.rows):
            self.writer.unit(line, kind="table_row", text=text, positions=positions, tight=i > 0)
            if i == 0:
                self.writer.unit("|" + " --- |" * table.width, tight=True)

    def _notes(self) -> None:
        indexed: dict[str, tuple[dict[str, etree._Element], dict[etree._Element, int]]] = {}
        for kind, note_id in self.body.note_order:
            root = self.notes[kind]
            if root is None:
                continue
            if kind not in indexed:  # one pass over the part, not one per reference
                by_id: dict[str, etree._Element] = {}
                for entry in root.iter(qn(f"w:{kind}")):
                    by_id.setdefault(entry.get(qn("w:id"), ""), entry)
                indexed[kind] = (by_id, {p: i for i, p in enumerate(paragraphs_under(root))})
            by_id, ordinal = indexed[kind]
            note = by_id.get(note_id)
            if note is None:
                continue
            part = f"word/{kind}s.xml"
            ps = paragraphs_under(note)
            if not ps:
                continue
            texts = [
                normalize_ws("".join(f.text for f in paragraph_fragments(p, self.styles, None))) for p in ps
            ]
            label = note_id if kind == "footnote" else "e" + note_id
            body = escape_inline(normalize_ws(" ".join(texts)))
            self.writer.unit(
                f"[^{label}]: {body}",
                kind="footnote",
                text=normalize_ws(" ".join(texts)),
                positions=block_positions(part, ps, ordinal, texts),
            )


def _is_styled(p: Para) -> bool:
    f = p.facts
    return f.para_outline is not None or f.style_outline is not None or "head" in f.style_name.lower()


def _coverage(paragraphs: int, with_id: int) -> str:
    if paragraphs and with_id == paragraphs:
        return "all"
    return "mixed" if with_id else "none"
