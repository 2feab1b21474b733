"""Opening a docmunch home: its folder, per-thread SQLite connections and the write transaction.

:class:`Connections` is the base of :class:`~docmunch.index.store.Store`: it creates the home
folder, opens the raw cache (``raw/``) and the database (:data:`DB_NAME`), passes the schema
version gate of :func:`docmunch.index.schema.ensure_schema` on opening (an index of an older
schema is migrated, its term index rebuilt from the stored documents), hands each thread its
own connection (WAL: readers never wait for the writer) and opens write transactions
(``BEGIN IMMEDIATE``). The reads and writes over those connections are the store's.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import platformdirs

from docmunch.errors import IndexStoreError
from docmunch.index.postings import TermCache
from docmunch.index.rawcache import RawCache
from docmunch.index.rebuild import rebuild_term_index
from docmunch.index.schema import connect, ensure_schema
from docmunch.index.termstats import TermStats

__all__ = ["DB_NAME", "Connections", "check_home", "default_home"]

DB_NAME = "index.sqlite3"


def default_home() -> Path:
    """``$DOCMUNCH_HOME`` when set, else ``platformdirs.user_data_dir("docmunch")``."""
    env = os.environ.get("DOCMUNCH_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("docmunch"))


def _not_a_folder(home: Path, exc: OSError) -> IndexStoreError:
    """The one-line error for a home that cannot be a folder because it, or a folder above it,
    is a file (or another non-folder); ``exc``'s own text when no such path is found."""
    file = next((p for p in (home, *home.parents) if p.exists() and not p.is_dir()), None)
    hint = "is a file, not a folder (set DOCMUNCH_HOME to a folder)"
    if file == home:
        message = f"docmunch home {home} {hint}"
    elif file is not None:
        message = f"cannot create docmunch home {home}: {file} {hint}"
    else:
        message = f"cannot create docmunch home {home}: {exc.strerror}"
    return IndexStoreError(message, path=str(home))


def check_home(home: Path) -> None:
    """Raise the error :class:`Connections` would raise for ``home`` when it, or a folder above
    it, is a file or a symbolic link to nothing; nothing is created. For a long-running front
    (``docmunch serve``) that opens the index only on first use, so that it can refuse to start
    instead of failing every call.

    Raises:
        IndexStoreError: ``home`` or one of its parents exists and is not a folder, or is a
            dangling (or looping) symbolic link.
    """
    for path in (home, *home.parents):
        if path.is_symlink() and not path.exists():  # dangling, or a loop
            raise IndexStoreError(
                f"docmunch home {home}: {path} is a symbolic link to nothing (a missing target, or a "
                "loop); point DOCMUNCH_HOME at a folder",
                path=str(home),
            )
    if any(p.exists() and not p.is_dir() for p in (home, *home.parents)):
        raise _not_a_folder(home, NotADirectoryError(20, "Not a directory"))


class Connections:
    """Home folder, raw cache and connections. One connection per thread (WAL: readers never wait)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        try:
            home.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:  # the home, or a folder above it, is a file
            check_home(home)  # a link to nothing says so
            raise _not_a_folder(home, exc) from None
        except OSError as exc:
            raise IndexStoreError(
                f"cannot create docmunch home {home}: {exc.strerror}", path=str(home)
            ) from None
        self.db_path = home / DB_NAME
        self.raw = RawCache(home / "raw")
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._terms = TermCache()
        ensure_schema(self.conn, self.db_path, rebuild=self._rebuild_terms)

    def _rebuild_terms(self, conn: sqlite3.Connection) -> str:
        """Migration step: derive the term index from the stored documents (one-line summary)."""
        report = rebuild_term_index(conn, self.raw)
        summary = f"{report.sections} sections of {report.docs} documents indexed"
        if report.unreadable:
            summary += (
                f"; {len(report.unreadable)} documents whose stored bytes are missing or changed have no "
                f"search terms (first: {report.unreadable[0]}): run docmunch verify and index them again"
            )
        return summary

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.db_path)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @property
    def term_stats(self) -> TermStats:
        """This thread's term statistics cache (for its :attr:`conn`; see :mod:`docmunch.index.termstats`)."""
        stats: TermStats | None = getattr(self._local, "term_stats", None)
        if stats is None:
            stats = self._local.term_stats = TermStats()
        return stats

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._lock:
            for conn in self._all:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._all.clear()
        self._local = threading.local()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): committed on success, rolled back on error."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise IndexStoreError(
                f"index database is busy or locked: {exc}", path=str(self.db_path)
            ) from None
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            self._terms.clear()  # term ids learnt in the rolled-back transaction are void
            raise
        conn.execute("COMMIT")
