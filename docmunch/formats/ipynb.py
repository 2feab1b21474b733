"""Jupyter notebooks (``.ipynb``) → Markdown rendition.

Markdown cells are kept as Markdown; code cells become fenced code blocks tagged with the
notebook's kernel language (``metadata.kernelspec.language``, else
``metadata.language_info.name``); outputs are dropped (they are results, not documentation,
and are often megabytes of images); raw cells are dropped. Each cell is one :class:`Block`
whose position is ``{"type": "cell", "index": <0-based cell index>, "cell_type": ...}`` so a
host can open the notebook at that cell.

Format: nbformat 4 (``cells`` at top level) and nbformat 3 (``worksheets[0].cells``, code in
``input``), as described by the Jupyter notebook format documentation (nbformat.readthedocs.io).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docmunch.errors import ConvertError
from docmunch.formats.base import Block, Rendition

__all__ = ["render_ipynb"]

_BACKTICK_RUN = re.compile(r"`{3,}")


def _cell_source(cell: dict[str, Any], key: str) -> str:
    value = cell.get(key, "")
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value) if value is not None else ""


def _fence_for(code: str) -> str:
    """A backtick fence longer than any backtick run of 3+ inside ``code`` (CommonMark §4.5)."""
    longest = max((len(m.group(0)) for m in _BACKTICK_RUN.finditer(code)), default=2)
    return "`" * max(3, longest + 1)


def _language(nb: dict[str, Any]) -> str:
    meta = nb.get("metadata") or {}
    kernelspec = meta.get("kernelspec") or {}
    language_info = meta.get("language_info") or {}
    lang = kernelspec.get("language") or language_info.get("name") or meta.get("language") or ""
    return re.sub(r"[^\w+#.-]", "", str(lang))


def _cells(nb: dict[str, Any]) -> list[dict[str, Any]]:
    cells = nb.get("cells")
    if isinstance(cells, list):
        return cells
    worksheets = nb.get("worksheets")
    if isinstance(worksheets, list) and worksheets and isinstance(worksheets[0], dict):
        return list(worksheets[0].get("cells") or [])
    raise ConvertError("not a Jupyter notebook: no 'cells' (nbformat 4) or 'worksheets' (nbformat 3)")


def render_ipynb(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render a notebook's bytes as Markdown.

    Args:
        path: the notebook's path (the rendition's ``source_ref``).
        data: the ``.ipynb`` file's bytes (JSON, UTF-8).
        password: unused (notebooks are not encrypted).

    Returns:
        A :class:`Rendition` with ``source_kind="ipynb"`` and one block per kept cell; block
        offsets are UTF-8 byte offsets into the Markdown.

    Raises:
        ConvertError: the bytes are not UTF-8 JSON or not a notebook.
    """
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConvertError(f"not a valid notebook (JSON): {exc}", path=str(path)) from None
    if not isinstance(nb, dict):
        raise ConvertError("not a Jupyter notebook: top level is not an object", path=str(path))
    try:
        cells = _cells(nb)
    except ConvertError as exc:
        raise ConvertError(str(exc), path=str(path)) from None
    language = _language(nb)
    out = bytearray()
    blocks: list[Block] = []
    title: str | None = None
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        cell_type = cell.get("cell_type")
        if cell_type in ("markdown", "heading"):
            text = _cell_source(cell, "source").strip("\n")
            if cell_type == "heading":  # nbformat 3 heading cells carry their level
                text = "#" * int(cell.get("level", 1) or 1) + " " + text.strip()
        elif cell_type == "code":
            code = _cell_source(cell, "source" if "source" in cell else "input").rstrip("\n")
            fence = _fence_for(code)
            text = f"{fence}{language}\n{code}\n{fence}" if code else ""
        else:  # raw cells and unknown types carry no documentation
            continue
        if not text.strip():
            continue
        if out:
            out += b"\n\n"
        start = len(out)
        out += text.encode("utf-8")
        kind = "code" if cell_type == "code" else "paragraph"
        visible = " ".join(text.split())
        blocks.append(Block(start, len(out), kind, visible,
                            ({"type": "cell", "index": index, "cell_type": cell_type},)))
        if title is None and cell_type != "code":
            first = text.lstrip().splitlines()[0] if text.strip() else ""
            if first.startswith("# "):
                title = first[2:].strip().rstrip("#").strip() or None
    if out:
        out += b"\n"
    meta = {"cells": len(cells), "language": language or None}
    return Rendition(markdown=bytes(out), source_kind="ipynb", title=title, blocks=tuple(blocks),
                     source_ref=str(path), meta=meta)
