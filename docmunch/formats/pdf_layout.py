"""PDF page layout: pdfium characters → lines → column-aware reading order → line groups.

Coordinates are PDF user space in points (1/72 inch) as pdfium reports them: origin at the
bottom-left of the page, x to the right, y **up**; a box is ``(x0, y0, x1, y1)`` =
(left, bottom, right, top).

Steps (one page at a time):

1. **Characters** (:func:`page_chars`): pdfium's text page gives each character's code point,
   tight box, font size, weight, name and flags. The effective size is the font size times
   the vertical scale of the character's text matrix (``FPDFText_GetMatrix``; producers such
   as iText draw with ``Tf 1`` and scale by the matrix). Generated characters (pdfium's
   synthetic spaces/line breaks) are kept only as word/line separators. An overprinted copy —
   the same character drawn again within 15 % of its size of an earlier one among the last
   eight, the "fake bold" trick — is dropped. Rotated characters (text matrix skewed by more
   than ~11°: arXiv margin stamps, axis labels) are skipped. Code points are repaired by
   :func:`docmunch.formats.pdf_text.repair_char` (ligatures, symbol-font glyphs, unmapped
   glyphs, line-end hyphen marks); a page whose one-call text leaves out unmapped glyphs is
   read character by character so that text and boxes stay aligned.
2. **Lines** (:func:`page_lines`): consecutive characters whose vertical centres (of the loose,
   font-height box) lie within half a font size form a line; a jump back in x, a pdfium line
   break, or a horizontal gap wider than 1.2 font sizes starts a new line segment (so a row
   that crosses a column gutter becomes two segments; wider than any word space).
3. **Columns** (:mod:`docmunch.formats.pdf_columns`): gutters from an x-coverage histogram;
   columns are read one after the other between full-width lines.
4. **Groups** (:func:`group_lines`): consecutive lines of one column join while font size and
   boldness stay the same, neither line is a bold number before plain text, and the vertical
   gap stays under max(0.8 × font size, 1.3 × the median gap between such lines on the page)
   — the median is the line spacing, since a page has more line breaks than paragraph breaks —
   and the lines overlap horizontally; segments of one row in one column join left to right
   when at most 3 font sizes apart.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docmunch.formats.heading_rules import is_numbered
from docmunch.formats.pdf_text import GlyphReport, repair_char

__all__ = ["Box", "Char", "Group", "Line", "cy", "group_lines", "page_chars", "page_lines", "union"]

_FORCE_BOLD = 1 << 18  # PDF 32000-1:2008 Table 123, font flag bit 19 (ForceBold)
_DUP_WINDOW = 8
_MAX_SKEW = 0.2
_DUP_TOLERANCE = 0.15
_GAP_SPLIT = 1.2
_ROW_JOIN = 3.0
_GROUP_GAP = 0.8

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Char:
    """One visible character (or a separator space) on a page."""

    text: str
    box: Box
    """Tight box in PDF points, origin bottom-left (``x0, y0, x1, y1``)."""
    size: float
    """Effective font size in points."""
    bold: bool
    space: bool
    """A (real or generated) space: separates words, contributes no box."""
    mid_y: float = 0.0
    """Vertical centre of the *loose* box (font ascent to descent), for row grouping."""
    mcid: int = -1
    """Marked-content id of the character's text object (tagged PDF), ``-1`` if none."""
    newline: bool = False
    """pdfium's generated line break."""


@dataclass(frozen=True, slots=True)
class Line:
    """A line segment: characters on one baseline without a wide gap."""

    text: str
    box: Box
    size: float
    """Most common effective font size of its characters, points (rounded to 0.1)."""
    bold: bool
    """Every non-space character is bold."""
    bold_prefix: bool
    """The first word is bold (e.g. a bold ``2.1`` before CJK text in a font with no bold)."""
    mcids: frozenset[int] = frozenset()
    """Marked-content ids of its characters (tagged PDF)."""
    column: int = -1
    """Column index set by ``pdf_columns.reading_order`` (``-1`` = spans columns)."""


@dataclass(frozen=True, slots=True)
class Group:
    """Consecutive lines read as one paragraph-like unit."""

    lines: tuple[Line, ...]

    @property
    def text(self) -> str:
        return " ".join(line.text for line in self.lines)

    @property
    def box(self) -> Box:
        return union(line.box for line in self.lines)

    @property
    def size(self) -> float:
        return max(self.lines, key=lambda line: len(line.text)).size

    @property
    def bold(self) -> bool:
        return all(line.bold for line in self.lines)


def union(boxes: Iterable[Box]) -> Box:
    """Smallest box containing every box in ``boxes`` (which must not be empty)."""
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    return (min(x0s), min(y0s), max(x1s), max(y1s))


def _char_style(textpage: pdfium.PdfTextPage, i: int, obj: object) -> tuple[float, bool, bool, int, str]:
    """(effective size in points, bold, rotated, MCID, font name) of character ``i`` in text
    object ``obj``."""
    matrix = pdfium_c.FS_MATRIX()
    pdfium_c.FPDFText_GetMatrix(textpage, i, ctypes.byref(matrix))
    rotated = abs(matrix.b) > _MAX_SKEW * abs(matrix.a) or abs(matrix.c) > _MAX_SKEW * abs(matrix.d)
    scale = math.hypot(matrix.c, matrix.d) or 1.0
    size = round(pdfium_c.FPDFText_GetFontSize(textpage, i) * scale, 1)
    weight = pdfium_c.FPDFText_GetFontWeight(textpage, i)
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage, i, buf, len(buf), ctypes.byref(flags))
    name = buf.value.decode("latin-1", "replace").lower()
    bold = weight >= 600 or "bold" in name or "black" in name or bool(flags.value & _FORCE_BOLD)
    mcid = pdfium_c.FPDFPageObj_GetMarkedContentID(obj) if obj else -1
    return size, bold, rotated, mcid, name


def _page_text(textpage: pdfium.PdfTextPage, count: int) -> tuple[list[int], list[bool]]:
    """UTF-16 code units of all characters (one per character index) and which of them pdfium
    could not map to Unicode.

    One ``FPDFText_GetText`` call gives all units; it leaves unmapped glyphs out, so when it
    returns fewer units than characters the page is read character by character
    (``FPDFText_GetUnicode``, ``FPDFText_HasUnicodeMapError``) to keep units and boxes aligned.
    """
    if count <= 0:
        return [], []
    buf = (ctypes.c_ushort * (count + 1))()
    written = pdfium_c.FPDFText_GetText(textpage, 0, count, buf)
    if written == count + 1:
        return list(buf[:count]), [False] * count
    units = [pdfium_c.FPDFText_GetUnicode(textpage, i) for i in range(count)]
    unmapped = [pdfium_c.FPDFText_HasUnicodeMapError(textpage, i) == 1 for i in range(count)]
    return units, unmapped


def _near(a: Box, b: Box, tolerance: float) -> bool:
    return (
        abs(a[0] - b[0]) <= tolerance
        and abs(a[1] - b[1]) <= tolerance
        and abs(a[2] - b[2]) <= tolerance
        and abs(a[3] - b[3]) <= tolerance
    )


def page_chars(textpage: pdfium.PdfTextPage, report: GlyphReport | None = None) -> list[Char]:
    """All characters of a text page in pdfium order, de-duplicated and repaired (see module
    docstring and :mod:`docmunch.formats.pdf_text`; repairs are counted in ``report``).

    Font size, weight and matrix are read once per text object (pdfium page object), since all
    characters of one object share them.
    """
    out: list[Char] = []
    report = report if report is not None else GlyphReport()
    count = textpage.count_chars()
    units, unmapped = _page_text(textpage, count)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    loose = pdfium_c.FS_RECTF()
    styles: dict[int, tuple[float, bool, bool, int, str]] = {}
    recent: list[Char] = []
    high = 0
    for i, code in enumerate(units):
        if 0xD800 <= code < 0xDC00:  # UTF-16 high surrogate: pdfium splits non-BMP characters
            high = code
            continue
        if 0xDC00 <= code < 0xE000:
            code = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00) if high else 0
        high = 0
        if code == 0x0A:
            out.append(Char(" ", (0, 0, 0, 0), 0.0, False, True, newline=True))
            continue
        if code in (0x0D, 0x09):
            continue  # pdfium's CR before its LF; tabs (spacing comes from the boxes)
        if not unmapped[i] and code >= 0x20 and chr(code).isspace():
            out.append(Char(" ", (0, 0, 0, 0), 0.0, False, True))
            continue
        obj = pdfium_c.FPDFText_GetTextObject(textpage, i)
        key = ctypes.cast(obj, ctypes.c_void_p).value or -i
        style = styles.get(key)
        if style is None:
            style = styles[key] = _char_style(textpage, i, obj)
        size, bold, rotated, mcid, font = style
        if rotated:
            continue  # rotated text: margin stamps, axis labels (not read; see module docstring)
        text = repair_char(code, font, report, unmapped=unmapped[i])
        if not text:
            continue
        pdfium_c.FPDFText_GetCharBox(textpage, i, left, right, bottom, top)
        box = (left.value, bottom.value, right.value, top.value)
        pdfium_c.FPDFText_GetLooseCharBox(textpage, i, loose)
        char = Char(text, box, size, bold, False, (loose.top + loose.bottom) / 2, mcid)
        tolerance = _DUP_TOLERANCE * max(size, 1.0)
        if any(c.text == text and _near(c.box, box, tolerance) for c in recent):
            continue
        recent.append(char)
        if len(recent) > _DUP_WINDOW:
            del recent[0]
        out.append(char)
    return out


def page_lines(chars: list[Char]) -> list[Line]:
    """Group characters into line segments (see module docstring, step 2)."""
    lines: list[Line] = []
    current: list[Char] = []
    pending_space = False

    def flush() -> None:
        nonlocal current
        if current:
            lines.append(_make_line(current))
        current = []

    for ch in chars:
        if ch.space:
            if ch.newline:
                flush()
                pending_space = False
            else:
                pending_space = bool(current)
            continue
        if current:
            last = current[-1]
            size = max(last.size, ch.size, 1.0)
            same_row = abs(last.mid_y - ch.mid_y) <= 0.5 * size
            gap = ch.box[0] - last.box[2]
            if not same_row or ch.box[0] < last.box[0] - 0.5 * size or gap > _GAP_SPLIT * size:
                flush()
                pending_space = False
            elif gap > 0.3 * size and not (_wide(last.text) or _wide(ch.text)):
                pending_space = True
        if pending_space and current:
            current.append(Char(" ", ch.box, ch.size, ch.bold, True, ch.mid_y))
        pending_space = False
        current.append(ch)
    flush()
    return [line for line in lines if line.text]


def _wide(text: str) -> bool:
    """East Asian wide/fullwidth character (UAX #11): no spaces between such characters."""
    return unicodedata.east_asian_width(text[0]) in ("W", "F")


def cy(box: Box) -> float:
    """Vertical centre of a box (points)."""
    return (box[1] + box[3]) / 2


def _make_line(chars: list[Char]) -> Line:
    visible = [c for c in chars if not c.space]
    text = "".join(c.text for c in chars).strip()
    sizes: dict[float, int] = {}
    for c in visible:
        sizes[c.size] = sizes.get(c.size, 0) + 1
    first_word: list[Char] = []
    for c in chars:
        if c.space and first_word:
            break
        if not c.space:
            first_word.append(c)
    return Line(
        text=text,
        box=union(c.box for c in visible),
        size=max(sizes, key=lambda s: sizes[s]),
        bold=all(c.bold for c in visible),
        bold_prefix=bool(first_word) and all(c.bold for c in first_word),
        mcids=frozenset(c.mcid for c in visible if c.mcid >= 0),
    )


def _same_row(prev: Line, line: Line) -> bool:
    """``line`` continues ``prev``'s row to the right (a segment split at a wide gap)."""
    gap = line.box[0] - prev.box[2]
    return abs(cy(prev.box) - cy(line.box)) <= 0.5 * line.size and 0 <= gap <= _ROW_JOIN * line.size


def _below(prev: Line, line: Line, line_gap: float) -> bool:
    """``line`` is the next line under ``prev``, overlapping it horizontally."""
    gap = prev.box[1] - line.box[3]
    return (
        -0.3 * line.size <= gap <= max(_GROUP_GAP * line.size, line_gap)
        and line.box[0] < prev.box[2]
        and line.box[2] > prev.box[0]
    )


def _numbered_label(line: Line) -> bool:
    """A bold number before non-bold text (``2.1.1 计划编制`` in a CJK font without bold)."""
    return line.bold_prefix and not line.bold and is_numbered(line.text)


def group_lines(lines: list[Line], *, starts: frozenset[int] = frozenset()) -> list[Group]:
    """Join consecutive lines into groups (step 4); a group always begins at each of ``starts``."""
    gaps = sorted(
        a.box[1] - b.box[3]
        for a, b in itertools.pairwise(lines)
        if a.column == b.column and abs(a.size - b.size) < 0.6 and 0 <= a.box[1] - b.box[3] < 3 * b.size
    )
    line_gap = 1.3 * gaps[len(gaps) // 2] if gaps else 0.0
    groups: list[list[Line]] = []
    for i, line in enumerate(lines):
        prev = groups[-1][-1] if groups else None
        joins = (
            prev is not None
            and i not in starts
            and prev.column == line.column
            and abs(prev.size - line.size) < 0.6
            and prev.bold == line.bold
            and not _numbered_label(prev)
            and not _numbered_label(line)
            and (_same_row(prev, line) or _below(prev, line, line_gap))
        )
        if joins:
            groups[-1].append(line)
        else:
            groups.append([line])
    return [Group(tuple(g)) for g in groups]
