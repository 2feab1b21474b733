"""The legacy ranking's FTS table: empty after indexing, filled on the first legacy search,
kept in step by later writes, and listed for every repo of a migrated schema-3 index."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from docmunch.index import SCHEMA_VERSION, Index

HERE = Path(__file__).parent / "fixtures"
QUERIES = ("threads", "kubectl apply", "调度器", "widget cache", "节点")


def _fts(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    out = conn.execute(
        "SELECT rowid, title, heading_path, summary, body, scope FROM sections_fts ORDER BY rowid"
    ).fetchall()
    conn.close()
    return out


def _filled(db: Path) -> list[int]:
    conn = sqlite3.connect(db)
    out = [int(r[0]) for r in conn.execute("SELECT repo_id FROM fts_repos ORDER BY repo_id")]
    conn.close()
    return out


def _legacy(index: Index, repo: str | None = "spec") -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.id, h.score) for h in index.search(q, repo=repo, ranking="legacy")] for q in QUERIES}


def test_indexing_leaves_the_table_empty_and_the_first_legacy_search_fills_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = home / "index.sqlite3"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        index.index_path(HERE / "search-corpus" / "en", repo="other")
        assert _fts(db) == [] and _filled(db) == []
        assert index.search("threads", repo="spec")  # the question ranking needs no FTS rows
        hits = _legacy(index)
        assert all(hits.values())
        assert _filled(db) == [1, 2]  # every repo: bm25's statistics cover the whole table
        sections = index._store.conn.execute("SELECT count(*) FROM sections").fetchone()[0]
        assert len(_fts(db)) == sections
        assert _legacy(index) == hits  # filled once: the same answers again


def test_a_filled_repo_is_kept_in_step_by_edits(tmp_path: Path) -> None:
    """After edits, the rows equal what filling from scratch gives."""
    docs = tmp_path / "docs"
    shutil.copytree(HERE / "search-corpus", docs)
    home = tmp_path / "home"
    db = home / "index.sqlite3"
    with Index.open(home) as index:
        index.index_path(docs, repo="spec")
        assert not index.search("zeppelinword", repo="spec", ranking="legacy")
        (docs / "en" / "concurrency.md").write_text("# Threads\n\nA zeppelinword about threads.\n")
        (docs / "en" / "kubectl-apply.md").unlink()
        index.index_path(docs, repo="spec")
        assert [h.doc_path for h in index.search("zeppelinword", repo="spec", ranking="legacy")] == [
            "en/concurrency.md"
        ]
        kubectl = index.search("kubectl", repo="spec", ranking="legacy")
        assert not any(h.doc_path == "en/kubectl-apply.md" for h in kubectl)
        kept = _fts(db)
        with index._store.write() as conn:
            conn.execute("DELETE FROM sections_fts")
            conn.execute("DELETE FROM fts_repos")
        index.search("threads", repo="spec", ranking="legacy")
        assert _fts(db) == kept


def test_deleting_a_repo_drops_its_rows_and_its_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = home / "index.sqlite3"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        _legacy(index)
        index.delete_repo("spec")
        assert _fts(db) == [] and _filled(db) == []
        index.index_path(HERE / "search-corpus", repo="spec")  # a new repo: not filled
        assert _fts(db) == []
        assert all(_legacy(index).values())


def test_the_ranking_does_not_depend_on_which_repo_was_searched_first(tmp_path: Path) -> None:
    """bm25's statistics come from the whole table, so every repo is filled at once."""
    answers = []
    for first in ("spec", "other"):
        with Index.open(tmp_path / first) as index:
            index.index_path(HERE / "search-corpus", repo="spec")
            index.index_path(HERE / "search-corpus" / "en", repo="other")
            index.search("threads", repo=first, ranking="legacy")
            answers.append(_legacy(index))
    assert answers[0] == answers[1]


def test_a_document_whose_bytes_are_gone_gets_no_rows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        raw_hash = index.document_state("spec", "zh/scheduler.md").raw_hash  # type: ignore[union-attr]
        (home / "raw" / raw_hash[:2] / raw_hash).unlink()
        assert index._store.fill_fts() == ["spec::zh/scheduler.md"]
        assert index.search("threads", repo="spec", ranking="legacy")  # the others are found
        scheduler = index.search("调度器", repo="spec", ranking="legacy")
        assert not any(h.doc_path == "zh/scheduler.md" for h in scheduler)


def test_schema_3_index_keeps_its_rows_and_lists_every_repo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 3 wrote every section to the FTS table: the upgrade keeps the rows and lists the
    repos, so no legacy search fills them again."""
    home = tmp_path / "home"
    db = home / "index.sqlite3"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        index.index_path(HERE / "search-corpus" / "en", repo="other")
        before = _legacy(index, None)
    rows = _fts(db)
    conn = sqlite3.connect(db)  # schema 3's layout: no fts_repos, no title_key
    conn.execute("DROP TABLE fts_repos")
    conn.execute("DROP INDEX sections_title_key")
    conn.execute("ALTER TABLE sections DROP COLUMN title_key")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert f"from schema 3 to {SCHEMA_VERSION}" in err and "index upgraded" in err
        assert "rebuilding the search terms" in err  # schema 5 changed the priors
        assert _filled(db) == [1, 2]
        assert _legacy(index, None) == before
    assert _fts(db) == rows
