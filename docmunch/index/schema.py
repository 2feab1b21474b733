"""SQLite schema, connection settings and the schema version gate.

One database ``index.sqlite3`` in WAL mode: readers never block on the writer, and a commit
is all-or-nothing, so a crash or ``kill -9`` at any point leaves the last committed state
readable. Writers take the lock up front (``BEGIN IMMEDIATE``) and wait up to
:data:`BUSY_TIMEOUT_MS` for another writer instead of failing.

Full-text search uses one FTS5 table with the ``unicode61`` tokenizer (wrapped in FTS5's
``porter`` stemmer, which only changes ASCII words). unicode61 treats a run
of Han/Kana/Hangul characters as one token, so a Chinese sentence would only match itself;
docmunch therefore indexes CJK text with a space around every CJK character (see
:mod:`docmunch.index.text`) and queries CJK runs as phrases of single characters. Unlike the
``trigram`` tokenizer this also finds one- and two-character words (``调度``, ``库``).
The ``scope`` column holds one token per section, ``r<repo id>``, so a repo filter is an
FTS5 term intersection instead of a join over every match.

Schema history (``PRAGMA user_version``): 1 — the first release; 2 — versioned doc sets
(:mod:`docmunch.index.versions`: ``repos`` gains ``base``, ``version``, ``ref``,
``commit_sha`` and ``pinned``) and the term index of question search (``terms``,
``postings``, ``section_terms``, ``repo_stats``); 3 — the term index keeps each term's
postings as blobs in segments (``postings(id, term_id, sections, docs)``, sections and
documents, :mod:`docmunch.index.postings`) instead of one row per posting, with
document-level impacts and new section priors; 4 — ``sections_fts`` (the legacy ranking's
table) holds only the repos listed in ``fts_repos``, filled on their first legacy search
(:mod:`docmunch.index.fts`); indexing no longer writes it for the others; 5 — ``sections``
gains ``title_key`` (the title's distinct query terms, sorted:
:func:`docmunch.index.analyze.title_key`, indexed) and link lists get the non-content prior
(:mod:`docmunch.index.priors`), so the term index is rebuilt; 6 — ``common_terms``, the
terms most of a repo's documents hold (:func:`docmunch.index.postings.refresh_common_terms`),
filled from the stored postings.

Older indexes are migrated in place, in one transaction, with a line on stderr: schema 1
gains the version columns, every older schema gains ``title_key``, the term index and the
title keys are rebuilt from the stored sections and raw bytes by the caller's ``rebuild`` step
(:mod:`docmunch.index.rebuild`), and every repo of schemas 1–3 is listed in ``fts_repos``
(those schemas wrote every section to ``sections_fts``, so their rows are complete and stay).
"""

from __future__ import annotations

import re
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

from docmunch.errors import IndexStoreError, SchemaVersionError
from docmunch.index.postings import refresh_common_terms
from docmunch.index.versions import split_name

__all__ = ["BUSY_TIMEOUT_MS", "CACHE_KIB", "MIGRATABLE_SCHEMAS", "SCHEMA_VERSION", "connect", "ensure_schema"]

SCHEMA_VERSION = 6
"""Bumped whenever the tables below change incompatibly (stored in ``PRAGMA user_version``)."""

CACHE_KIB = 65_536
"""SQLite page cache per connection (KiB; SQLite's default is 2,000): indexing rewrites the
postings blobs of the terms a batch touches, and a cache that holds them avoids re-reading pages."""

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another writer's transaction before giving up."""

_DDL = """
CREATE TABLE repos (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    source      TEXT NOT NULL,
    indexed_at  TEXT NOT NULL,
    base        TEXT NOT NULL DEFAULT '',
    version     TEXT,
    ref         TEXT,
    commit_sha  TEXT,
    pinned      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX repos_base ON repos(base);
CREATE TABLE docs (
    id           INTEGER PRIMARY KEY,
    repo_id      INTEGER NOT NULL REFERENCES repos(id),
    doc_path     TEXT NOT NULL,
    title        TEXT NOT NULL,
    source_kind  TEXT NOT NULL,
    source_ref   TEXT,
    source_hash  TEXT NOT NULL,
    raw_hash     TEXT NOT NULL,
    bytes        INTEGER NOT NULL,
    meta         TEXT NOT NULL,
    indexed_at   TEXT NOT NULL,
    UNIQUE (repo_id, doc_path)
);
CREATE INDEX docs_raw_hash ON docs(raw_hash);
CREATE TABLE sections (
    id             INTEGER PRIMARY KEY,
    doc_id         INTEGER NOT NULL REFERENCES docs(id),
    ord            INTEGER NOT NULL,
    sid            TEXT NOT NULL UNIQUE,
    title          TEXT NOT NULL,
    title_fold     TEXT NOT NULL,
    level          INTEGER NOT NULL,
    parent_sid     TEXT,
    slug           TEXT NOT NULL,
    byte_start     INTEGER NOT NULL,
    byte_end       INTEGER NOT NULL,
    subtree_end    INTEGER NOT NULL,
    content_hash   TEXT NOT NULL,
    summary        TEXT NOT NULL,
    token_estimate INTEGER NOT NULL,
    line           INTEGER NOT NULL,
    anchor         TEXT,
    locator        TEXT,
    title_key      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sections_doc ON sections(doc_id, ord);
CREATE INDEX sections_title_key ON sections(title_key);
CREATE TABLE blocks (
    doc_id     INTEGER NOT NULL REFERENCES docs(id),
    ord        INTEGER NOT NULL,
    md_start   INTEGER NOT NULL,
    md_end     INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    positions  TEXT NOT NULL,
    PRIMARY KEY (doc_id, ord)
);
CREATE TABLE counters (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
);
CREATE INDEX sections_title ON sections(title_fold);
CREATE VIRTUAL TABLE sections_fts USING fts5(
    title, heading_path, summary, body, scope,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE fts_repos (
    repo_id  INTEGER PRIMARY KEY
);
"""

_TERM_DDL = """
CREATE TABLE terms (
    id       INTEGER PRIMARY KEY,
    repo_id  INTEGER NOT NULL,
    term     TEXT NOT NULL,
    UNIQUE (repo_id, term)
);
CREATE TABLE postings (
    id        INTEGER PRIMARY KEY,
    term_id   INTEGER NOT NULL,
    sections  BLOB NOT NULL,
    docs      BLOB NOT NULL
);
CREATE INDEX postings_term ON postings(term_id);
CREATE TABLE section_terms (
    section_id  INTEGER PRIMARY KEY,
    repo_id     INTEGER NOT NULL,
    prior       REAL NOT NULL,
    terms       BLOB NOT NULL
);
CREATE INDEX section_terms_repo ON section_terms(repo_id);
CREATE TABLE repo_stats (
    repo_id   INTEGER PRIMARY KEY,
    sections  INTEGER NOT NULL
);
CREATE TABLE common_terms (
    repo_id   INTEGER NOT NULL,
    term      TEXT NOT NULL,
    PRIMARY KEY (repo_id, term)
) WITHOUT ROWID;
"""
"""The term index of question search (:mod:`docmunch.index.postings`)."""

Rebuild = Callable[[sqlite3.Connection], str]
"""Fills the empty term tables inside the migration's transaction; returns a short summary."""


def connect(db_path: Path) -> sqlite3.Connection:
    """Open ``db_path`` with docmunch's settings (WAL, busy timeout, autocommit mode).

    The connection is in autocommit mode (``isolation_level=None``): callers open their own
    ``BEGIN IMMEDIATE`` transactions for writes. ``check_same_thread`` is off because the
    owning :class:`~docmunch.index.Index` hands each thread its own connection.

    Raises:
        IndexStoreError: the file is not a usable SQLite database.
    """
    try:
        conn = sqlite3.connect(
            str(db_path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = _wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("PRAGMA foreign_keys = OFF")
    except sqlite3.DatabaseError as exc:
        raise IndexStoreError(f"cannot open index database {db_path}: {exc}", path=str(db_path)) from None
    if str(mode).lower() != "wal":
        conn.close()
        raise IndexStoreError(f"index database {db_path} cannot use WAL mode ({mode})", path=str(db_path))
    conn.create_function("dm_regexp", 2, _regexp, deterministic=True)
    return conn


WAL_RETRY_S = 0.02
"""Pause between two attempts to switch a database to WAL while another connection holds it."""


def _wal(conn: sqlite3.Connection) -> str:
    """``PRAGMA journal_mode = WAL``, retried for up to :data:`BUSY_TIMEOUT_MS`.

    Switching a new database to WAL needs an exclusive lock, and SQLite answers "database is
    locked" at once, without its busy handler, when two connections both want to upgrade
    their lock (its deadlock rule): two ``docmunch index`` runs starting together on a new
    home hit that. Returns the journal mode SQLite reports.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)


def ensure_schema(conn: sqlite3.Connection, db_path: Path, *, rebuild: Rebuild | None = None) -> None:
    """Create the tables in an empty database, migrate an older one, or refuse another version.

    Args:
        conn: the connection (autocommit mode).
        db_path: the database file (for messages).
        rebuild: fills the term index after a migration that (re)created it; without it an
            index that needs one is refused like an unknown schema.

    Raises:
        SchemaVersionError: the database was written by a schema this code cannot migrate.
        IndexStoreError: the file is not a SQLite database.
    """
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if version == 0 and tables == 0:
                _run(conn, _DDL + _TERM_DDL)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
                return
            if version in _MIGRATIONS and rebuild is not None:
                _migrate(conn, db_path, version, rebuild)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
                return
            conn.execute("ROLLBACK")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as exc:
        if "fts5" in str(exc):
            raise IndexStoreError(
                f"this Python's SQLite {sqlite3.sqlite_version} has no FTS5 full-text module; "
                "docmunch needs a Python built with FTS5 (the python.org and distribution builds have it)",
                path=str(db_path),
            ) from None
        raise IndexStoreError(f"cannot read index database {db_path}: {exc}", path=str(db_path)) from None
    if version == SCHEMA_VERSION:
        return
    why = _CHANGES.get(version, "")
    raise SchemaVersionError(
        f"index at {db_path} was written by schema {version}, this docmunch needs {SCHEMA_VERSION}{why}; "
        f"move or delete {db_path.parent} (or set DOCMUNCH_HOME to a new folder) and index your docs again",
        path=str(db_path),
    )


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Schema 1 → 2, inside the caller's transaction: add the version columns to ``repos``.

    Each name is split leniently (:func:`~docmunch.index.versions.split_name`): a schema-1
    repo called ``httpx@0.27.0`` becomes version ``0.27.0`` of ``httpx`` (which is what that
    name now means anyway), any other name stays unversioned and keeps its exact name, ids
    and rows. GitHub repos get ``commit_sha`` from their source (``github:o/n@<sha>``) and
    ``ref`` from their documents' stored ``github_ref``.
    """
    for column in (
        "base TEXT NOT NULL DEFAULT ''",
        "version TEXT",
        "ref TEXT",
        "commit_sha TEXT",
        "pinned INTEGER NOT NULL DEFAULT 0",
    ):
        conn.execute(f"ALTER TABLE repos ADD COLUMN {column}")
    conn.execute("CREATE INDEX repos_base ON repos(base)")
    for rid, name, source in conn.execute("SELECT id, name, source FROM repos").fetchall():
        base, version = split_name(name)
        commit = None
        if source.startswith("github:") and "@" in source:
            commit = source.rsplit("@", 1)[1] or None
        ref = conn.execute(
            "SELECT json_extract(meta, '$.github_ref') FROM docs WHERE repo_id = ? LIMIT 1", (rid,)
        ).fetchone()
        conn.execute(
            "UPDATE repos SET base = ?, version = ?, commit_sha = ?, ref = ? WHERE id = ?",
            (base, version, commit, ref[0] if ref else None, rid),
        )


def _drop_term_index(conn: sqlite3.Connection) -> None:
    """Drop the term tables of schema 2 (rebuilt in the new layout); the step of schema 2 → 3."""
    for table in ("postings", "section_terms", "repo_stats", "terms", "common_terms"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")


def _run(conn: sqlite3.Connection, ddl: str) -> None:
    for statement in ddl.split(";"):
        if statement.strip():
            conn.execute(statement)


def _migrate(conn: sqlite3.Connection, db_path: Path, version: int, rebuild: Rebuild) -> None:
    """Bring schema ``version`` to :data:`SCHEMA_VERSION` inside the caller's transaction."""
    started = time.perf_counter()
    sections = conn.execute("SELECT count(*) FROM sections").fetchone()[0]
    terms = version in _TERM_REBUILDS
    sys.stderr.write(
        f"docmunch: upgrading the index at {db_path} from schema {version} to {SCHEMA_VERSION}"
        f"{_CHANGES.get(version, '')}"
        + (f": rebuilding the search terms of {sections} sections…\n" if terms else "…\n")
    )
    sys.stderr.flush()
    _MIGRATIONS[version](conn)
    if version < 5:
        _add_title_keys(conn)
    summary = ""
    if terms:
        _drop_term_index(conn)  # whatever an older layout left, the term index is rebuilt whole
        _run(conn, _TERM_DDL)
        summary = rebuild(conn)
    if version < 4:
        _list_fts_repos(conn)
    sys.stderr.write(
        f"docmunch: index upgraded to schema {SCHEMA_VERSION} in {time.perf_counter() - started:.1f} s"
        f"{'; ' + summary if summary else ''}\n"
    )


def _list_fts_repos(conn: sqlite3.Connection) -> None:
    """The last step from schemas 1–3: list every repo in ``fts_repos`` (those schemas wrote
    every section to ``sections_fts``)."""
    conn.execute("CREATE TABLE IF NOT EXISTS fts_repos (repo_id INTEGER PRIMARY KEY)")
    conn.execute("INSERT OR IGNORE INTO fts_repos(repo_id) SELECT id FROM repos")


def _add_title_keys(conn: sqlite3.Connection) -> None:
    """The step of every schema before 5: the ``title_key`` column (empty until the term
    index rebuild fills it, in the same transaction) and its index."""
    conn.execute("ALTER TABLE sections ADD COLUMN title_key TEXT NOT NULL DEFAULT ''")
    conn.execute("CREATE INDEX sections_title_key ON sections(title_key)")


def _add_common_terms(conn: sqlite3.Connection) -> None:
    """Schema 5 → 6: the ``common_terms`` table, filled for every repo from its postings."""
    conn.execute(
        "CREATE TABLE common_terms (repo_id INTEGER NOT NULL, term TEXT NOT NULL, "
        "PRIMARY KEY (repo_id, term)) WITHOUT ROWID"
    )
    for (repo_id,) in conn.execute("SELECT id FROM repos").fetchall():
        refresh_common_terms(conn, int(repo_id))


def _no_step(conn: sqlite3.Connection) -> None:
    """Schemas 3 and 4 have nothing of their own to change (3: only :func:`_list_fts_repos`)."""


_MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_1_to_2,
    2: _drop_term_index,
    3: _no_step,
    4: _no_step,
    5: _add_common_terms,
}
"""Schema version → its own step towards :data:`SCHEMA_VERSION` (then, for
:data:`_TERM_REBUILDS`, the term index is created and rebuilt, and the FTS repos are listed;
all in one transaction)."""

_TERM_REBUILDS = frozenset({1, 2, 3, 4})
"""Schemas whose term index is rebuilt by the migration (all: schema 5 changed the priors and
fills ``title_key`` while rebuilding)."""

MIGRATABLE_SCHEMAS = frozenset(_MIGRATIONS)
"""Older schemas an index is upgraded from in place (the rest are refused)."""

_CHANGES = {
    1: " (versioned repos, question search)",
    2: " (question search with document evidence, compact postings)",
    3: " (the legacy ranking's full-text table filled on its first use)",
    4: " (titles matched by their words, link lists ranked as navigation)",
    5: " (the words most of a repo's pages share, for matching titles)",
}
"""What an older schema lacks, named in the migration and the gate's messages."""

_REGEX_CACHE: dict[str, re.Pattern[str]] = {}


def _regexp(pattern: str, value: str | None) -> bool:
    """SQL function ``dm_regexp(pattern, value)``: ``re.fullmatch`` with a small compile cache."""
    if value is None:
        return False
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is None:
        if len(_REGEX_CACHE) > 256:
            _REGEX_CACHE.clear()
        compiled = _REGEX_CACHE[pattern] = re.compile(pattern)
    return compiled.fullmatch(value) is not None
