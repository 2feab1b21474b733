"""The FTS5 table of the legacy ranking: filled on the first legacy search, then kept in step
by every write.

docmunch 0.1 searched with SQLite FTS5; that ranking stays selectable (``ranking="legacy"``,
:mod:`docmunch.index.legacy`) to compare the question ranking against. The question ranking
never reads ``sections_fts``, so indexing does not fill it: on k8s-en the table is 19 of the
index's 36 MB, and its rows cost the indexer about 0.7 s of CPU (each section's text copied
to the parent process a second time, then tokenised by FTS5).

A legacy search first fills the table with every repo not yet in it, from the stored sections
and raw bytes, in one write transaction, and records each repo in ``fts_repos``. Every repo,
whichever are searched: FTS5's ``bm25()`` takes its statistics over the whole table, and
docmunch 0.1's table held every repo. From then on every write of a recorded repo's
documents writes their rows too (:func:`add_rows`, inside the same transaction), so the
table is never stale. A document whose stored bytes are missing gets no rows (``docmunch
verify`` names it).

Row layout (one per section, ``rowid`` = the section's id): title, heading path (ancestor
titles joined by ``" > "``, at most :data:`MAX_PATH_DEPTH`), summary, body (the section's
bytes, decoded), all through :func:`~docmunch.index.text.fts_text`, and ``scope`` =
``r<repo id>``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docmunch.errors import DocmunchError
from docmunch.index.rawcache import RawCache
from docmunch.index.text import fts_text

__all__ = ["MAX_PATH_DEPTH", "FtsSection", "add_rows", "fill_repos", "filled", "rows_for", "unfilled"]

MAX_PATH_DEPTH = 16
"""Ancestor titles in a heading path (the same bound as the term index's heading paths)."""

FtsSection = tuple[str, str, str | None, str, int, int]
"""What a row needs of a section: ``(sid, title, parent sid, summary, byte_start, byte_end)``
(byte offsets into the stored document)."""

_INSERT = (
    "INSERT INTO sections_fts(rowid, title, heading_path, summary, body, scope) VALUES (?, ?, ?, ?, ?, ?)"
)


def rows_for(data: bytes, sections: Sequence[FtsSection]) -> list[tuple[str, str, str, str]]:
    """The FTS columns (title, heading path, summary, body) of one document's sections.

    Args:
        data: the stored document bytes.
        sections: its sections in document order.

    Returns:
        One ``(title, heading_path, summary, body)`` per section, same order.
    """
    titles = {s[0]: s[1] for s in sections}
    parents = {s[0]: s[2] for s in sections}
    out: list[tuple[str, str, str, str]] = []
    for _sid, title, parent, summary, start, end in sections:
        chain: list[str] = []
        while parent is not None and parent in titles and len(chain) < MAX_PATH_DEPTH:
            chain.append(titles[parent])
            parent = parents[parent]
        path = " > ".join(reversed(chain))
        body = data[start:end].decode("utf-8", errors="replace")
        out.append((fts_text(title), fts_text(path), fts_text(summary), fts_text(body)))
    return out


def filled(conn: sqlite3.Connection, repo_id: int) -> bool:
    """Whether the repo's sections are in the FTS table (and so must be written there too)."""
    return conn.execute("SELECT 1 FROM fts_repos WHERE repo_id = ?", (repo_id,)).fetchone() is not None


def unfilled(conn: sqlite3.Connection) -> list[int]:
    """Ids of the repos whose sections are not in the FTS table yet."""
    rows = conn.execute("SELECT id FROM repos WHERE id NOT IN (SELECT repo_id FROM fts_repos) ORDER BY id")
    return [int(row[0]) for row in rows]


def add_rows(
    conn: sqlite3.Connection, repo_id: int, first_rowid: int, data: bytes, sections: Sequence[FtsSection]
) -> None:
    """Insert one document's rows (its sections have the consecutive ids from ``first_rowid``)."""
    scope = f"r{repo_id}"
    conn.executemany(
        _INSERT, [(first_rowid + i, *row, scope) for i, row in enumerate(rows_for(data, sections))]
    )


def fill_repos(conn: sqlite3.Connection, raw: RawCache) -> list[str]:
    """Fill the FTS table with every repo not yet in it (:func:`unfilled`), inside the caller's
    write transaction.

    Returns:
        ``repo::doc_path`` of the documents whose stored bytes could not be read (no rows).
    """
    unreadable: list[str] = []
    for repo_id in unfilled(conn):
        docs = conn.execute(
            "SELECT d.id, d.raw_hash, d.doc_path, r.name FROM docs d JOIN repos r ON r.id = d.repo_id "
            "WHERE d.repo_id = ? ORDER BY d.id",
            (repo_id,),
        ).fetchall()
        scope = f"r{repo_id}"
        for doc_id, raw_hash, doc_path, name in docs:
            sections = conn.execute(
                "SELECT id, sid, title, parent_sid, summary, byte_start, byte_end FROM sections "
                "WHERE doc_id = ? ORDER BY ord",
                (doc_id,),
            ).fetchall()
            if not sections:
                continue
            try:
                data = raw.read_all(raw_hash)
            except (DocmunchError, OSError):
                unreadable.append(f"{name}::{doc_path}")
                continue
            rows = rows_for(data, [(s[1], s[2], s[3], s[4], s[5], s[6]) for s in sections])
            conn.executemany(
                _INSERT, [(int(s[0]), *row, scope) for s, row in zip(sections, rows, strict=True)]
            )
        conn.execute("INSERT INTO fts_repos(repo_id) VALUES (?)", (repo_id,))
    return unreadable
