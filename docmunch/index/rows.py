"""The rows of one repo and of one document: inserted, replaced and deleted inside the caller's
write transaction.

:class:`~docmunch.index.store.Store` opens the transaction, puts the raw bytes in the cache
first and discards the raw files no row refers to after the commit; the functions here only
run the SQL: a repo row (:func:`upsert_repo`, :func:`drop_repo_rows` with everything under
it), a document's ``docs``, ``sections``, ``blocks`` and search rows (:func:`write_doc`,
:func:`delete_doc_rows`). Times are written as :func:`utc_now` formats them.
"""

from __future__ import annotations

import datetime
import sqlite3
import time

from docmunch.index import fts, versions
from docmunch.index.document import PreparedDoc
from docmunch.index.postings import TermCache, TermWriter, delete_section_terms

__all__ = ["delete_doc_rows", "drop_repo_rows", "is_utc_time", "upsert_repo", "utc_now", "write_doc"]


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


def write_doc(
    conn: sqlite3.Connection, repo_id: int, doc: PreparedDoc, terms: TermWriter, *, legacy: bool
) -> list[str]:
    """Insert or replace one prepared document (its legacy FTS rows too when ``legacy``: the
    repo's FTS table is filled, :mod:`docmunch.index.fts`); returns the raw hash it replaced
    (if any)."""
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
