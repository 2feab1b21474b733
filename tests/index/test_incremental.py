"""Incremental re-indexing by file sha256, removals, per-file errors that never abort."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from docmunch.index import Index

from .conftest import write


def _section_rowids(home: Path, doc_path: str) -> list[int]:
    with sqlite3.connect(home / "index.sqlite3") as conn:
        rows = conn.execute(
            "SELECT s.id FROM sections s JOIN docs d ON d.id = s.doc_id WHERE d.doc_path = ? ORDER BY s.id",
            (doc_path,),
        ).fetchall()
    return [r[0] for r in rows]


def test_unchanged_modified_deleted(tmp_path: Path) -> None:
    root = write(
        tmp_path / "docs",
        {
            "a.md": "# Alpha\n\nFirst file about apples.\n\n## Deeper\n\nMore apples.\n",
            "b.md": "# Beta\n\nSecond file about bananas.\n",
            "c/c.md": "# Gamma\n\nThird file about cherries.\n",
        },
    )
    home = tmp_path / "home"
    with Index.open(home) as index:
        first = index.index_path(root)
        assert (first.docs_indexed, first.docs_unchanged, first.docs_removed) == (3, 0, 0)
        assert first.sections == 4
        before = _section_rowids(home, "b.md")

        again = index.index_path(root)
        assert (again.docs_indexed, again.docs_unchanged, again.docs_removed) == (0, 3, 0)
        assert _section_rowids(home, "b.md") == before  # not re-parsed, not rewritten

        (root / "a.md").write_text("# Alpha\n\nNow about apricots.\n", encoding="utf-8")
        changed = index.index_path(root)
        assert (changed.docs_indexed, changed.docs_unchanged, changed.docs_removed) == (1, 2, 0)
        assert changed.sections == 3
        assert index.search("apricots", repo="docs")[0].doc_path == "a.md"
        assert index.search("apples", repo="docs") == []
        assert _section_rowids(home, "b.md") == before

        (root / "c" / "c.md").unlink()
        removed = index.index_path(root)
        assert (removed.docs_indexed, removed.docs_unchanged, removed.docs_removed) == (0, 2, 1)
        assert [d.doc_path for d in index.list_docs("docs")] == ["a.md", "b.md"]
        assert index.search("cherries", repo="docs") == []

        full = index.index_path(root, incremental=False)
        assert (full.docs_indexed, full.docs_unchanged) == (2, 0)
        assert index.verify_repo("docs").ok


def test_bad_utf8_is_an_error_entry_and_keeps_previous_entry(tmp_path: Path) -> None:
    root = write(
        tmp_path / "docs",
        {
            "good.md": "# Good\n\nAll fine here.\n",
            "later-bad.md": "# Stable\n\nThe original text about walruses.\n",
        },
    )
    with Index.open(tmp_path / "home") as index:
        assert index.index_path(root).docs_indexed == 2
        (root / "broken.md").write_bytes(b"# Broken\n\n\xff\xfe not utf-8\n")
        (root / "later-bad.md").write_bytes(b"# Stable\n\n\xc3\x28 broken now\n")
        report = index.index_path(root)
        assert sorted(e.path for e in report.errors) == ["broken.md", "later-bad.md"]
        assert all("UTF-8" in e.error or "utf-8" in e.error for e in report.errors)
        assert report.docs_removed == 0 and report.docs_unchanged == 1
        docs = [d.doc_path for d in index.list_docs("docs")]
        assert docs == ["good.md", "later-bad.md"]
        hit = index.search("walruses", repo="docs")
        assert hit and hit[0].doc_path == "later-bad.md"
        assert index.verify_repo("docs").mismatches  # the original changed since indexing
        report_json = report.to_json()
        assert set(report_json) == {
            "repo",
            "docs_indexed",
            "docs_unchanged",
            "docs_removed",
            "docs_skipped",
            "sections",
            "errors",
            "skipped",
            "warnings",
            "elapsed_ms",
        }
        assert set(report_json["errors"][0]) == {"path", "error"}


def test_missing_raw_cache_file_is_repaired_by_reindexing(tmp_path: Path) -> None:
    root = write(tmp_path / "docs", {"a.md": "# A\n\ntext\n", "b.md": "# B\n\ntext\n"})
    with Index.open(tmp_path / "home") as index:
        index.index_path(root)
        state = index.document_state("docs", "a.md")
        assert state is not None
        raw = tmp_path / "home" / "raw" / state.raw_hash[:2] / state.raw_hash
        raw.unlink()
        assert not index.verify_repo("docs").ok
        report = index.index_path(root)
        assert (report.docs_indexed, report.docs_unchanged) == (1, 1)
        assert index.verify_repo("docs").ok


def test_exclude_patterns_remove_documents(tmp_path: Path) -> None:
    root = write(
        tmp_path / "docs", {"keep.md": "# Keep\n", "NOTICE.md": "# Notice\n", "x/NOTICE.md": "# N\n"}
    )
    with Index.open(tmp_path / "home") as index:
        assert index.index_path(root).docs_indexed == 3
        report = index.index_path(root, exclude=["NOTICE.md"])
        assert report.docs_removed == 2
        assert [d.doc_path for d in index.list_docs("docs")] == ["keep.md"]


def test_parallel_and_serial_parsing_store_the_same_sections(fixtures_dir: Path, tmp_path: Path) -> None:
    book = fixtures_dir / "corpora" / "rust-book"
    tocs = []
    for workers in (1, 2):
        with Index.open(tmp_path / f"home{workers}") as index:
            report = index.index_path(book, exclude=["NOTICE.md"], workers=workers)
            assert report.errors == () and report.docs_indexed == 112
            tocs.append(index.toc("rust-book"))
    assert tocs[0] == tocs[1]
