"""DOCX → Markdown rendition with one block per paragraph, list item, table row and footnote.

python-docx opens the package (parts, relationships, styles, numbering); the body XML is
walked here with lxml (see :mod:`docmunch.formats.docx_xml` for the text rules and
:mod:`docmunch.formats.docx_headings` for heading detection).

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

import io
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from docmunch.errors import ConvertError
from docmunch.formats.base import Rendition
from docmunch.formats.docx_headings import ParaFacts, assign_levels
from docmunch.formats.docx_xml import (
    NS,
    XML_PARSER,
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

MAX_EXPANDED_BYTES = 256 * 1024 * 1024
"""Refuse packages whose parts expand beyond this many bytes (zip bombs)."""
_DOC_PART = "word/document.xml"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CONTAINERS = frozenset(qn(t) for t in ("w:customXml", "w:ins", "w:moveTo", "w:smartTag", "w:sdtContent"))
_VAL = qn("w:val")
_PARAID = f"{{{NS['w14']}}}paraId"
_XP_PARAGRAPHS = etree.XPath(".//w:p[not(ancestor::mc:Fallback)]", namespaces=NS)
_XP_TEXT_BOXES = etree.XPath(".//w:txbxContent[not(ancestor::mc:Fallback)]", namespaces=NS)


@dataclass(frozen=True, slots=True)
class _Para:
    element: etree._Element
    fragments: tuple[Fragment, ...]
    facts: ParaFacts
    list_marker: str | None
    """``"- "``/``"1. "`` with indentation for numbered paragraphs, else ``None``."""


def render_docx(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render a ``.docx`` file's bytes as a Markdown :class:`Rendition` with blocks.

    Args:
        path: the file's path (recorded, made absolute, as ``source_ref``).
        data: the file's bytes.
        password: ignored (encrypted DOCX files are refused).

    Returns:
        A rendition with ``source_kind="docx"``; ``meta`` holds ``paragraphs`` (``w:p`` count,
        mc:Fallback excluded), ``headings``, ``heading_source`` (``"styles"``/``"inferred"``/
        ``"none"``), ``tables`` and ``paraid_coverage`` (``"all"``/``"mixed"``/``"none"``).

    Raises:
        ConvertError: not a DOCX package, an encrypted/legacy (OLE) Word file, or a package that
            expands beyond :data:`MAX_EXPANDED_BYTES`.
    """
    source = str(path.resolve())
    if data.startswith(_OLE_MAGIC):
        raise ConvertError(
            "encrypted or legacy Word file (OLE container); save it as an unencrypted .docx", path=source
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            expanded = sum(info.file_size for info in package.infolist())
        if expanded > MAX_EXPANDED_BYTES:
            raise ConvertError(
                f"DOCX expands to {expanded} bytes, over the {MAX_EXPANDED_BYTES}-byte limit", path=source
            )
        import docx  # python-docx

        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        raise ConvertError(f"not a valid DOCX file: {exc}", path=source) from None
    except ConvertError:
        raise
    except Exception as exc:  # python-docx raises its own PackageNotFoundError etc.
        raise ConvertError(f"not a valid DOCX file: {type(exc).__name__}: {exc}", path=source) from None
    renderer = _DocxRenderer(document)
    return renderer.render(source, core_title=document.core_properties.title or None)


class _DocxRenderer:
    def __init__(self, document: Any) -> None:
        self.body: etree._Element = document.element.body
        self.styles: Styles = parse_styles(document.styles.element)
        self.numbering = parse_numbering(_related_xml(document.part, "numbering"))
        self.notes = {
            "footnote": _related_xml(document.part, "footnotes"),
            "endnote": _related_xml(document.part, "endnotes"),
        }
        paragraphs = _XP_PARAGRAPHS(self.body)
        self.all_paragraphs: list[etree._Element] = list(paragraphs)
        self.ordinal = {p: i for i, p in enumerate(self.all_paragraphs)}
        self.writer = MarkdownWriter()
        self.note_order: list[tuple[str, str]] = []

    # -- walking ---------------------------------------------------------------------------

    def _items(self, container: etree._Element) -> Iterator[etree._Element]:
        """Block-level ``w:p`` and ``w:tbl`` in reading order (content controls, text boxes)."""
        for child in container:
            tag = child.tag
            if tag == qn("w:p"):
                yield child
                for box in _text_boxes(child):
                    yield from self._items(box)
            elif tag == qn("w:tbl"):
                yield child
            elif tag == qn("w:sdt"):
                content = child.find(qn("w:sdtContent"))
                if content is not None:
                    yield from self._items(content)
            elif tag in _CONTAINERS:
                yield from self._items(child)
            elif tag == qn("mc:AlternateContent"):
                choice = child.find(qn("mc:Choice"))
                if choice is not None:
                    yield from self._items(choice)

    def _para(self, p: etree._Element, *, in_table: bool) -> _Para:
        ppr = p.find(qn("w:pPr"))
        style_id = _child_val(ppr, "w:pStyle")
        info = self.styles.by_id.get(style_id or self.styles.default_paragraph or "")
        fragments = tuple(paragraph_fragments(p, self.styles, style_id))
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
            in_table=in_table,
        )
        return _Para(p, fragments, facts, self._list_marker(ppr, style_id))

    def _list_marker(self, ppr: etree._Element | None, style_id: str | None) -> str | None:
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        num_id = _child_val(num_pr, "w:numId")
        if num_id is None:
            inherited = self.styles.resolve(style_id, "num_id")
            num_id = inherited if isinstance(inherited, str) else None
        if num_id is None or num_id == "0":  # numId 0 = "no numbering", §17.9.18
            return None
        ilvl_text = _child_val(num_pr, "w:ilvl")
        ilvl = int(ilvl_text) if ilvl_text and ilvl_text.isdigit() else 0
        fmt = self.numbering.get((num_id, ilvl), "bullet")
        return ("   " * ilvl + "1. ") if fmt not in ("bullet", "none") else ("  " * ilvl + "- ")

    # -- emitting --------------------------------------------------------------------------

    def render(self, source: str, *, core_title: str | None) -> Rendition:
        items = list(self._items(self.body))
        paras = {id(el): self._para(el, in_table=False) for el in items if el.tag == qn("w:p")}
        ordered = [paras[id(el)] for el in items if el.tag == qn("w:p")]
        levels = assign_levels([p.facts for p in ordered])
        level_of = {id(p.element): lvl for p, lvl in zip(ordered, levels, strict=True)}
        strong = sum(1 for p, lvl in zip(ordered, levels, strict=True) if lvl is not None and _is_styled(p))
        title: str | None = None
        previous_kind = ""
        tables = 0
        for el in items:
            if el.tag == qn("w:tbl"):
                tables += 1
                self._table(el)
                previous_kind = "table_row"
                continue
            para = paras[id(el)]
            if not para.facts.text and not any(f.note for f in para.fragments):
                continue
            level = level_of[id(el)]
            md = self._inline_md(para.fragments)
            if level is not None:
                kind = "heading"
                md = "#" * level + " " + (md[:-1] + "\\#" if md.endswith("#") else md)
                title = title or para.facts.text
            elif para.list_marker is not None:
                kind = "list_item"
                md = para.list_marker + md
            else:
                kind = "paragraph"
                md = escape_line_start(md)
            self.writer.unit(
                md,
                kind=kind,
                text=para.facts.text,
                positions=self._positions(_DOC_PART, [el], self.ordinal, [para.facts.text]),
                tight=kind == "list_item" and previous_kind == "list_item",
            )
            previous_kind = kind
        self._notes()
        coverage = _coverage(self.all_paragraphs)
        return Rendition(
            markdown=self.writer.getvalue(),
            source_kind="docx",
            title=title or core_title,
            blocks=tuple(self.writer.blocks),
            source_ref=source,
            meta={
                "paragraphs": len(self.all_paragraphs),
                "headings": sum(lvl is not None for lvl in levels),
                "heading_source": "none" if not any(levels) else ("styles" if strong >= 2 else "inferred"),
                "tables": tables,
                "paraid_coverage": coverage,
            },
        )

    def _inline_md(self, fragments: tuple[Fragment, ...]) -> str:
        pieces: list[str] = []
        for f in fragments:
            if f.note is not None:
                label = f.note[1] if f.note[0] == "footnote" else "e" + f.note[1]
                if f.note not in self.note_order:
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

    def _table(self, tbl: etree._Element) -> None:
        rows = [tr for tr in tbl.iter(qn("w:tr")) if _nearest(tr, qn("w:tbl")) is tbl]
        grid: list[tuple[etree._Element, list[str], list[etree._Element], list[str]]] = []
        for tr in rows:
            cells: list[str] = []
            for tc in (c for c in tr.iter(qn("w:tc")) if _nearest(c, qn("w:tr")) is tr):
                tcpr = tc.find(qn("w:tcPr"))
                span_text = _child_val(tcpr, "w:gridSpan")
                span = int(span_text) if span_text and span_text.isdigit() else 1
                vmerge = tcpr.find(qn("w:vMerge")) if tcpr is not None else None
                continued = vmerge is not None and vmerge.get(_VAL, "continue") == "continue"
                texts = [self._para(p, in_table=True).facts.text for p in _paragraphs(tc)]
                cell = "" if continued else normalize_ws(" ".join(texts))
                cells.extend([escape_inline(cell, table_cell=True)] + [""] * (span - 1))
            ps = _paragraphs(tr)
            grid.append((tr, cells, ps, [self._para(p, in_table=True).facts.text for p in ps]))
        width = max((len(cells) for _, cells, _, _ in grid), default=0)
        if width == 0:
            return
        for i, (_tr, cells, ps, texts) in enumerate(grid):
            padded = cells + [""] * (width - len(cells))
            line = "| " + " | ".join(padded) + " |"
            positions = self._positions(_DOC_PART, ps, self.ordinal, texts) if ps else ()
            self.writer.unit(
                line, kind="table_row", text=normalize_ws(" ".join(texts)), positions=positions, tight=i > 0
            )
            if i == 0:
                self.writer.unit("|" + " --- |" * width, tight=True)

    def _notes(self) -> None:
        for kind, note_id in self.note_order:
            root = self.notes[kind]
            if root is None:
                continue
            part = f"word/{kind}s.xml"
            part_ps = _XP_PARAGRAPHS(root)
            ordinal = {p: i for i, p in enumerate(part_ps)}
            for note in root.iter(qn(f"w:{kind}")):
                if note.get(qn("w:id")) != note_id:
                    continue
                ps = _paragraphs(note)
                texts = [
                    normalize_ws("".join(f.text for f in paragraph_fragments(p, self.styles, None)))
                    for p in ps
                ]
                if not ps:
                    continue
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


def _paragraphs(el: etree._Element) -> list[etree._Element]:
    return list(_XP_PARAGRAPHS(el))


def _text_boxes(p: etree._Element) -> list[etree._Element]:
    """Outermost ``w:txbxContent`` anchored in ``p`` (mc:Fallback copies excluded)."""
    boxes = _XP_TEXT_BOXES(p)
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


def _related_xml(part: Any, reltype_suffix: str) -> etree._Element | None:
    """Parse the part related to ``part`` whose relationship type ends with ``/suffix``."""
    for rel in part.rels.values():
        if rel.is_external or not rel.reltype.endswith("/" + reltype_suffix):
            continue
        try:
            return etree.fromstring(rel.target_part.blob, XML_PARSER)
        except etree.XMLSyntaxError:
            return None
    return None


def _coverage(paragraphs: list[etree._Element]) -> str:
    with_id = sum(1 for p in paragraphs if p.get(_PARAID))
    if paragraphs and with_id == len(paragraphs):
        return "all"
    return "mixed" if with_id else "none"
