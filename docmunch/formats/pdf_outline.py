"""PDF document outline (bookmarks, PDF 32000-1:2008 §12.3.3) → heading entries, and matching
them to text lines.

The outline is a linked tree (``First``/``Next``); broken files link back into it. The walk
keeps a set of visited bookmark handles, stops descending past :data:`MAX_DEPTH` levels and
stops altogether after :data:`MAX_ENTRIES` entries, so a circular or huge outline ends.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from rapidfuzz import fuzz

from docmunch.formats.pdf_layout import Line

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "OutlineEntry", "match_entry", "read_outline", "text_key"]

MAX_DEPTH = 16
MAX_ENTRIES = 5000
_MIN_SCORE = 80.0
_BELOW_DEST = 120.0
"""A heading's top lies at most this many points below its destination's y (PDF points)."""


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One bookmark."""

    level: int
    """Depth in the outline, 0 = top level."""
    title: str
    page: int | None
    """0-based page index of the destination, ``None`` when it has none."""
    y: float | None
    """Destination top (PDF points, origin bottom-left), ``None`` when not given."""


def read_outline(pdf: pdfium.PdfDocument) -> list[OutlineEntry]:
    """All bookmarks in document order, guarded against cycles, depth and size."""
    out: list[OutlineEntry] = []
    seen: set[int] = set()
    # (bookmark pointer, level), pre-order via a stack; pypdfium2.raw's ctypes pointers are untyped
    stack: list[tuple[Any, int]] = []
    first = pdfium_c.FPDFBookmark_GetFirstChild(pdf, None)
    if first:
        stack.append((first, 0))
    while stack and len(out) < MAX_ENTRIES:
        ptr, level = stack.pop()
        address = ctypes.addressof(ptr.contents)
        if address in seen:
            continue
        seen.add(address)
        out.append(_entry(pdf, ptr, level))
        sibling = pdfium_c.FPDFBookmark_GetNextSibling(pdf, ptr)
        if sibling:
            stack.append((sibling, level))
        child = pdfium_c.FPDFBookmark_GetFirstChild(pdf, ptr)
        if child and level + 1 < MAX_DEPTH:
            stack.append((child, level + 1))
    return out


def _entry(pdf: pdfium.PdfDocument, ptr: object, level: int) -> OutlineEntry:
    size = pdfium_c.FPDFBookmark_GetTitle(ptr, None, 0)
    buf = ctypes.create_string_buffer(size)
    pdfium_c.FPDFBookmark_GetTitle(ptr, buf, size)
    title = buf.raw[: max(size - 2, 0)].decode("utf-16-le", "replace").strip()
    dest = pdfium_c.FPDFBookmark_GetDest(pdf, ptr)
    if not dest:
        action = pdfium_c.FPDFBookmark_GetAction(ptr)
        dest = pdfium_c.FPDFAction_GetDest(pdf, action) if action else None
    page: int | None = None
    y: float | None = None
    if dest:
        index = pdfium_c.FPDFDest_GetDestPageIndex(pdf, dest)
        page = index if index >= 0 else None
        has_x, has_y, has_zoom = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        x_val, y_val, zoom = ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
        ok = pdfium_c.FPDFDest_GetLocationInPage(
            dest, has_x, has_y, has_zoom, ctypes.byref(x_val), ctypes.byref(y_val), ctypes.byref(zoom)
        )
        if ok and has_y.value:
            y = float(y_val.value)
    return OutlineEntry(level, " ".join(title.split()), page, y)


def text_key(text: str) -> str:
    """Case-folded letters and digits only: the form in which titles and lines are compared."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _score(title_key: str, line_key: str) -> float:
    if not title_key or not line_key:
        return 0.0
    if title_key == line_key:
        return 100.0
    short, long_ = sorted((title_key, line_key), key=len)
    if len(short) >= 3 and (long_.startswith(short) or long_.endswith(short)):
        return 90.0 if len(short) >= 0.5 * len(long_) else 80.0
    return float(fuzz.ratio(title_key, line_key))


def match_entry(entry: OutlineEntry, lines: Sequence[Line], taken: set[int]) -> tuple[int, int] | None:
    """Find the lines of one page that show ``entry``'s title.

    Args:
        entry: the bookmark.
        lines: the page's lines in reading order.
        taken: indices already used by other headings (not matched again).

    Returns:
        ``(first, end)``: the heading occupies ``lines[first:end]`` (a title may wrap), or
        ``None`` when no line scores at least 80 (rapidfuzz ratio on :func:`text_key` forms,
        exact/prefix/suffix matches preferred) within 120 pt below the destination's y.
    """
    title_key = text_key(entry.title)
    best: tuple[float, float, int] | None = None
    for i, line in enumerate(lines):
        if i in taken:
            continue
        top = line.box[3]
        if entry.y is not None and not (entry.y - _BELOW_DEST <= top <= entry.y + 12):
            continue
        score = _score(title_key, text_key(line.text))
        distance = abs(entry.y - top) if entry.y is not None else float(i)
        if score >= _MIN_SCORE and (best is None or (score, -distance) > (best[0], -best[1])):
            best = (score, distance, i)
    if best is None:
        return None
    first = best[2]
    end = first + 1
    acc = text_key(lines[first].text)
    while end < len(lines) and end not in taken:
        nxt = acc + text_key(lines[end].text)
        if len(nxt) > len(acc) and title_key.startswith(nxt):
            acc, end = nxt, end + 1
        else:
            break
    return first, end
