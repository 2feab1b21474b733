"""DOCX → Markdown rendition with one block per paragraph, list item, table row and footnote.

:mod:`docmunch.formats.docx_package` opens the package with bounded memory (zip guard,
relationships, the body streamed one top-level block at a time); each block is walked here
with lxml and reduced to small records before the next is read (see
:mod:`docmunch.formats.docx_xml` for the text rules and :mod:`docmunch.formats.docx_headings`
for heading detection). Numbers read from the XML that size an output (``w:gridSpan``,
``w:ilvl``) are clamped to what Word itself allows, so an attribute cannot expand the
Markdown.

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

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from docmunch.errors import ConvertError
from docmunch.formats.base import Rendition
from docmunch.formats.docx_headings import ParaFacts, assign_levels
from docmunch.formats.docx_package import DocxPackage
from docmunch.formats.docx_xml import (
    NS,
    Fragment,
    Styles,
    paragraph_fragments,
    parse_numbering,
    parse_styles,
    qn,
)
from docmunch.formats.locators import fingerprint
from docmunch.formats.markdown_writer import MarkdownWriter, escape_inline, escape_line_start, normalize_ws

__all__ = ["render_docx"]

_DOC_PART = "word/document.xml"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CONTAINERS = frozenset(qn(t) for t in ("w:customXml", "w:ins", "w:moveTo", "w:smartTag", "w:sdtContent"))
_VAL = qn("w:val")
_PARAID = f"{{{NS['w14']}}}paraId"
_XP_PARAGRAPHS = etree.XPath(".//w:p[not(ancestor::mc:Fallback)]", namespaces=NS)
_XP_OWN_PARAGRAPHS = etree.XPath("descendant-or-self::w:p[not(ancestor::mc:Fallback)]", namespaces=NS)
_XP_TEXT_BOXES = etree.XPath(".//w:txbxContent[not(ancestor::mc:Fallback)]", namespaces=NS)
_W_P, _W_TBL, _W_SDT = qn("w:p"), qn("w:tbl"), qn("w:sdt")
_MAX_SPAN = 63
"""Widest ``w:gridSpan`` honoured: Word tables have at most 63 columns."""
_MAX_ILVL = 8
"""Deepest list level ``w:ilvl`` honoured: 0–8 (ECMA-376 Part 1 §17.9.3)."""


@dataclass(frozen=True, slots=True)
class _Para:
    """A body paragraph reduced to what rendering needs (its element is gone by then)."""

    facts: ParaFacts
    list_marker: str | None
    """``"- "``/``"1. "`` with indentation for numbered paragraphs, else ``None``."""
    md: str | None
    """Inline Markdown; ``None`` for a paragraph with neither text nor a note (not emitted)."""
    positions: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class _Table:
    """A top-level table's rows: (Markdown line, plain text, positions)."""

    rows: tuple[tuple[str, str, tuple[dict[str, Any], ...]], ...]
    width: int


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
        self.numbering = parse_numbering(package.related_tree("numbering"))
        self.notes = {
            "footnote": package.related_tree("footnotes"),
            "endnote": package.related_tree("endnotes"),
        }
        self.writer = MarkdownWriter()
        self.note_order: list[tuple[str, str]] = []
        self._noted: set[tuple[str, str]] = set()
        self.paragraphs = 0
        """``w:p`` of the main part seen so far (mc:Fallback copies excluded)."""
        self.with_paraid = 0

    # -- walking ---------------------------------------------------------------------------

    def _items(self, container: etree._Element) -> Iterator[etree._Element]:
        """Block-level ``w:p`` and ``w:tbl`` in reading order (content controls, text boxes)."""
        for child in container:
            yield from self._item(child)

    def _item(self, child: etree._Element) -> Iterator[etree._Element]:
        tag = child.tag
        if tag == _W_P:
            yield child
            for box in _text_boxes(child):
                yield from self._items(box)
        elif tag == _W_TBL:
            yield child
        elif tag == _W_SDT:
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from self._items(content)
        elif tag in _CONTAINERS:
            yield from self._items(child)
        elif tag == qn("mc:AlternateContent"):
            choice = child.find(qn("mc:Choice"))
            if choice is not None:
                yield from self._items(choice)

    def _number(self, block: etree._Element) -> dict[etree._Element, int]:
        """Document-wide ordinals of the paragraphs of one top-level block (and count them)."""
        ordinal: dict[etree._Element, int] = {}
        for p in _elements(_XP_OWN_PARAGRAPHS, block):
            ordinal[p] = self.paragraphs
            self.paragraphs += 1
            if p.get(_PARAID):
                self.with_paraid += 1
        return ordinal

    def _para(self, p: etree._Element, ordinal: dict[etree._Element, int]) -> _Para:
        ppr = p.find(qn("w:pPr"))
        style_id = _child_val(ppr, "w:pStyle")
        info = self.styles.by_id.get(style_id or self.styles.default_paragraph or "")
        fragments = paragraph_fragments(p, self.styles, style_id)
        text = normalize_ws("".join(f.text for f in fragments))
        sizes: Counter[float] = Counter()
        for f in fragments:
            if f.size_pt is not None and f.text.strip():
                sizes[f.size_pt] += len(f.text.strip())
        jc = _child_val(ppr, "w:jc")
        centred = jc == "center" if jc is not None else bool(self.styles.resolve(style_id, "centred"))
        outline = _child_val(ppr, "w:outlineLvl")
        style_outline = self.styles.resolve(style_id, "outline_level")
        facts = ParaFacts(
            text=text,
            style_id=style_id,
            style_name=info.name if info else "",
            para_outline=int(outline) if outline is not None and outline.isdigit() else None,
            style_outline=style_outline if isinstance(style_outline, int) else None,
            size_pt=sizes.most_common(1)[0][0] if sizes else None,
            bold=bool(text) and all(f.bold for f in fragments if f.text.strip()),
            centred=centred,
            in_table=False,
        )
        if not text and not any(f.note for f in fragments):
            return _Para(facts, None, None, ())
        md = self._inline_md(fragments)
        positions = self._positions(_DOC_PART, [p], ordinal, [text])
        return _Para(facts, self._list_marker(ppr, style_id), md, positions)

    def _text(self, p: etree._Element) -> str:
        """Visible text of a paragraph (table cells need no more)."""
        ppr = p.find(qn("w:pPr"))
        fragments = paragraph_fragments(p, self.styles, _child_val(ppr, "w:pStyle"))
        return normalize_ws("".join(f.text for f in fragments))

    def _list_marker(self, ppr: etree._Element | None, style_id: str | None) -> str | None:
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        num_id = _child_val(num_pr, "w:numId")
        if num_id is None:
            inherited = self.styles.resolve(style_id, "num_id")
            num_id = inherited if isinstance(inherited, str) else None
        if num_id is None or num_id == "0":  # numId 0 = "no numbering", §17.9.18
            return None
        ilvl_text = _child_val(num_pr, "w:ilvl")
        ilvl = min(int(ilvl_text), _MAX_ILVL) if ilvl_text and ilvl_text.isdigit() else 0
        fmt = self.numbering.get((num_id, ilvl), "bullet")
        return ("   " * ilvl + "1. ") if fmt not in ("bullet", "none") else ("  " * ilvl + "- ")

    # -- emitting --------------------------------------------------------------------------

    def render(self, source: str, *, core_title: str | None) -> Rendition:
        # Pass 1 (streamed): each top-level block is reduced to records, then dropped.
        records: list[_Para | _Table] = []
        for block in self.package.body_blocks():
            ordinal = self._number(block)
            for el in self._item(block):
                records.append(self._table(el, ordinal) if el.tag == _W_TBL else self._para(el, ordinal))
        # Pass 2: heading levels need every paragraph's facts, then the Markdown is written.
        ordered = [r for r in records if isinstance(r, _Para)]
        levels = assign_levels([p.facts for p in ordered])
        level_of = iter(levels)
        strong = sum(1 for p, lvl in zip(ordered, levels, strict=True) if lvl is not None and _is_styled(p))
        title: str | None = None
        previous_kind = ""
        tables = 0
        for record in records:
            if isinstance(record, _Table):
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
            blocks=tuple(self.writer.blocks),
            source_ref=source,
            meta={
                "paragraphs": self.paragraphs,
                "headings": sum(lvl is not None for lvl in levels),
                "heading_source": "none" if not any(levels) else ("styles" if strong >= 2 else "inferred"),
                "tables": tables,
                "paraid_coverage": _coverage(self.paragraphs, self.with_paraid),
            },
        )

    def _inline_md(self, fragments: list[Fragment]) -> str:
        pieces: list[str] = []
        for f in fragments:
            if f.note is not None:
                label = f.note[1] if f.note[0] == "footnote" else "e" + f.note[1]
                if f.note not in self._noted:
                    self._noted.add(f.note)
                    self.note_order.append(f.note)
                pieces.append(f"[^{label}]")
            else:
                pieces.append(escape_inline(f.text))
        return normalize_ws("".join(pieces))

    def _positions(
        self, part: str, ps: list[etree._Element], ordinal: dict[etree._Element, int], texts: list[str]
    ) -> tuple[dict[str, Any], ...]:
        first, last = ordinal[ps[0]], ordinal[ps[-1]]
        return (
            {
                "type": "paraid",
                "part": part,
                "anchor": first,
                "range": [ps[0].get(_PARAID), ps[-1].get(_PARAID)],
                "ordinals": [first, last],
            },
            {"type": "text_fingerprint", "anchor": fingerprint(" ".join(texts))},
        )

    def _table(self, tbl: etree._Element, ordinal: dict[etree._Element, int]) -> _Table:
        rows = [tr for tr in tbl.iter(qn("w:tr")) if _nearest(tr, qn("w:tbl")) is tbl]
        grid: list[tuple[list[str], list[etree._Element], list[str]]] = []
        for tr in rows:
            cells: list[str] = []
            for tc in (c for c in tr.iter(qn("w:tc")) if _nearest(c, qn("w:tr")) is tr):
                tcpr = tc.find(qn("w:tcPr"))
                span_text = _child_val(tcpr, "w:gridSpan")
                span = int(span_text) if span_text and span_text.isdigit() else 1
                vmerge = tcpr.find(qn("w:vMerge")) if tcpr is not None else None
                continued = vmerge is not None and vmerge.get(_VAL, "continue") == "continue"
                texts = [self._text(p) for p in _paragraphs(tc)]
                cell = "" if continued else normalize_ws(" ".join(texts))
                cells.extend([escape_inline(cell, table_cell=True)] + [""] * (min(span, _MAX_SPAN) - 1))
            ps = _paragraphs(tr)
            grid.append((cells, ps, [self._text(p) for p in ps]))
        width = max((len(cells) for cells, _, _ in grid), default=0)
        out: list[tuple[str, str, tuple[dict[str, Any], ...]]] = []
        for cells, ps, texts in grid if width else ():
            padded = cells + [""] * (width - len(cells))
            positions = self._positions(_DOC_PART, ps, ordinal, texts) if ps else ()
            out.append(("| " + " | ".join(padded) + " |", normalize_ws(" ".join(texts)), positions))
        return _Table(tuple(out), width)

    def _write_table(self, table: _Table) -> None:
        for i, (line, text, positions) in enumerate(table.rows):
            self.writer.unit(line, kind="table_row", text=text, positions=positions, tight=i > 0)
            if i == 0:
                self.writer.unit("|" + " --- |" * table.width, tight=True)

    def _notes(self) -> None:
        indexed: dict[str, tuple[dict[str, etree._Element], dict[etree._Element, int]]] = {}
        for kind, note_id in self.note_order:
            root = self.notes[kind]
            if root is None:
                continue
            if kind not in indexed:  # one pass over the part, not one per reference
                by_id: dict[str, etree._Element] = {}
                for entry in root.iter(qn(f"w:{kind}")):
                    by_id.setdefault(entry.get(qn("w:id"), ""), entry)
                indexed[kind] = (by_id, {p: i for i, p in enumerate(_paragraphs(root))})
            by_id, ordinal = indexed[kind]
            note = by_id.get(note_id)
            if note is None:
                continue
            part = f"word/{kind}s.xml"
            ps = _paragraphs(note)
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
                positions=self._positions(part, ps, ordinal, texts),
            )


def _is_styled(p: _Para) -> bool:
    f = p.facts
    return f.para_outline is not None or f.style_outline is not None or "head" in f.style_name.lower()


def _elements(xpath: etree.XPath, el: etree._Element) -> list[etree._Element]:
    """The elements an element-selecting XPath finds under ``el``, in document order."""
    found = xpath(el)
    return [e for e in found if isinstance(e, etree._Element)] if isinstance(found, list) else []


def _paragraphs(el: etree._Element) -> list[etree._Element]:
    return _elements(_XP_PARAGRAPHS, el)


def _text_boxes(p: etree._Element) -> list[etree._Element]:
    """Outermost ``w:txbxContent`` anchored in ``p`` (mc:Fallback copies excluded)."""
    boxes = _elements(_XP_TEXT_BOXES, p)
    return [b for b in boxes if _nearest(b, qn("w:txbxContent")) is None]


def _nearest(el: etree._Element, tag: str) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and parent.tag != tag:
        parent = parent.getparent()
    return parent


def _child_val(parent: etree._Element | None, tag: str) -> str | None:
    if parent is None:
        return None
    child = parent.find(qn(tag))
    return child.get(_VAL) if child is not None else None


def _coverage(paragraphs: int, with_id: int) -> str:
    if paragraphs and with_id == paragraphs:
        return "all"
    return "mixed" if with_id else "none"
