"""Column detection and reading order for one PDF page (step 3 of
:mod:`docmunch.formats.pdf_layout`; PDF points, origin bottom-left, y up).

An x-coverage histogram (1 pt bins) of the line segments narrower than 60 % of the text width
finds gutters: interior runs of bins covered by at most max(2, 3 %) of the narrow segments
(running footers cross gutters), at least 8 pt wide, with three or more narrow segments on each
side — the projection-profile idea of Nagy & Seth's recursive X-Y cut (1984), applied once per
page. Segments that cross a gutter ("spanning": titles, full-width figures, footers) cut the
page into horizontal bands; within a band each column is read top to bottom (rows of segments
left to right), columns left to right.
"""

from __future__ import annotations

import dataclasses
import math

from docmunch.formats.pdf_layout import Line, cy

__all__ = ["reading_order"]

_MIN_GUTTER = 8.0
_GUTTER_NOISE = 0.03
_NARROW_SHARE = 0.6


def _gutters(lines: list[Line]) -> list[tuple[float, float]]:
    if len(lines) < 6:
        return []
    left = min(line.box[0] for line in lines)
    right = max(line.box[2] for line in lines)
    width = right - left
    narrow = [line for line in lines if line.box[2] - line.box[0] < _NARROW_SHARE * width]
    if len(narrow) < 6:
        return []
    bins = [0] * (int(width) + 2)
    for line in narrow:
        for x in range(int(line.box[0] - left), int(line.box[2] - left) + 1):
            bins[x] += 1
    noise = max(2, int(_GUTTER_NOISE * len(narrow)))
    gutters: list[tuple[float, float]] = []
    start: int | None = None
    for x, count in enumerate(bins):
        if count <= noise and start is None:
            start = x
        elif count > noise and start is not None:
            if x - start >= _MIN_GUTTER and start > 0:
                gutters.append((left + start, left + x))
            start = None
    # keep gutters with enough narrow text on each side (a real column, not an indent)
    kept = []
    for g0, g1 in gutters:
        lhs = sum(1 for line in narrow if line.box[2] <= g0)
        rhs = sum(1 for line in narrow if line.box[0] >= g1)
        if lhs >= 3 and rhs >= 3:
            kept.append((g0, g1))
    return kept


def reading_order(lines: list[Line]) -> list[Line]:
    """Lines of one page in reading order, each tagged with its column (step 3)."""
    gutters = _gutters(lines)
    edges = [g[0] for g in gutters]

    def column_of(line: Line) -> int:
        for g0, g1 in gutters:
            if line.box[0] < g0 and line.box[2] > g1:
                return -1
        return sum(1 for e in edges if line.box[0] >= e)

    tagged = [_with_column(line, column_of(line) if gutters else 0) for line in lines]
    spanning = sorted((line for line in tagged if line.column == -1), key=lambda ln: -ln.box[3])
    ordered: list[Line] = []
    rest = [line for line in tagged if line.column != -1]
    upper = math.inf
    for cut in [*spanning, None]:
        lower = cut.box[3] if cut is not None else -math.inf
        band = [line for line in rest if lower <= cy(line.box) < upper]
        ordered.extend(_rows_first(band))
        if cut is not None:
            ordered.append(cut)
            upper = cut.box[1]
    placed = {id(line) for line in ordered}
    ordered.extend(line for line in rest if id(line) not in placed)
    return ordered


def _rows_first(lines: list[Line]) -> list[Line]:
    """Sort by column, then by row (centres within half a font size), then left to right."""
    by_top = sorted(lines, key=lambda ln: (ln.column, -cy(ln.box)))
    keyed: list[tuple[int, int, float, Line]] = []
    row, row_cy, row_col = -1, math.inf, None
    for line in by_top:
        centre = cy(line.box)
        if line.column != row_col or row_cy - centre > 0.5 * line.size:
            row, row_cy, row_col = row + 1, centre, line.column
        keyed.append((line.column, row, line.box[0], line))
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed]


def _with_column(line: Line, column: int) -> Line:
    return dataclasses.replace(line, column=column)
