"""Term statistics kept between queries: the same rows as reading them, emptied by any write."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from docmunch.index import Index
from docmunch.index.rank import _TERM_DF_SQL
from docmunch.index.termstats import TermStats

HERE = Path(__file__).parent / "fixtures"
QUERIES = (
    "how do I share data between threads?",
    "调度器挑选节点时分为哪两个阶段",
    "kubectl apply a manifest",
    "what happens when a thread panics",
)


def _hits(index: Index) -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in QUERIES}


def _editable_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the search corpus to edit, and an empty home."""
    docs = tmp_path / "docs"
    shutil.copytree(HERE / "search-corpus", docs)
    return docs, tmp_path / "home"


class _Counting:
    """The real SQL read of term rows, counting the ids it was asked for."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.asked: list[int] = []

    def __call__(self, ids: list[int]) -> list[tuple[Any, ...]]:
        self.asked.extend(ids)
        marks = ",".join("?" * len(ids))
        return self.conn.execute(_TERM_DF_SQL + f"t.id IN ({marks})", ids).fetchall()


def test_rows_equal_the_sql_and_are_read_once(tmp_path: Path) -> None:
    with Index.open(tmp_path / "home") as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        conn = index._store.conn
        ids = [row[0] for row in conn.execute("SELECT id FROM terms ORDER BY term LIMIT 60")]
        fetch = _Counting(conn)
        stats = TermStats()
        wanted = [*reversed(ids), ids[0], 10**9]  # any order, a duplicate, an id that is no term
        expected = fetch(sorted(set(wanted)))
        fetch.asked.clear()
        assert stats.rows(conn, wanted, fetch) == expected
        assert [row[0] for row in expected] == sorted(ids)
        assert stats.rows(conn, ids[:10], fetch) == [r for r in expected if r[0] in set(ids[:10])]
        assert sorted(fetch.asked) == sorted({*ids, 10**9})  # nothing read twice
        assert all(row[3] >= 1 for row in expected)  # df of a term that exists


def test_a_write_of_this_or_another_connection_empties_it(tmp_path: Path) -> None:
    docs, home = _editable_corpus(tmp_path)
    with Index.open(home) as index:
        index.index_path(docs, repo="spec")
        conn = index._store.conn
        ids = [row[0] for row in conn.execute("SELECT id FROM terms ORDER BY id LIMIT 20")]
        stats = TermStats()
        fetch = _Counting(conn)
        stats.rows(conn, ids, fetch)
        stats.rows(conn, ids, fetch)
        assert len(fetch.asked) == len(ids)
        with Index.open(home) as other:  # another connection commits
            (docs / "en" / "concurrency.md").write_text("# Threads\n\nA zeppelinword about threads.\n")
            other.index_path(docs, repo="spec")
        stats.rows(conn, ids, fetch)
        assert len(fetch.asked) == 2 * len(ids)
        with index._store.write() as own:  # this connection's own write (data_version stays)
            own.execute("UPDATE repos SET name = name")
        stats.rows(conn, ids, fetch)
        assert len(fetch.asked) == 3 * len(ids)


def test_searches_between_edits_rank_as_a_fresh_process(tmp_path: Path) -> None:
    """The cache of one long-lived index never answers with the statistics of an older state."""
    docs, home = _editable_corpus(tmp_path)
    with Index.open(home) as index:
        index.index_path(docs, repo="spec")
        _hits(index)  # fills the cache
        (docs / "en" / "concurrency.md").write_text(
            "# Threads\n\nThreads share data through channels; a thread that panics ends.\n"
        )
        index.index_path(docs, repo="spec")
        warm = _hits(index)
        with Index.open(home) as fresh:
            assert _hits(fresh) == warm
        with Index.open(home) as other:  # a write by another process-level index
            (docs / "en" / "concurrency.md").unlink()
            other.index_path(docs, repo="spec")
        after = _hits(index)
        with Index.open(home) as fresh:
            assert _hits(fresh) == after
        assert after != warm
