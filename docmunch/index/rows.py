"""The rows of one repo and of one document: inserted, replaced and deleted inside the caller's
write transaction.

:class:`~docmunch.index.store.Store` opens the transaction, puts the raw bytes in the cache
first and discards the raw files no row refers to after the commit; the functions here only
run the SQL: a repo row (:func:`upsert_repo`, :func:`drop_repo_rows` with everything under
it), a document's ``docs``, ``sections``, ``blocks`` and search rows (:func:`write_doc`,
:func:`delete_doc_rows`, :func:`delete_docs` for many at once). Times are written as
:func:`utc_now` formats them.

Replacing stored documents: a batch first takes all of them out of the term index at once
(:func:`clear_terms`, one pass over the postings of the terms they held), then writes each.
Taking them out one by one read every segment of each of a document's terms once per
document — and, flushing the batch's queued postings before each, made a new segment per
document — so re-indexing k8s-zh's 148 files over themselves (``--full``) spent 1.4 million
postings filters and ~100 s instead of ~3 s.

Removing documents (files deleted from a folder) is the same: :func:`delete_docs` takes them all
out of the term index in one pass, then deletes their rows. One transaction and one term-index
pass per document made deleting 1,000 of k8s-en's 1,434 files and re-indexing take 13–20 s
(a cold index of the whole folder: ~8 s); now ~1.1 s.
"""

from __future__ import annotations

import datetime
import sqlite3
import time
from collections.abc import Sequence

from docmunch.index import fts, versions
from docmunch.index.document import PreparedDoc
from docmunch.index.postings import TermCache, TermWriter, delete_section_terms

__all__ = [
    "clear_terms",
    "delete_doc_rows",
    "delete_docs",
    "drop_repo_rows",
    "is_utc_time",
    "upsert_repo",
    "utc_now",
    "write_doc",
]

_CHUNK = 500
"""Ids or paths per ``IN (…)`` list (below SQLite's default limit of 999 variables)."""


def utc_now() -> str:
    """Current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def is_utc_time(value: str) -> bool:
    """Whether ``value`` is an ISO 8601 time in UTC (``…Z`` or ``+00:00``), as :func:`utc_now` writes."""
    try:
        when = datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return when.utcoffset() == datetime.timedelta(0)


def upsert_repo(
    conn: sqlite3.Connection,
    repo: str,
    source: str | None,
    *,
    origin: tuple[str | None, str | None] | None = None,
) -> int:
    """Insert or touch a repo row; ``origin`` = ``(ref, commit)`` to record (``None``: keep).

    Returns the repo's row id. Raises InvalidRepoName when a new repo's name breaks the rules
    of :mod:`docmunch.index.versions`.
    """
    row = conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
    ref, commit = origin or (None, None)
    if row is None:
        base, version = versions.check_new_name(repo)
        cur = conn.execute(
            "INSERT INTO repos(name, source, indexed_at, base, version, ref, commit_sha) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (repo, source or "", utc_now(), base, version, ref, commit),
        )
        return int(cur.lastrowid or 0)
    if source is not None:
        conn.execute("UPDATE repos SET source = ?, indexed_at = ? WHERE id = ?", (source, utc_now(), row[0]))
    else:
        conn.execute("UPDATE repos SET indexed_at = ? WHERE id = ?", (utc_now(), row[0]))
    if origin is not None:
        conn.execute("UPDATE repos SET ref = ?, commit_sha = ? WHERE id = ?", (ref, commit, row[0]))
    return int(row[0])


def drop_repo_rows(conn: sqlite3.Connection, repo_id: int, term_cache: TermCache) -> list[str]:
    """Delete a repo's rows (documents, sections, search data, the repo) inside the caller's
    transaction, and forget the term ids ``term_cache`` learnt; returns the raw hashes its
    documents referred to."""
    docs = conn.execute("SELECT id, raw_hash FROM docs WHERE repo_id = ?", (repo_id,)).fetchall()
    # The repo's whole term index goes at once (no per-document edits of its postings).
    conn.execute("DELETE FROM section_terms WHERE repo_id = ?", (repo_id,))
    conn.execute("DELETE FROM postings WHERE term_id IN (SELECT id FROM terms WHERE repo_id = ?)", (repo_id,))
    conn.execute("DELETE FROM terms WHERE repo_id = ?", (repo_id,))
    conn.execute("DELETE FROM repo_stats WHERE repo_id = ?", (repo_id,))
    conn.execute("DELETE FROM common_terms WHERE repo_id = ?", (repo_id,))
    conn.execute("DELETE FROM fts_repos WHERE repo_id = ?", (repo_id,))
    term_cache.clear()
    for doc_id, _ in docs:
        delete_doc_rows(conn, int(doc_id), keep_doc=False, terms=False)
    conn.execute("DELETE FROM repos WHERE id = ?", (repo_id,))
    return [str(h) for _, h in docs]


def clear_terms(conn: sqlite3.Connection, repo_id: int, doc_paths: Sequence[str]) -> set[int]:
    """Take the stored documents of ``repo_id`` at ``doc_paths`` out of the term index in one pass
    (their other rows stay until :func:`write_doc` replaces them, in the same transaction).

    Returns:
        The ids of the documents cleared (paths not stored are ignored); pass the set to
        :func:`write_doc` as ``cleared``.
    """
    doc_ids = [doc_id for doc_id, _path, _raw in _stored_docs(conn, repo_id, doc_paths)]
    _clear_doc_terms(conn, doc_ids)
    return set(doc_ids)


def delete_docs(conn: sqlite3.Connection, repo_id: int, doc_paths: Sequence[str]) -> list[tuple[str, str]]:
    """Delete the stored documents of ``repo_id`` at ``doc_paths`` with all their rows: one pass
    over the term index for all of them (:func:`clear_terms`), then each one's other rows.

    Returns:
        ``(doc_path, raw_hash)`` of each document deleted (paths not stored are ignored); the
        caller discards the raw files no document refers to any more.
    """
    stored = _stored_docs(conn, repo_id, doc_paths)
    _clear_doc_terms(conn, [doc_id for doc_id, _path, _raw in stored])
    for doc_id, _path, _raw in stored:
        delete_doc_rows(conn, doc_id, keep_doc=False, terms=False)
    return [(path, raw) for _doc_id, path, raw in stored]


def _stored_docs(
    conn: sqlite3.Connection, repo_id: int, doc_paths: Sequence[str]
) -> list[tuple[int, str, str]]:
    """``(id, doc_path, raw_hash)`` of the documents of ``repo_id`` stored at ``doc_paths``."""
    paths = list(dict.fromkeys(doc_paths))
    found: list[tuple[int, str, str]] = []
    for start in range(0, len(paths), _CHUNK):
        chunk = paths[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        found.extend(
            (int(row[0]), str(row[1]), str(row[2]))
            for row in conn.execute(
                f"SELECT id, doc_path, raw_hash FROM docs WHERE repo_id = ? AND doc_path IN ({marks})",
                (repo_id, *chunk),
            )
        )
    return found


def _clear_doc_terms(conn: sqlite3.Connection, doc_ids: Sequence[int]) -> None:
    """Take the documents ``doc_ids`` (all their sections) out of the term index in one pass."""
    if not doc_ids:
        return
    section_ids: list[int] = []
    for start in range(0, len(doc_ids), _CHUNK):
        chunk_ids = list(doc_ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk_ids))
        found = conn.execute(f"SELECT id FROM sections WHERE doc_id IN ({marks})", chunk_ids)
        section_ids.extend(int(row[0]) for row in found)
    delete_section_terms(conn, section_ids, doc_ids)


def write_doc(
    conn: sqlite3.Connection,
    repo_id: int,
    doc: PreparedDoc,
    terms: TermWriter,
    *,
    legacy: bool,
    cleared: set[int] | None = None,
) -> list[str]:
    """Insert or replace one prepared document (its legacy FTS rows too when ``legacy``: the
    repo's FTS table is filled, :mod:`docmunch.index.fts`); returns the raw hash it replaced
    (if any).

    ``cleared``: ids of documents already out of the term index (:func:`clear_terms`); the
    replaced document's id is removed from it, so a second copy of one document in a batch
    takes the first copy's queued terms out the slow way.
    """
    old = conn.execute(
        "SELECT id, raw_hash FROM docs WHERE repo_id = ? AND doc_path = ?", (repo_id, doc.doc_path)
    ).fetchone()
    values = (*doc.values, utc_now())
    if old is None:
        cur = conn.execute(
            "INSERT INTO docs(title, source_kind, source_ref, source_hash, raw_hash, bytes, meta, "
            "indexed_at, repo_id, doc_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, repo_id, doc.doc_path),
        )
        doc_id = int(cur.lastrowid or 0)
    else:
        doc_id = int(old[0])
        if cleared is not None and doc_id in cleared:
            cleared.discard(doc_id)
            delete_doc_rows(conn, doc_id, keep_doc=True, terms=False)
        else:
            terms.flush()  # the old rows may still be queued (same document twice in one batch)
            delete_doc_rows(conn, doc_id, keep_doc=True)
        conn.execute(
            "UPDATE docs SET title = ?, source_kind = ?, source_ref = ?, source_hash = ?, "
            "raw_hash = ?, bytes = ?, meta = ?, indexed_at = ? WHERE id = ?",
            (*values, doc_id),
        )
    first = _next_section_rowid(conn)
    conn.executemany(
        "INSERT INTO sections(id, doc_id, ord, sid, title, title_fold, level, parent_sid, slug, "
        "byte_start, byte_end, subtree_end, content_hash, summary, token_estimate, line, anchor, "
        "locator, title_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(first + i, doc_id, i, *row) for i, row in enumerate(doc.section_rows)],
    )
    if legacy:
        sections = [(r[0], r[1], r[4], r[10], r[6], r[7]) for r in doc.section_rows]
        fts.add_rows(conn, repo_id, first, doc.data, sections)
    terms.add(repo_id, doc_id, first, doc.term_rows, doc.doc_terms)
    conn.executemany(
        "INSERT INTO blocks(doc_id, ord, md_start, md_end, kind, text, positions) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(doc_id, *row) for row in doc.block_rows],
    )
    return [old[1]] if old is not None and old[1] != doc.raw_hash else []


def _next_section_rowid(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM sections").fetchone()[0])


def delete_doc_rows(conn: sqlite3.Connection, doc_id: int, *, keep_doc: bool, terms: bool = True) -> None:
    """Delete a document's rows; ``terms=False`` when the caller drops its repo's term index whole."""
    if terms:
        section_ids = [row[0] for row in conn.execute("SELECT id FROM sections WHERE doc_id = ?", (doc_id,))]
        delete_section_terms(conn, section_ids, [doc_id])
    conn.execute(
        "DELETE FROM sections_fts WHERE rowid IN (SELECT id FROM sections WHERE doc_id = ?)", (doc_id,)
    )
    conn.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
    conn.execute("DELETE FROM blocks WHERE doc_id = ?", (doc_id,))
    if not keep_doc:
        conn.execute("DELETE FROM docs WHERE id = ?", (doc_id,))
