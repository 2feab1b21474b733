"""Ranked search over sections (design brief §5): questions and keywords, any language.

Two rankings, chosen with ``ranking``:

* ``"question"`` (default) — :mod:`docmunch.index.rank`: every section matching some of the
  query's content words is ranked (BM25F over title, heading path, document and body with
  coordination and a content prior). On the final candidates this module adds
  :data:`EXACT_TITLE_BOOST` when the whole query equals the section title and
  :data:`IDENTIFIER_BOOST` when the section contains a code identifier of the query
  verbatim (``Arc<Mutex<T>>``, ``--dry-run``).
* ``"legacy"`` — docmunch 0.1's FTS5 ranking (:mod:`docmunch.index.legacy`), for comparison.

A query of stop words only (``"how do I"``) or of punctuation has no terms: the result is
empty, never an error. User text never reaches SQL or FTS5 syntax.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from docmunch.index.legacy import legacy_search
from docmunch.index.rank import RESCORE_CANDIDATES, Ranker
from docmunch.index.records import SearchHit
from docmunch.index.store import Store

__all__ = [
    "EXACT_TITLE_BOOST",
    "IDENTIFIER_BOOST",
    "IDENTIFIER_CHECKS",
    "RANKINGS",
    "identifiers",
    "search",
]

RANKINGS = ("question", "legacy")
"""Accepted values of ``ranking``."""
EXACT_TITLE_BOOST = 1.0
"""Added when the query equals the section title (case and spacing ignored): ``kubectl drain``
puts that page first. Scores are normalised to the query's total weight, so 1.0 is the score
of a section with every term at full impact."""
IDENTIFIER_BOOST = 0.5
"""Added, times the share of the query's identifiers found, when a section's text contains
them verbatim (case-insensitive)."""
IDENTIFIER_CHECKS = 30
"""How many of the best candidates are read back (raw cache) for the identifier check."""

_ROW_SQL = (
    "SELECT s.id, s.sid, r.name, d.doc_path, s.title, s.level, s.summary, s.byte_start, s.byte_end, "
    "d.raw_hash, s.title_fold FROM sections s JOIN docs d ON d.id = s.doc_id "
    "JOIN repos r ON r.id = d.repo_id WHERE s.id IN ({ids})"
)
_IDENTIFIER = re.compile(r"^(?=.*[^\W_])(?=.*[^\w\s]).+$")
_EDGE = "\"'`“”‘’,.;!?。，；！？()（）"


def identifiers(query: str) -> list[str]:
    """Whitespace-separated pieces of ``query`` mixing word characters and punctuation inside
    (``Arc<Mutex<T>>``, ``--dry-run``, ``std::env::var``), quotes and sentence punctuation at
    their ends removed, casefolded."""
    out: list[str] = []
    for piece in query.split():
        piece = piece.strip(_EDGE)
        if len(piece) >= 3 and _IDENTIFIER.match(piece) and not piece.isalnum():
            out.append(piece.casefold())
    return list(dict.fromkeys(out))


def _title_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def search(
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
    ranking: str = "question",
) -> list[SearchHit]:
    """Search sections; best first.

    Args:
        query: any user string (empty, punctuation-only or stop-words-only → no results).
        repo: ``NAME`` (its default version), ``NAME@VERSION``, ``NAME@*`` (every version), or
            ``None`` = the default version of every name (see :mod:`docmunch.index.versions`).
        limit: maximum number of hits (clamped to 1–200).
        doc_path: restrict to one document (exact doc_path).
        path_glob: ``fnmatch`` pattern on doc_path (``*`` also crosses ``/``; ``concepts/**``).
        min_level, max_level: inclusive heading-level range (0 = preamble).
        snippet_bytes: when > 0, each hit carries the first N bytes of its section (UTF-8 safe).
        ranking: ``"question"`` (default) or ``"legacy"`` (docmunch 0.1's AND-then-OR FTS5 BM25).

    Raises:
        RepoNotFound: ``repo`` is not indexed. UnknownVersion: NAME is, that version is not.
        ValueError: unknown ``ranking`` (programmer error).
    """
    if ranking == "legacy":
        return legacy_search(
            store, query, repo=repo, limit=limit, doc_path=doc_path, path_glob=path_glob,
            min_level=min_level, max_level=max_level, snippet_bytes=snippet_bytes,
        )
    if ranking != "question":
        raise ValueError(f"unknown ranking {ranking!r}; expected one of {RANKINGS}")
    scope = store.repo_scope(repo)
    if scope is not None:
        repo_ids = [row.id for row in scope]
    else:
        repo_ids = [row[0] for row in store.conn.execute("SELECT id FROM repos ORDER BY id")]
    limit = max(1, min(int(limit), 200))
    ranker = Ranker(store.conn, query, repo_ids)
    if ranker.empty:
        return []
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
    where = "".join(f" AND {f}" for f in filters)

    candidates = ranker.candidates(unbounded=bool(filters))
    chunk = max(RESCORE_CANDIDATES, limit * 2)
    scored: list[tuple[float, tuple[Any, ...]]] = []
    key = _title_key(query)
    for start in range(0, len(candidates), chunk):
        part = candidates[start : start + chunk]
        exact = ranker.rescore([sid for _, sid, _ in part])
        ids = list(exact)
        if not ids:
            continue
        rows = store.conn.execute(_ROW_SQL.format(ids=",".join("?" * len(ids))) + where, (*ids, *args))
        for row in rows.fetchall():
            value = exact[row[0]]
            if row[10] == key:
                value += EXACT_TITLE_BOOST
            scored.append((value, row))
        if len(scored) >= limit:
            break
    scored.sort(key=lambda item: (-item[0], item[1][1]))
    wanted = identifiers(query)
    if wanted:
        scored = _identifier_boost(store, scored, wanted)
    hits: list[SearchHit] = []
    for value, (_, sid, name, path, title, level, summary, start, end, raw_hash, _fold) in scored[:limit]:
        snippet = None
        if snippet_bytes > 0:
            data = store.raw.read_range(raw_hash, start, min(end, start + snippet_bytes))
            snippet = data.decode("utf-8", errors="ignore")
        hits.append(SearchHit(name, sid, title, level, path, round(value, 4), summary, start, end, snippet))
    return hits


def _identifier_boost(
    store: Store, scored: list[tuple[float, tuple[Any, ...]]], wanted: list[str]
) -> list[tuple[float, tuple[Any, ...]]]:
    """Re-sort the best :data:`IDENTIFIER_CHECKS` after adding :data:`IDENTIFIER_BOOST`."""
    head = scored[:IDENTIFIER_CHECKS]
    boosted: list[tuple[float, tuple[Any, ...]]] = []
    for value, row in head:
        data = store.raw.read_range(row[9], row[7], row[8]).decode("utf-8", errors="replace").casefold()
        found = sum(1 for ident in wanted if ident in data)
        boosted.append((value + IDENTIFIER_BOOST * found / len(wanted), row))
    boosted.sort(key=lambda item: (-item[0], item[1][1]))
    return boosted + scored[IDENTIFIER_CHECKS:]
