"""Tables: GFM pipe tables (GFM spec 0.29, "Tables (extension)"), with a sanitised raw-HTML fallback.

* GFM table: the header is the first ``<thead>`` row, else the first row; other ``<thead>``
  rows, then ``<tbody>`` rows, then ``<tfoot>`` rows (wherever ``<tfoot>`` stood). ``colspan``
  adds empty cells after the cell, ``rowspan`` empty cells below it, so every row has the same
  column count. Cell content is inline Markdown on one line: paragraphs and ``<br>`` become
  ``<br>``, ``|`` is escaped ``\\|``. The caption is a paragraph before the table; alignment comes
  from ``align``/``text-align`` of the header cells.
* Rows whose cells are all empty are left out (image-only rows after extraction, spacers).
* A list in a cell is written inline: its items are ``<br>``-separated ``- item`` lines.
* A table whose cells hold a code block or another table cannot be a GFM table. It is
  written as a raw HTML block keeping only structural tags (``table caption thead tbody tfoot tr
  th td`` with ``colspan``/``rowspan``, and ``pre code ul ol li p br``) and escaped text; newlines
  inside ``<pre>`` are written ``&#10;`` so the HTML block holds no blank line (CommonMark HTML
  block type 6 ends at a blank line).
* A "table" with at most one column is layout: its content is converted as ordinary blocks;
  a table with no text and no image (spacer) is dropped.
* A Pygments line-number table (``table.highlighttable`` / ``td.linenos``) is its code cell's
  ``<pre>`` as a fenced block.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from lxml import etree

from docmunch.convert.blocks import EndHandler, single_line, start_transparent
from docmunch.convert.code import code_block, fenced, is_gutter
from docmunch.convert.escaping import HTML_WHITESPACE, escape_line_starts, escape_table_cell
from docmunch.convert.inline import subtree_text
from docmunch.convert.state import State, class_tokens, element_tag

__all__ = ["start_caption", "start_cell", "start_row", "start_section", "start_table"]

_MAX_SPAN = 1000
_BLOCKING_TAGS = frozenset({"pre", "table"})
_RAW_TAGS = frozenset(
    {
        "table",
        "caption",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "th",
        "td",
        "pre",
        "code",
        "ul",
        "ol",
        "li",
        "p",
        "br",
    }
)
_RAW_LINE_END = frozenset({"caption", "thead", "tbody", "tfoot", "tr", "table", "ul", "ol", "pre", "p"})
_RAW_SKIP = frozenset({"script", "style", "template", "button", "svg", "noscript"})
_TEXT_ALIGN = re.compile(r"text-align\s*:\s*(left|right|center)", re.IGNORECASE)


@dataclass(slots=True)
class Cell:
    """One converted cell."""

    text: str
    """Inline Markdown, one line, ``|`` escaped."""
    colspan: int
    """Columns spanned (1 … 1000)."""
    rowspan: int
    """Rows spanned (1 … 1000)."""
    align: str | None
    """``left``, ``right``, ``center`` or ``None``."""


@dataclass(slots=True)
class TableState:
    """Rows collected for an open GFM table."""

    section: str = "tbody"
    """Section the next row belongs to: ``thead``, ``tbody`` or ``tfoot``."""
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    """(section, cells) per ``<tr>``, in document order."""
    caption: str = ""
    """Caption text (inline Markdown)."""


def _span(value: str | None) -> int:
    try:
        return min(max(int((value or "1").strip()), 1), _MAX_SPAN)
    except ValueError:
        return 1


def _own_rows(table: etree._Element) -> list[list[etree._Element]]:
    """Cells of ``table``'s own rows (not of nested tables), row by row, in document order."""
    rows: list[list[etree._Element]] = []
    for child in table:
        tag = element_tag(child)
        candidates = [child] if tag == "tr" else list(child) if tag in {"thead", "tbody", "tfoot"} else []
        for row in candidates:
            if element_tag(row) == "tr":
                rows.append([cell for cell in row if element_tag(cell) in {"td", "th"}])
    return rows


def _is_code_table(table: etree._Element, cells: list[etree._Element]) -> bool:
    return "highlighttable" in class_tokens(table) or any(is_gutter(cell) for cell in cells)


def _is_gfm_compatible(table: etree._Element) -> bool:
    blocking = table.iter(*(f"{{*}}{tag}" for tag in _BLOCKING_TAGS))
    return not any(node is not table for node in blocking)


def start_table(state: State, element: etree._Element) -> EndHandler | None:
    """``<table>``: GFM table, raw HTML block, code table or layout (see module docstring)."""
    rows = _own_rows(element)
    cells = [cell for row in rows for cell in row]
    if _is_code_table(element, cells):
        state.skip()
        _write_code_table(state, cells)
        return None
    if max((len(row) for row in rows), default=0) <= 1 or state.cell_depth:
        return start_transparent(state, element)
    if not _is_gfm_compatible(element):
        state.skip()
        state.add_block("html", raw_table_html(element))
        return None
    state.push_block("table", TableState())
    return _end_table


def _write_code_table(state: State, cells: list[etree._Element]) -> None:
    code_cells = [cell for cell in cells if "code" in class_tokens(cell)] or cells[-1:]
    for cell in code_cells:
        pre = next((node for node in cell.iter() if element_tag(node) == "pre"), None)
        if pre is not None:
            code_block(state, pre)
        else:
            text = subtree_text(cell)
            if text.strip():
                state.add_block("code", fenced(text, None))


def _table_state(state: State) -> TableState | None:
    frame = state.top
    if frame.kind == "table" and isinstance(frame.data, TableState):
        return frame.data
    return None


def start_section(state: State, element: etree._Element) -> EndHandler | None:
    """``<thead>``, ``<tbody>``, ``<tfoot>``."""
    table = _table_state(state)
    if table is None:
        return start_transparent(state, element)
    table.section = element_tag(element)
    return _end_section


def _end_section(state: State, element: etree._Element) -> None:
    table = _table_state(state)
    if table is not None:
        table.section = "tbody"


def start_row(state: State, element: etree._Element) -> EndHandler | None:
    """``<tr>``."""
    table = _table_state(state)
    if table is None:
        return start_transparent(state, element)
    table.rows.append((table.section, []))
    return None


def start_cell(state: State, element: etree._Element) -> EndHandler | None:
    """``<td>``, ``<th>``."""
    if _table_state(state) is None:
        return start_transparent(state, element)
    state.push_block("cell", element)
    state.cell_depth += 1
    return _end_cell


def _cell_align(element: etree._Element) -> str | None:
    align = (element.get("align") or "").lower()
    if align in {"left", "right", "center"}:
        return align
    match = _TEXT_ALIGN.search(element.get("style") or "")
    return match.group(1).lower() if match else None


def _end_cell(state: State, element: etree._Element) -> None:
    state.cell_depth -= 1
    frame, content = state.pop_block()
    text = escape_table_cell(single_line(frame.blocks, content, joiner="<br>"))
    table = _table_state(state)
    if table is None:
        return
    if not table.rows:
        table.rows.append((table.section, []))
    cell = Cell(text, _span(element.get("colspan")), _span(element.get("rowspan")), _cell_align(element))
    table.rows[-1][1].append(cell)


def start_caption(state: State, element: etree._Element) -> EndHandler | None:
    """``<caption>``."""
    if _table_state(state) is None:
        return start_transparent(state, element)
    state.push_block("caption")
    state.cell_depth += 1
    return _end_caption


def _end_caption(state: State, element: etree._Element) -> None:
    state.cell_depth -= 1
    frame, content = state.pop_block()
    table = _table_state(state)
    if table is not None:
        table.caption = single_line(frame.blocks, content)


def _end_table(state: State, element: etree._Element) -> None:
    frame, _ = state.pop_block()
    table: TableState = frame.data
    if table.caption:
        state.add_block("p", escape_line_starts(table.caption))
    markdown = render_gfm(table)
    if markdown:
        state.add_block("table", markdown)


def _layout(rows: list[list[Cell]]) -> tuple[list[list[str]], list[str | None]]:
    """Expand spans into a rectangular grid of cell texts; alignment per column of the first row."""
    grid: list[list[str]] = []
    pending: dict[int, int] = {}  # column -> rows still covered by a rowspan above
    aligns: list[str | None] = []
    for index, cells in enumerate(rows):
        out: list[str] = []
        queue = list(cells)
        column = 0
        while queue or any(col >= column for col in pending):
            if pending.get(column, 0) > 0:
                pending[column] -= 1
                if pending[column] == 0:
                    del pending[column]
                out.append("")
                column += 1
                continue
            if not queue:
                column += 1
                out.append("")
                continue
            cell = queue.pop(0)
            for offset in range(cell.colspan):
                out.append(cell.text if offset == 0 else "")
                if index == 0:
                    aligns.append(cell.align)
                if cell.rowspan > 1:
                    pending[column + offset] = cell.rowspan - 1
            column += cell.colspan
        grid.append(out)
    return grid, aligns


_DELIMITER = {None: "---", "left": ":---", "right": "---:", "center": ":---:"}


def render_gfm(table: TableState) -> str:
    """The GFM pipe table for ``table`` ("" when it has no cells)."""
    ordered = (
        [cells for section, cells in table.rows if section == "thead"]
        + [cells for section, cells in table.rows if section == "tbody"]
        + [cells for section, cells in table.rows if section == "tfoot"]
    )
    ordered = [cells for cells in ordered if cells]
    if not any(cell.text for cells in ordered for cell in cells):
        return ""  # a spacer or decoration table
    grid, aligns = _layout(ordered)
    if not any(grid[0]):
        aligns = []
    grid = [row for row in grid if any(row)]
    width = max(len(row) for row in grid)
    if width == 0:
        return ""
    aligns += [None] * (width - len(aligns))
    lines = []
    for number, row in enumerate(grid):
        row = row + [""] * (width - len(row))
        lines.append("| " + " | ".join(row) + " |")
        if number == 0:
            lines.append("| " + " | ".join(_DELIMITER[align] for align in aligns[:width]) + " |")
    return "\n".join(lines)


def raw_table_html(table: etree._Element) -> str:
    """Sanitised HTML for a table that cannot be a GFM table (no blank line inside)."""
    out: list[str] = []
    pre_depth = 0
    skipping: etree._Element | None = None
    walker = etree.iterwalk(table, events=("start", "end", "comment", "pi"))
    for event, node in walker:
        tag = element_tag(node)
        if event == "start":
            if tag in _RAW_SKIP or is_gutter(node):
                skipping = node
                walker.skip_subtree()
                continue
            if tag in _RAW_TAGS:
                attributes = "".join(
                    f' {name}="{_span(node.get(name))}"'
                    for name in ("colspan", "rowspan")
                    if tag in {"td", "th"} and node.get(name)
                )
                out.append(f"<{tag}{attributes}>")
                pre_depth += tag == "pre"
            out.append(_raw_text(node.text, pre_depth))
            continue
        if event == "end" and node is not skipping and tag in _RAW_TAGS and tag != "br":
            pre_depth -= tag == "pre"
            out.append(f"</{tag}>" + ("\n" if tag in _RAW_LINE_END and not pre_depth else ""))
        if node is skipping:
            skipping = None
        if node is not table:
            out.append(_raw_text(node.tail, pre_depth))
    text = "".join(out)
    return "\n".join(line for line in text.split("\n") if line.strip())


def _raw_text(text: str | None, pre_depth: int) -> str:
    if not text:
        return ""
    if pre_depth:
        return html.escape(text, quote=False).replace("\n", "&#10;")
    return html.escape(HTML_WHITESPACE.sub(" ", text), quote=False)
