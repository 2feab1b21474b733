"""Office formats: DOCX paragraphs/s and PDF pages/s over ``office/`` fixtures.

Each file is rendered ``REPEAT`` times and the fastest run counts (the least disturbed by other
work on a shared machine). As a floor for comparison, the same files are read by the plainest
extraction the same libraries offer: python-docx's ``Document.paragraphs`` text and pypdfium2's
``get_text_range`` per page (no layout, no headings, no blocks).
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import docx
import pypdfium2 as pdfium
from rich.table import Table

from docmunch.errors import DocmunchError
from docmunch.formats import render_file

REPEAT = 3
_PASSWORDS = {"password-example.pdf": "test"}


def _best(fn: Any) -> tuple[float, Any]:
    best = float("inf")
    value = None
    for _ in range(REPEAT):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def _plain_docx(data: bytes) -> int:
    return sum(len(p.text) for p in docx.Document(io.BytesIO(data)).paragraphs)


def _plain_pdf(data: bytes, password: str | None) -> int:
    with pdfium.PdfDocument(data, password=password) as pdf:
        return sum(len(pdf[i].get_textpage().get_text_range()) for i in range(len(pdf)))


def run(fixtures: Path) -> dict[str, Any]:
    """Per file: units (paragraphs or pages), ms for docmunch and for the plain floor."""
    files: list[dict[str, Any]] = []
    for path in sorted((fixtures / "office").glob("*/*")):
        if path.suffix not in (".docx", ".pdf"):
            continue
        data = path.read_bytes()
        password = _PASSWORDS.get(path.name)
        row: dict[str, Any] = {"file": f"{path.parent.name}/{path.name}", "kind": path.suffix[1:]}
        try:
            seconds, rendition = _best(lambda p=path, d=data, pw=password: render_file(p, d, password=pw))
        except DocmunchError as exc:
            row.update(error=f"{type(exc).__name__}: {exc}")
            files.append(row)
            continue
        units = rendition.meta["paragraphs"] if path.suffix == ".docx" else rendition.meta["pages"]
        if path.suffix == ".docx":
            plain_s, _ = _best(lambda d=data: _plain_docx(d))
        else:
            plain_s, _ = _best(lambda d=data, pw=password: _plain_pdf(d, pw))
        row.update(
            units=units,
            ms=round(seconds * 1000, 2),
            plain_ms=round(plain_s * 1000, 2),
            blocks=len(rendition.blocks),
            headings=rendition.meta["headings"],
            heading_source=rendition.meta["heading_source"],
            markdown_bytes=len(rendition.markdown),
        )
        files.append(row)
    summary: dict[str, dict[str, float]] = {}
    for kind, unit in (("docx", "paragraphs"), ("pdf", "pages")):
        ok = [f for f in files if f["kind"] == kind and "error" not in f]
        units = sum(f["units"] for f in ok)
        seconds = sum(f["ms"] for f in ok) / 1000
        plain = sum(f["plain_ms"] for f in ok) / 1000
        summary[kind] = {
            "files": len(ok),
            unit: units,
            f"{unit}_per_s": round(units / seconds, 1) if seconds else 0.0,
            f"plain_{unit}_per_s": round(units / plain, 1) if plain else 0.0,
        }
    return {"files": files, "summary": summary}


def table(result: dict[str, Any]) -> Table:
    """One row per file plus the per-format throughput."""
    out = Table(title="Office formats: docmunch rendition vs plain library text (best of 3)")
    for column in ("file", "units", "ms", "plain ms", "blocks", "headings", "source / error"):
        out.add_column(column, justify="left" if column in ("file", "source / error") else "right")
    for f in result["files"]:
        if "error" in f:
            out.add_row(f["file"], "", "", "", "", "", f["error"])
            continue
        out.add_row(
            f["file"], str(f["units"]), f"{f['ms']:.1f}", f"{f['plain_ms']:.1f}", str(f["blocks"]),
            str(f["headings"]), f["heading_source"],
        )
    for kind, s in result["summary"].items():
        unit = "paragraphs" if kind == "docx" else "pages"
        out.add_row(
            f"[b]{kind} total[/b]", str(s[unit]), "", "", "", "",
            f"{s[f'{unit}_per_s']} {unit}/s (plain {s[f'plain_{unit}_per_s']})",
        )
    return out
