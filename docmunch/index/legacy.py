"""The ranking of docmunch 0.1 ("legacy"), kept selectable for side-by-side evaluation.

``search(..., ranking="legacy")`` runs it; ``bench/bench_search.py`` scores it beside the
question ranking of :mod:`docmunch.index.rank` in the same run. It uses the FTS5 table, which
the first legacy search fills with every repo not yet in it (:mod:`docmunch.index.fts`).

Ranking is SQLite FTS5's ``bm25()`` (Robertson/Spärck Jones Okapi BM25, k1 = 1.2, b = 0.75
as built into FTS5) with column weights :data:`COLUMN_WEIGHTS` — title highest — negated so
that higher scores are better, plus :data:`EXACT_TITLE_BOOST` when the whole query equals the
section title (case-insensitive, whitespace collapsed).

Matching: all query terms must match (FTS5 implicit AND). When that finds nothing and the
query has several terms, hits matching *any* term are returned instead (same ranking). Queries are built by
:func:`docmunch.index.text.match_expression`, so any user string is safe.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from docmunch.index.read import read_snippet
from docmunch.index.records import SearchHit
from docmunch.index.store import Store
from docmunch.index.text import match_expression

__all__ = ["COLUMN_WEIGHTS", "EXACT_TITLE_BOOST", "legacy_search"]

COLUMN_WEIGHTS = (10.0, 4.0, 2.0, 1.0)
"""bm25 weights of the FTS columns: title, heading path (ancestor titles), summary, body."""

EXACT_TITLE_BOOST = 25.0
"""Added to the score of a section whose title equals the query (bm25 scores here are ~1–40)."""


def _title_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def legacy_search(
    store: Store,
    query: str,
    *,
    repo: str | None = None,
    limit: int = 10,
    doc_path: str | None = None,
    path_glob: str | None = None,
    min_level: int | None = None,
    max_level: int | None = None,
    snippet_bytes: int = 0,
) -> list[SearchHit]:
    """Search sections; best first.

    Args:
        query: any user string (empty or punctuation-only → no results).
        repo: restrict to one repo (``None`` = all; an unknown repo raises RepoNotFound).
        limit: maximum number of hits, ≥ 1 (:func:`docmunch.index.search.search`, the one
            caller, has clamped it to :data:`~docmunch.index.search.MAX_HITS`).
        doc_path: restrict to one document (exact doc_path).
        path_glob: ``fnmatch`` pattern on doc_path (``*`` also crosses ``/``; ``concepts/**``).
        min_level, max_level: inclusive heading-level range (0 = preamble).
        snippet_bytes: when > 0, each hit carries the start of its section, at most N bytes
            (:func:`~docmunch.index.read.read_snippet`: never cut inside a character or a word).

    Raises:
        RepoNotFound: ``repo`` is not indexed.
        IndexStoreError: the FTS table had repos to fill and the database cannot be written.
    """
    scope = store.repo_scope(repo)
    repo_ids = [row.id for row in scope] if scope is not None else None
    strict = match_expression(query)
    if strict is None:
        return []
    # FTS5's bm25() takes its statistics over the whole table: every repo's rows must be in it
    # to rank as docmunch 0.1 did (its table held every repo), whichever repos are searched.
    store.fill_fts()
    filters: list[str] = []
    args: list[Any] = []
    if doc_path is not None:
        filters.append("d.doc_path = ?")
        args.append(doc_path)
    if path_glob:
        filters.append("dm_regexp(?, d.doc_path)")
        args.append(fnmatch.translate(path_glob))
    if min_level is not None:
        filters.append("s.level >= ?")
        args.append(int(min_level))
    if max_level is not None:
        filters.append("s.level <= ?")
        args.append(int(max_level))
    search = _Query(store, repo_ids, filters, args, _title_key(query), limit)
    rows = search.run(strict)
    if not rows:
        loose = match_expression(query, any_term=True)
        if loose is not None and loose != strict:
            rows = search.run(loose)
    hits: list[SearchHit] = []
    for score, (sid, name, path, title, level, summary, start, end, raw_hash) in rows:
        snippet = None
        if snippet_bytes > 0:
            snippet = read_snippet(store, raw_hash, start, end, snippet_bytes)
        hits.append(SearchHit(name, sid, title, level, path, round(score, 4), summary, start, end, snippet))
    return hits


_TEXT_COLUMNS = "{title heading_path summary body}"
_WEIGHTS = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
_ROW_SQL = (
    "SELECT s.id, s.sid, r.name, d.doc_path, s.title, s.level, s.summary, s.byte_start, s.byte_end, "
    "d.raw_hash "
    "FROM sections s JOIN docs d ON d.id = s.doc_id JOIN repos r ON r.id = d.repo_id WHERE s.id IN ({ids})"
)


class _Query:
    """One search: ranks inside FTS5 first (cheap), then joins and filters only the best rows.

    bm25 must be computed for every matching row, but the joins with ``sections``/``docs``
    and the filters run only on the top ``k`` rows; ``k`` grows (×8) until ``limit`` rows pass
    the filters or the matches are exhausted. Exact-title rows are looked up through the
    ``title_fold`` index and get :data:`EXACT_TITLE_BOOST`.
    """

    def __init__(
        self,
        store: Store,
        repo_ids: list[int] | None,
        filters: list[str],
        args: list[Any],
        key: str,
        limit: int,
    ) -> None:
        self.conn = store.conn
        self.repo_ids = repo_ids
        self.filters = filters
        self.args = args
        self.key = key
        self.limit = limit

    def _match(self, expr: str) -> str:
        match = f"{_TEXT_COLUMNS} : ({expr})"
        if self.repo_ids is not None:
            match += " AND scope : (" + " OR ".join(f'"r{i}"' for i in self.repo_ids) + ")"
        return match

    def run(self, expr: str) -> list[tuple[float, tuple[Any, ...]]]:
        """``[(score, row)]`` best first, at most ``limit``; row = sid, repo, doc_path, title, level,
        summary, byte_start, byte_end, raw_hash."""
        match = self._match(expr)
        scores: dict[int, float] = {}
        # Exact-title rows: ranked inside FTS among themselves ("+rowid" keeps the IN list from
        # becoming one FTS lookup per row, which is slow for titles repeated thousands of times).
        has_exact = self.conn.execute(
            "SELECT 1 FROM sections WHERE title_fold = ? LIMIT 1", (self.key,)
        ).fetchone()
        k = self.limit if not self.filters else self.limit * 4
        while has_exact:
            exact = self.conn.execute(
                f"SELECT rowid, bm25(sections_fts, {_WEIGHTS}) AS r FROM sections_fts "
                "WHERE sections_fts MATCH ? AND +rowid IN (SELECT id FROM sections WHERE title_fold = ?) "
                "ORDER BY r LIMIT ?",
                (match, self.key, k),
            ).fetchall()
            for rowid, rank in exact:
                scores[rowid] = -rank + EXACT_TITLE_BOOST
            if len(exact) < k or len(self._rows(scores)) >= self.limit:
                break
            k *= 8
        k = self.limit if not self.filters else self.limit * 4
        while True:
            ranked = self.conn.execute(
                f"SELECT rowid, bm25(sections_fts, {_WEIGHTS}) AS r FROM sections_fts "
                "WHERE sections_fts MATCH ? ORDER BY r LIMIT ?",
                (match, k),
            ).fetchall()
            for rowid, rank in ranked:
                scores.setdefault(rowid, -rank)
            rows = self._rows(scores)
            if len(rows) >= self.limit or len(ranked) < k:
                return rows[: self.limit]
            k *= 8

    def _rows(self, scores: dict[int, float]) -> list[tuple[float, tuple[Any, ...]]]:
        if not scores:
            return []
        ids = list(scores)
        where = "".join(f" AND {f}" for f in self.filters)
        sql = _ROW_SQL.format(ids=",".join("?" * len(ids))) + where
        found = self.conn.execute(sql, (*ids, *self.args)).fetchall()
        out = [(scores[row[0]], row[1:]) for row in found]
        out.sort(key=lambda item: (-item[0], item[1][0]))
        return out
