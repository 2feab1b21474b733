"""Hostile inputs: wall time and peak RSS of one ``docmunch index`` run per input (issue 12).

Each input is generated here (the same builders as ``tests/hostile/``) into a folder beside
one good Markdown file and indexed through the real CLI; the peak RSS is the largest
``VmHWM`` of the CLI process tree (parser and PDF workers included). The numbers before
issue 12 are in ``docs/decisions.md`` ("Limits"); these are today's.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.table import Table

from tests.hostile.budget import run_cli
from tests.hostile.test_docx_bomb import DOCX_BOMBS, PDF_BOMBS
from tests.hostile.test_frontmatter import HOSTILE as FRONT_MATTER


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "x.md")


def _text_file(name: str, text: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / name).write_text(text, encoding="utf-8")

    return write


def _bytes_file(name: str, make: Callable[[], bytes]) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / name).write_bytes(make())

    return write


def _inputs() -> dict[str, Callable[[Path], None]]:
    out: dict[str, Callable[[Path], None]] = {}
    for name in ("recursive.md", "bomb.md", "deep.md"):
        out[f"front matter {name}"] = _text_file(name, FRONT_MATTER[name])
    for name in ("million-paragraphs.docx", "empty-paragraphs.docx", "million-runs.docx"):
        out[f"docx {name}"] = _bytes_file(name, DOCX_BOMBS[name][0])
    for name in ("glyphs.pdf", "paths-big.pdf"):
        out[f"pdf {name}"] = _bytes_file(name, PDF_BOMBS[name][0])
    out["folder with a FIFO x.md"] = _fifo
    return out


def run(fixtures: Path) -> dict[str, Any]:
    """Per input: seconds, peak RSS in MiB, exit status and the error/skip line."""
    rows: list[dict[str, object]] = []
    for label, make in _inputs().items():
        with tempfile.TemporaryDirectory(prefix="dm-hostile-") as tmp:
            folder = Path(tmp) / "docs"
            folder.mkdir()
            (folder / "good.md").write_text("# Good\n\nText.\n", encoding="utf-8")
            make(folder)
            result = run_cli(["index", str(folder), "--repo", "hostile"], Path(tmp) / "home", timeout=600)
            line = next((ln for ln in result.stderr.splitlines() if ln.startswith("docmunch: ")), "")
            rows.append({
                "input": label, "seconds": round(result.seconds, 2), "peak_rss_mb": round(result.peak_rss_mb),
                "exit": result.returncode, "line": line[:140],
            })
    return {"inputs": rows}


def table(result: dict[str, Any]) -> Table:
    """One row per hostile input."""
    out = Table(title="Hostile inputs: one docmunch index run each (beside one good file)")
    for column in ("input", "s", "peak RSS MB", "exit", "line"):
        out.add_column(column, justify="left" if column in ("input", "line") else "right")
    for row in result["inputs"]:
        seconds, rss = f"{row['seconds']:.2f}", str(row["peak_rss_mb"])
        out.add_row(row["input"], seconds, rss, str(row["exit"]), row["line"])
    return out
