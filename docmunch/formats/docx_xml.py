"""WordprocessingML reading for the DOCX renderer: styles, numbering, paragraph text.

The body is walked with lxml instead of python-docx's paragraph list, which skips block-level
content controls (``w:sdt``, ECMA-376 Part 1 §17.5.2) and loses tracked insertions.

Visible text of a paragraph (what Word displays with "All Markup" off and changes accepted):

* ``w:t`` text, ``w:tab`` → space, ``w:br``/``w:cr`` → space, ``w:noBreakHyphen`` → ``-``,
  ``w:softHyphen`` → nothing (§17.3.3).
* Inserted runs (``w:ins``, ``w:moveTo``, §17.13.5) are kept; deleted runs (``w:del``,
  ``w:moveFrom``) and ``w:delText`` are dropped.
* Field instructions (``w:instrText``, ``w:delInstrText``) are dropped; field results kept.
* Drawings/VML (``w:drawing``, ``w:pict``, ``w:object``) contribute no text to the paragraph
  that anchors them; their text boxes (``w:txbxContent``) become paragraphs of their own,
  read once from ``mc:Choice`` — the ``mc:Fallback`` copy (Markup Compatibility, ECMA-376
  Part 3 §10.2) repeats the same paragraphs and is skipped everywhere.
* Footnote/endnote references (``w:footnoteReference``/``w:endnoteReference``, §17.11) become
  Markdown footnote markers in the Markdown but are not part of the visible text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

__all__ = [
    "MC",
    "W14",
    "Fragment",
    "StyleInfo",
    "Styles",
    "W",
    "paragraph_fragments",
    "parse_numbering",
    "parse_styles",
    "qn",
]

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
NS = {"w": W, "w14": W14, "mc": MC}


def qn(tag: str) -> str:
    """``"w:p"`` → Clark notation ``"{namespace}p"``."""
    prefix, local = tag.split(":", 1)
    return f"{{{NS[prefix]}}}{local}"


_P, _R, _T = qn("w:p"), qn("w:r"), qn("w:t")
_VAL = qn("w:val")
_SKIP_SUBTREE = frozenset(
    qn(t)
    for t in (
        "w:del", "w:moveFrom", "w:delText", "w:instrText", "w:delInstrText", "w:drawing",
        "w:pict", "w:object", "w:rPr", "w:pPr", "mc:Fallback", "w:fldData",
    )
)
_SPACE_TAGS = frozenset(qn(t) for t in ("w:tab", "w:br", "w:cr", "w:ptab"))
_NOTE_REFS = {qn("w:footnoteReference"): "footnote", qn("w:endnoteReference"): "endnote"}


@dataclass(frozen=True, slots=True)
class Fragment:
    """A piece of a paragraph's text with its effective run formatting."""

    text: str
    """Visible characters (empty for a note reference)."""
    size_pt: float | None
    """Effective font size in points (``None`` when unknown)."""
    bold: bool
    """Effective bold."""
    note: tuple[str, str] | None = None
    """``("footnote" | "endnote", id)`` for a note reference, else ``None``."""


@dataclass(frozen=True, slots=True)
class StyleInfo:
    """One ``w:style`` (§17.7.4.17) with its own (not inherited) properties."""

    style_id: str
    name: str
    based_on: str | None
    outline_level: int | None
    """``w:outlineLvl`` 0–8 from the style's ``w:pPr`` (§17.3.1.20); 9 means body text."""
    size_pt: float | None
    bold: bool | None
    centred: bool | None
    num_id: str | None


@dataclass(slots=True)
class Styles:
    """The styles part, resolved along ``w:basedOn`` chains (§17.7.4.3)."""

    by_id: dict[str, StyleInfo] = field(default_factory=dict)
    default_paragraph: str | None = None
    default_size_pt: float = 10.0
    """docDefaults ``w:sz`` (§17.7.5.2); 10 pt when absent (Word's built-in default)."""
    default_bold: bool = False

    def chain(self, style_id: str | None) -> list[StyleInfo]:
        """The style and its ancestors, nearest first (cycles and depth > 32 are cut)."""
        out: list[StyleInfo] = []
        seen: set[str] = set()
        current = style_id if style_id is not None else self.default_paragraph
        while current and current not in seen and len(out) < 32:
            seen.add(current)
            info = self.by_id.get(current)
            if info is None:
                break
            out.append(info)
            current = info.based_on
        return out

    def resolve(self, style_id: str | None, attr: str) -> object:
        """First non-``None`` value of ``attr`` along the chain, else ``None``."""
        for info in self.chain(style_id):
            value = getattr(info, attr)
            if value is not None:
                return value
        return None


def _on_off(element: etree._Element | None) -> bool | None:
    """ST_OnOff (§17.17.4): present without ``w:val`` or with true/1/on → True."""
    if element is None:
        return None
    return element.get(_VAL, "true").lower() not in ("false", "0", "off")


def _size(rpr: etree._Element | None) -> float | None:
    if rpr is None:
        return None
    sz = rpr.find(qn("w:sz"))
    if sz is None:
        return None
    try:
        return int(sz.get(_VAL, "")) / 2.0  # half-points, §17.3.2.38
    except ValueError:
        return None


def parse_styles(root: etree._Element | None) -> Styles:
    """Read ``word/styles.xml`` (root ``w:styles``) into :class:`Styles`."""
    styles = Styles()
    if root is None:
        return styles
    rpr_default = root.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}")
    styles.default_size_pt = _size(rpr_default) or 10.0
    if rpr_default is not None:
        styles.default_bold = bool(_on_off(rpr_default.find(qn("w:b"))))
    for el in root.iter(qn("w:style")):
        sid = el.get(qn("w:styleId"))
        if not sid:
            continue
        name_el = el.find(qn("w:name"))
        based = el.find(qn("w:basedOn"))
        ppr, rpr = el.find(qn("w:pPr")), el.find(qn("w:rPr"))
        outline = ppr.find(qn("w:outlineLvl")) if ppr is not None else None
        jc = ppr.find(qn("w:jc")) if ppr is not None else None
        num_id = ppr.find(f"{qn('w:numPr')}/{qn('w:numId')}") if ppr is not None else None
        styles.by_id[sid] = StyleInfo(
            style_id=sid,
            name=name_el.get(_VAL, "") if name_el is not None else "",
            based_on=based.get(_VAL) if based is not None else None,
            outline_level=_int(outline.get(_VAL)) if outline is not None else None,
            size_pt=_size(rpr),
            bold=_on_off(rpr.find(qn("w:b"))) if rpr is not None else None,
            centred=(jc.get(_VAL) == "center") if jc is not None else None,
            num_id=num_id.get(_VAL) if num_id is not None else None,
        )
        if el.get(qn("w:type")) == "paragraph" and el.get(qn("w:default")) in ("1", "true", "on"):
            styles.default_paragraph = sid
    return styles


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_numbering(root: etree._Element | None) -> dict[tuple[str, int], str]:
    """``(numId, ilvl)`` → ``w:numFmt`` value (``"bullet"``, ``"decimal"``, …), §17.9."""
    if root is None:
        return {}
    abstract: dict[str, dict[int, str]] = {}
    for an in root.iter(qn("w:abstractNum")):
        levels: dict[int, str] = {}
        for lvl in an.iter(qn("w:lvl")):
            fmt = lvl.find(qn("w:numFmt"))
            ilvl = _int(lvl.get(qn("w:ilvl")))
            if ilvl is not None:
                levels[ilvl] = fmt.get(_VAL, "decimal") if fmt is not None else "decimal"
        abstract[an.get(qn("w:abstractNumId"), "")] = levels
    out: dict[tuple[str, int], str] = {}
    for num in root.iter(qn("w:num")):
        ref = num.find(qn("w:abstractNumId"))
        levels = abstract.get(ref.get(_VAL, "") if ref is not None else "", {})
        for ilvl, level_format in levels.items():
            out[(num.get(qn("w:numId"), ""), ilvl)] = level_format
    return out


def paragraph_fragments(p: etree._Element, styles: Styles, style_id: str | None) -> list[Fragment]:
    """Visible text of one ``w:p`` as formatted fragments, in document order.

    Text inside text boxes anchored in this paragraph is *not* included (the caller emits those
    paragraphs separately). Sizes/bold resolve run ``w:rPr`` → character style chain →
    paragraph style chain → docDefaults (§17.7.2 style hierarchy).
    """
    para_size = styles.resolve(style_id, "size_pt")
    para_bold = styles.resolve(style_id, "bold")
    base_size = para_size if isinstance(para_size, float) else styles.default_size_pt
    base_bold = para_bold if isinstance(para_bold, bool) else styles.default_bold
    out: list[Fragment] = []

    def run_format(run: etree._Element) -> tuple[float, bool]:
        rpr = run.find(qn("w:rPr"))
        size, bold = base_size, base_bold
        if rpr is not None:
            rstyle = rpr.find(qn("w:rStyle"))
            if rstyle is not None:
                rs_size = styles.resolve(rstyle.get(_VAL), "size_pt")
                rs_bold = styles.resolve(rstyle.get(_VAL), "bold")
                size = rs_size if isinstance(rs_size, float) else size
                bold = rs_bold if isinstance(rs_bold, bool) else bold
            own_size, own_bold = _size(rpr), _on_off(rpr.find(qn("w:b")))
            size = own_size if own_size is not None else size
            bold = own_bold if own_bold is not None else bold
        return size, bold

    def visit(el: etree._Element) -> None:
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP_SUBTREE or tag == _P:
                continue
            if tag == _R:
                size, bold = run_format(child)
                for item in child:
                    itag = item.tag
                    if itag == _T:
                        out.append(Fragment(item.text or "", size, bold))
                    elif itag in _SPACE_TAGS:
                        out.append(Fragment(" ", size, bold))
                    elif itag == qn("w:noBreakHyphen"):
                        out.append(Fragment("-", size, bold))
                    elif itag in _NOTE_REFS:
                        note_id = item.get(qn("w:id"), "")
                        out.append(Fragment("", size, bold, (_NOTE_REFS[itag], note_id)))
                    elif itag == qn("mc:AlternateContent"):
                        continue  # drawings only; text boxes are emitted separately
            else:
                visit(child)  # w:ins, w:hyperlink, w:sdt/w:sdtContent, w:smartTag, w:fldSimple …

    visit(p)
    return out
