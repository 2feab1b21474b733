"""Hostile Markdown bodies: the block parser (pulldown-cmark) and the outline over it stay
bounded, every file is indexed, nothing aborts the run.

Each body is generated here, under the 5 MiB file limit of a folder walk: nesting far past
:data:`~docmunch.section.blocks.MAX_NESTING`, runs of the characters that open inline and
block constructs, a 2,000-column table, 50,000 link reference definitions. Measured in
process (``split_markdown``, this machine): at most 1.8 s per file (the table) and 2.6 s
for 100,000 setext headings, against 12.6 s for the table with markdown-it-py's block parser.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docmunch.section import split_markdown
from docmunch.section.blocks import MAX_NESTING, outline_blocks
from tests.hostile.budget import run_cli

pytestmark = pytest.mark.timeout(300)

MAX_RSS_MB = 400
"""Peak RSS bound of the whole indexing run (MiB)."""
MAX_SECONDS = 120
"""Wall-time bound of the whole run (about 15 s here on a quiet machine)."""

HOSTILE = {
    "quotes.md": ">" * 100_000 + " deep\n",
    "lists.md": "".join("  " * i + "- x\n" for i in range(1500)),
    "items-on-one-line.md": "- " * 50_000 + "x\n",
    "brackets.md": "[" * 300_000 + "\n",
    "stars.md": "*a" * 150_000 + "\n",
    "links.md": "[a](" * 100_000 + "\n",
    "tags.md": "<a " * 100_000 + "\n",
    "table.md": "|" + "a|" * 2000 + "\n|" + "-|" * 2000 + "\n" + ("|" + "b|" * 2000 + "\n") * 200,
    "definitions.md": "".join(f"[r{i}]: /u{i}\n" for i in range(50_000)) + "Text [r1] here.\n",
    "lazy.md": "> a\n" + "b\n" * 100_000,
    "headings.md": "# h\n" * 20_000,
}


def test_bodies_are_large_and_nested_past_the_limit() -> None:
    assert all(len(text.encode()) < 5 * 2**20 for text in HOSTILE.values())
    assert HOSTILE["quotes.md"].count(">") > 1000 * MAX_NESTING


def test_each_body_splits_and_reads_what_markdown_it_read() -> None:
    for name, text in HOSTILE.items():
        doc = split_markdown(text.encode(), repo="r", doc_path=name)
        assert doc.sections, name
        assert doc.sections[-1].byte_end == len(text.encode())
    deep_paragraphs = [b for b in outline_blocks(HOSTILE["lists.md"])[0] if b.kind == "paragraph"]
    assert len(deep_paragraphs) == (MAX_NESTING - 1) // 2  # deeper items are never a summary
    doc = split_markdown(HOSTILE["definitions.md"].encode(), repo="r", doc_path="d.md")
    summary = doc.sections[0].summary
    assert summary == "Text r1 here."  # 50,000 definitions read, the reference resolved


def test_cli_indexes_every_hostile_body(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in HOSTILE.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "good.md").write_text("# Good\n\nThe zebra paragraph.\n", encoding="utf-8")
    run = run_cli(["index", str(root), "--repo", "md"], tmp_path / "home", timeout=MAX_SECONDS + 60)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and not run.lines("error"), run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB, run.peak_rss_mb
    assert run.seconds < MAX_SECONDS, run.seconds
    toc = run_cli(["toc", "md", "--json"], tmp_path / "home")
    assert {s["doc_path"] for s in json.loads(toc.stdout)["sections"]} == {*HOSTILE, "good.md"}
