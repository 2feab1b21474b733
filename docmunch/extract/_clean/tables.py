"""Data tables and protected elements: what conditional cleaning never removes.

:func:`mark_data_tables` is Readability.js's ``_markDataTables`` (a table holds data, not
layout, when it says so, has a caption or header cells, or is large enough);
:func:`protected_elements` gathers everything inside a data table, ``<code>`` or ``<pre>``.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

__all__ = ["mark_data_tables", "protected_elements"]

_DATA_TABLE_DESCENDANTS = ("col", "colgroup", "tfoot", "thead", "th")


def _row_col_count(table: HtmlElement) -> tuple[int, int]:
    rows = columns = 0
    for tr in table.iter("tr"):
        rows += _int(tr.get("rowspan")) or 1
        in_row = sum((_int(td.get("colspan")) or 1) for td in tr.iter("td"))
        columns = max(columns, in_row)
    return rows, columns


def _int(value: str | None) -> int:
    if not value:
        return 0
    digits = re.match(r"\s*(\d+)", value)
    return int(digits.group(1)) if digits else 0


def mark_data_tables(root: HtmlElement) -> set[HtmlElement]:
    """Readability's ``_markDataTables``: the set of tables that hold data, not layout."""
    data: set[HtmlElement] = set()
    for table in root.iter("table"):
        if table.get("role") == "presentation" or table.get("datatable") == "0":
            continue
        if table.get("summary"):
            data.add(table)
            continue
        caption = next(table.iter("caption"), None)
        if caption is not None and (caption.text or len(caption)):
            data.add(table)
            continue
        if any(next(table.iter(tag), None) is not None for tag in _DATA_TABLE_DESCENDANTS):
            data.add(table)
            continue
        if any(True for _ in table.iterdescendants("table")):
            continue
        rows, columns = _row_col_count(table)
        if columns == 1 or rows == 1:
            continue
        if rows >= 10 or columns > 4 or rows * columns > 10:
            data.add(table)
    return data


def protected_elements(root: HtmlElement, data_tables: set[HtmlElement]) -> set[HtmlElement]:
    """Elements inside a data table, ``<code>`` or ``<pre>``: never removed conditionally.

    Computed once per article (one pass per protecting ancestor) instead of walking every
    candidate's ancestors, which is quadratic on deeply nested pages.
    """
    protected: set[HtmlElement] = set()
    for holder in (*data_tables, *root.iter("code", "pre")):
        if holder not in protected:
            protected.update(holder.iterdescendants())
    return protected
