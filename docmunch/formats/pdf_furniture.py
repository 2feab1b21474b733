"""PDF page furniture: running headers and footers, page numbers, watermarks.

Such lines repeat at the same height on most pages; left in the text they land mid-sentence
wherever a paragraph crosses a page ("… portion of the Federal Register / Vol. 85 … proposal").
The rule, on the line segments of :mod:`docmunch.formats.pdf_layout` (coordinates in PDF
points, y up):

* A document needs at least :data:`MIN_PAGES` pages; a line repeats on "most pages" when it is
  found on at least :data:`PAGE_SHARE` of them (and on :data:`MIN_PAGES` at least).
* **Anywhere on the page** (watermarks, stamps): the same text (whitespace-collapsed,
  case-folded) with a vertical centre within :data:`Y_TOLERANCE` points. Outside the margin
  bands the line must also stand alone — no line within one font size above or below it
  overlaps it horizontally, so repeated boilerplate *paragraphs* stay text — and hold at
  least :data:`MIN_BODY_CHARS` characters.
* **In the margin bands** (the top and bottom :data:`MARGIN_SHARE` of the page's media box):
  the same text once every digit run counts as one digit (page numbers ``47698``/``47699``,
  ``Page 3 of 10``, ``PO 00000 Frm 00003``) at that height; then any line of the same band
  (top or bottom) with that text, or containing it when it has words, is furniture too, at any
  height —
  a cover page sets its header a few points higher, pdfium joins two footer fields into one
  segment on one page.
* **A header set out as a masthead** on a page that lacks it (a cover page prints "Federal
  Register", "Vol. 85, No. 152", "Thursday, August 6, 2020" as three lines in a column top):
  in the top half of such a page, a run of at least :data:`MASTHEAD_MIN_FIELDS` consecutive
  lines whose texts are each a different field (split at ``/``, ``|``, ``·``) of a repeated
  top-band header, numbers normalised, is header furniture. A single line equal to one field
  ("Proposed Rules", the page's title) stays text.

Furniture lines leave the rendition's text (so search never sees them) but stay addressable:
each becomes a zero-length ``"furniture"`` block at its page with its box, text and role
(``"header"``, ``"footer"``, ``"page_number"``, ``"watermark"``), listed in the locator of every
section on that page (:func:`docmunch.formats.locators.pdf_locator`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from docmunch.formats.pdf_layout import Box, Line, cy

__all__ = [
    "MARGIN_SHARE", "MIN_BODY_CHARS", "MIN_PAGES", "PAGE_SHARE", "Y_TOLERANCE", "Furniture", "find_furniture",
]

MIN_PAGES = 3
"""Fewer pages than this have no furniture (two pages cannot show a pattern)."""
PAGE_SHARE = 0.5
"""A repeated line must be on at least this share of the pages."""
Y_TOLERANCE = 3.0
"""Largest difference between the vertical centres of one repeated line, in PDF points."""
MARGIN_SHARE = 0.08
"""Height of the top and bottom bands where number-normalised matching applies, as a share of
the page height (8 % of a Letter page = 63 pt, inside the usual one-inch margin)."""
MIN_BODY_CHARS = 8
"""Shortest repeated text taken for furniture outside the margin bands, in characters (a short
table cell such as "Yes" may repeat at one height by chance)."""
MASTHEAD_MIN_FIELDS = 2
"""Fewest consecutive lines, each one field of a repeated header, taken for a masthead."""
_DIGITS = re.compile(r"\d+")
_FIELD_SEPARATORS = re.compile(r"\s+[/|·]\s+")


@dataclass(frozen=True, slots=True)
class Furniture:
    """One furniture line of one page."""

    index: int
    """Index of the line in its page's line list."""
    role: str
    """``"header"``, ``"footer"``, ``"page_number"`` or ``"watermark"``."""


def find_furniture(pages: Sequence[Sequence[Line]], boxes: Sequence[Box]) -> list[list[Furniture]]:
    """Furniture lines of each page (module docstring).

    Args:
        pages: each page's line segments in reading order.
        boxes: each page's media box ``(x0, y0, x1, y1)`` in PDF points.

    Returns:
        Per page, its furniture lines in line order (all empty below :data:`MIN_PAGES` pages).
    """
    found: list[dict[int, str]] = [{} for _ in pages]
    if len(pages) < MIN_PAGES:
        return [[] for _ in pages]
    needed = max(MIN_PAGES, math.ceil(PAGE_SHARE * len(pages)))
    exact: dict[str, list[tuple[int, int, float, bool]]] = defaultdict(list)
    numbered: dict[str, list[tuple[int, int, float]]] = defaultdict(list)
    for p, (lines, box) in enumerate(zip(pages, boxes, strict=True)):
        for i, line in enumerate(lines):
            key = " ".join(line.text.split()).casefold()
            if not any(ch.isalnum() for ch in key):
                continue
            margin = _in_margin(line.box, box)
            if margin or len(key) >= MIN_BODY_CHARS:
                exact[key].append((p, i, cy(line.box), margin))
            if margin:
                numbered[_DIGITS.sub("0", key)].append((p, i, cy(line.box)))
    for members in exact.values():
        if len({m[0] for m in members}) < needed:
            continue
        # the (quadratic) stand-alone test only for texts that repeat often enough
        group = [(p, i, y) for p, i, y, margin in members if margin or _alone(pages[p], i)]
        for cluster in _clusters(group, needed):
            for p, i, _y in cluster:
                found[p].setdefault(i, "watermark")
    repeated: list[tuple[str, bool]] = []  # (key, in the top band)
    for key, group in numbered.items():
        for cluster in _clusters(group, needed):
            repeated.append((key, cluster[0][2] > _middle(boxes[cluster[0][0]])))
            for p, i, _y in cluster:
                found[p][i] = "margin"
    if repeated:
        _mastheads(pages, boxes, found, [key for key, top in repeated if top])
        for key, group in numbered.items():
            for p, i, y in group:
                top = y > _middle(boxes[p])
                if i not in found[p] and any(_covers(k, key) and top == k_top for k, k_top in repeated):
                    found[p][i] = "margin"
    out: list[list[Furniture]] = []
    for p, (lines, box) in enumerate(zip(pages, boxes, strict=True)):
        out.append([Furniture(i, _role(lines[i], box, kind)) for i, kind in sorted(found[p].items())])
    return out


def _mastheads(
    pages: Sequence[Sequence[Line]], boxes: Sequence[Box], found: list[dict[int, str]], headers: list[str]
) -> None:
    """Mark masthead runs (module docstring) on the pages where no top-band header was found."""
    headers = [h for h in headers if len(set(_FIELD_SEPARATORS.split(h))) >= MASTHEAD_MIN_FIELDS]
    fields = [set(_FIELD_SEPARATORS.split(header)) for header in headers]
    if not fields:
        return
    for p, (lines, box) in enumerate(zip(pages, boxes, strict=True)):
        if any(_key(lines[i]) in headers for i in found[p]):
            continue  # the page has its header (a page number alone does not count)
        run: list[int] = []
        for i, line in enumerate([*lines, None]):
            key = _key(line) if line is not None and cy(line.box) > _middle(box) else ""
            is_field = bool(key) and any(key in f for f in fields)
            if is_field and key not in {_key(lines[j]) for j in run}:
                run.append(i)
                continue
            if len(run) >= MASTHEAD_MIN_FIELDS and any({_key(lines[j]) for j in run} <= f for f in fields):
                for j in run:
                    found[p].setdefault(j, "margin")
            run = [i] if is_field else []


def _key(line: Line) -> str:
    return _DIGITS.sub("0", " ".join(line.text.split()).casefold())


def _alone(lines: Sequence[Line], i: int) -> bool:
    """No other line lies within one font size above or below ``lines[i]`` and overlaps it
    horizontally (it is no line of a paragraph)."""
    box = lines[i].box
    reach = max(lines[i].size, 1.0)
    for j, other in enumerate(lines):
        if j == i or other.box[0] >= box[2] or other.box[2] <= box[0]:
            continue
        if other.box[1] - box[3] < reach and box[1] - other.box[3] < reach:
            return False
    return True


def _covers(repeated: str, key: str) -> bool:
    """``key`` is the repeated text, or holds it when that has words (a bare page number
    must match whole: every line with a digit would hold "0")."""
    if repeated == key:
        return True
    return sum(ch.isalpha() for ch in repeated) >= 3 and repeated in key


def _middle(page: Box) -> float:
    return (page[1] + page[3]) / 2


def _in_margin(line: Box, page: Box) -> bool:
    band = MARGIN_SHARE * (page[3] - page[1])
    return line[1] >= page[3] - band or line[3] <= page[1] + band


def _clusters(
    group: list[tuple[int, int, float]], needed: int
) -> list[list[tuple[int, int, float]]]:
    """Runs of ``group`` (sorted by height) whose heights stay within :data:`Y_TOLERANCE` of the
    run's first, kept when they span at least ``needed`` distinct pages."""
    if len({p for p, _i, _y in group}) < needed:
        return []
    out: list[list[tuple[int, int, float]]] = []
    run: list[tuple[int, int, float]] = []
    for item in sorted(group, key=lambda entry: entry[2]):
        if run and item[2] - run[0][2] > Y_TOLERANCE:
            if len({p for p, _i, _y in run}) >= needed:
                out.append(run)
            run = []
        run.append(item)
    if run and len({p for p, _i, _y in run}) >= needed:
        out.append(run)
    return out


def _role(line: Line, page: Box, kind: str) -> str:
    if kind == "watermark" and not _in_margin(line.box, page):
        return "watermark"
    if not _DIGITS.sub("", line.text).strip(" .-–—/|"):
        return "page_number"
    return "header" if cy(line.box) > (page[1] + page[3]) / 2 else "footer"
