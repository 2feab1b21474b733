"""Term statistics kept between queries: each term's repo, text and document frequency, by id.

Pseudo-relevance feedback (:meth:`docmunch.index.rank.Ranker.feedback`) needs the document
frequency of its pool of up to 200 candidate terms on every query, and computing it (a sum over
each term's postings segments) was about a tenth of a query's time on k8s-en. The pool's terms
are mostly a repo's common words, which come back query after query, so a process that answers
many queries (the MCP server, the benchmarks) reads each term once and keeps it.

A cache is only valid for one connection and one state of the database. It is keyed by SQLite's
``PRAGMA data_version`` — which changes when *another* connection commits ("the integer values
returned by two invocations of PRAGMA data_version from the same connection will be different
if changes were committed to the database by any other connection in the interim", SQLite
documentation) — and by the connection's own ``total_changes`` (its own writes, committed or
not, which ``data_version`` does not count). When either differs, the cache is emptied before
it answers, so it never answers from a state of the index older than the one its query started
in (as before it, the statements of one query are not one snapshot: each reads the latest commit).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["MAX_CACHED_TERMS", "TermStats"]

MAX_CACHED_TERMS = 200_000
"""Rows kept before the cache is emptied and refilled (≈ 150 bytes each, ≈ 30 MB at most; the
bench's 300 k8s-en queries touch about 6,000 terms)."""

Row = tuple[Any, ...]
"""``(term id, repo id, term, df)``."""


class TermStats:
    """Rows of terms by id for one connection, valid while the database is unchanged."""

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
        self._state: tuple[int, int] = (-1, -1)
        self._rows: dict[int, Row] = {}

    def rows(
        self, conn: sqlite3.Connection, ids: Sequence[int], fetch: Callable[[list[int]], list[Row]]
    ) -> list[Row]:
        """The rows of the terms ``ids`` that exist, in ascending id order (as SQLite returns an
        ``id IN (…)`` query on the primary key).

        Args:
            conn: the connection the rows are read through (a new one empties the cache).
            ids: term ids (any order, duplicates allowed).
            fetch: reads the rows of the ids not cached (``(term id, repo id, term, df)``).
        """
        state = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if conn is not self._conn or state != self._state or len(self._rows) > MAX_CACHED_TERMS:
            self._conn, self._state = conn, state
            self._rows = {}
        cached = self._rows
        missing = sorted({i for i in ids if i not in cached})
        if missing:
            found = fetch(missing)
            for row in found:
                cached[row[0]] = row
            for i in set(missing).difference(row[0] for row in found):
                cached[i] = ()  # no such term (deleted): remembered as absent
        return [row for i in sorted(set(ids)) if (row := cached[i])]
