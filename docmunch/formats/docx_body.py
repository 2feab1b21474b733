"""Reading the body of a DOCX into records: block-level paragraphs and tables with their positions.

:class:`BodyReader` takes the top-level blocks :mod:`docmunch.formats.docx_package` streams
and walks each with lxml: the ``w:p`` and ``w:tbl`` it holds in reading order (inside content
controls, tracked insertions, text boxes and the ``mc:Choice`` of alternate content), every
paragraph numbered among the part's ``w:p`` (``mc:Fallback`` copies excluded). Each paragraph
becomes a :class:`Para` (its heading facts for :mod:`docmunch.formats.docx_headings`, list
marker, inline Markdown with footnote markers, positions), each table a :class:`Table` (one
GFM line per row, merged cells padded), before the next block is read; the renderer
(:mod:`docmunch.formats.docx`) writes them. Positions (:func:`block_positions`) are the
``paraid`` and ``text_fingerprint`` locators described in :mod:`docmunch.formats.docx`.

Numbers read from the XML that size an output (``w:gridSpan``, ``w:ilvl``) are clamped to
what Word itself allows (:data:`_MAX_SPAN`, :data:`_MAX_ILVL`), so an attribute cannot expand
the Markdown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from docmunch.formats.docx_headings import ParaFacts
from docmunch.formats.docx_package import DocxPackage
from docmunch.formats.docx_xml import NS, Fragment, Styles, paragraph_fragments, qn
from docmunch.formats.locators import fingerprint
from docmunch.formats.markdown_writer import escape_inline, normalize_ws

__all__ = ["BodyReader", "Para", "Table", "block_positions", "paragraphs_under"]

_DOC_PART = "word/document.xml"
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
class Para:
    """A body paragraph reduced to what rendering needs (its element is gone by then)."""

    facts: ParaFacts
    list_marker: str | None
    """``"- "``/``"1. "`` with indentation for numbered paragraphs, else ``None``."""
    md: str | None
    """Inline Markdown; ``None`` for a paragraph with neither text nor a note (not emitted)."""
    positions: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Table:
    """A top-level table's rows: (Markdown line, plain text, positions)."""

    rows: tuple[tuple[str, str, tuple[dict[str, Any], ...]], ...]
    width: int


class BodyReader:
    """Pass 1 of the rendering: a package's body as :class:`Para` and :class:`Table` records.

    ``note_order`` lists the ``(kind, id)`` of the footnotes and endnotes in order of first
    reference; ``paragraphs`` and ``with_paraid`` count the main part's ``w:p`` read so far
    (mc:Fallback copies excluded) and those with a ``w14:paraId``.
    """

    def __init__(self, styles: Styles, numbering: dict[tuple[str, int], str]) -> None:
        self.styles = styles
        self.numbering = numbering
        self.note_order: list[tuple[str, str]] = []
        self._noted: set[tuple[str, str]] = set()
        self.paragraphs = 0
        """``w:p`` of the main part seen so far (mc:Fallback copies excluded)."""
        self.with_paraid = 0

    def read(self, package: DocxPackage) -> list[Para | Table]:
        """The records of ``package``'s body in reading order (streamed: each top-level block is
        reduced to records, then dropped)."""
        records: list[Para | Table] = []
        for block in package.body_blocks():
            ordinal = self._number(block)
            for el in self._item(block):
                records.append(self._table(el, ordinal) if el.tag == _W_TBL else self._para(el, ordinal))
        return records

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

    def _para(self, p: etree._Element, ordinal: dict[etree._Element, int]) -> Para:
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
            return Para(facts, None, None, ())
        md = self._inline_md(fragments)
        positions = block_positions(_DOC_PART, [p], ordinal, [text])
        return Para(facts, self._list_marker(ppr, style_id), md, positions)

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

    def _table(self, tbl: etree._Element, ordinal: dict[etree._Element, int]) -> Table:
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
                texts = [self._text(p) for p in paragraphs_under(tc)]
                cell = "" if continued else normalize_ws(" ".join(texts))
                cells.extend([escape_inline(cell, table_cell=True)] + [""] * (min(span, _MAX_SPAN) - 1))
            ps = paragraphs_under(tr)
            grid.append((cells, ps, [self._text(p) for p in ps]))
        width = max((len(cells) for cells, _, _ in grid), default=0)
        out: list[tuple[str, str, tuple[dict[str, Any], ...]]] = []
        for cells, ps, texts in grid if width else ():
            padded = cells + [""] * (width - len(cells))
            positions = block_positions(_DOC_PART, ps, ordinal, texts) if ps else ()
            out.append(("| " + " | ".join(padded) + " |", normalize_ws(" ".join(texts)), positions))
        return Table(tuple(out), width)


def block_positions(
    part: str, ps: list[etree._Element], ordinal: dict[etree._Element, int], texts: list[str]
) -> tuple[dict[str, Any], ...]:
    """The ``paraid`` and ``text_fingerprint`` positions of a block made of the paragraphs
    ``ps`` (``ordinal``: their 0-based numbers in ``part``; ``texts``: their visible text)."""
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


def _elements(xpath: etree.XPath, el: etree._Element) -> list[etree._Element]:
    """The elements an element-selecting XPath finds under ``el``, in document order."""
    found = xpath(el)
    return [e for e in found if isinstance(e, etree._Element)] if isinstance(found, list) else []


def paragraphs_under(el: etree._Element) -> list[etree._Element]:
    """The ``w:p`` under ``el`` in document order, ``mc:Fallback`` copies excluded."""
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
