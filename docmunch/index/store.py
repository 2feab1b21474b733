"""The store: a docmunch home's reads and writes (repos, documents, counters, raw-cache clean-up).

:class:`Store` is what the rest of the index calls. Opening a home (its folder, per-thread
SQLite connections, the write transaction, the schema gate) is its base,
:class:`~docmunch.index.connections.Connections`; the SQL of a repo's and a document's rows
is :mod:`docmunch.index.rows`. The order of every write is here.

Atomicity: a document is written in ONE transaction (``BEGIN IMMEDIATE`` … ``COMMIT``) after
its bytes are safely in the raw cache (fsync + rename). Readers see the old document or the
new one, never a mix; a crash leaves at most an unreferenced raw cache file. Raw files that
no document refers to any more are deleted after the commit that dropped the last reference,
in a second write transaction (see :meth:`Store._discard_unreferenced` for why that is safe
with concurrent writers).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence

from docmunch.errors import IndexStoreError, RepoExists
from docmunch.formats.base import Rendition
from docmunch.index import fts, rows, versions
from docmunch.index.connections import Connections
from docmunch.index.document import PreparedDoc, prepare_document
from docmunch.index.postings import TermWriter, compact, refresh_common_terms
from docmunch.index.records import DocState
from docmunch.index.versions import RepoRow

__all__ = ["Store", "check_repo_name"]


def check_repo_name(repo: str) -> None:
    """Raise IndexStoreError unless ``repo`` is a usable repo name (non-empty, no ``::``)."""
    if not repo or repo != repo.strip() or "::" in repo:
        raise IndexStoreError(f"invalid repo name {repo!r}: it must be non-empty and contain no '::'")


class Store(Connections):
    """A home's reads and writes over the connections of :class:`Connections`."""

    # --- lookups -----------------------------------------------------------------------
    def repo_id(self, repo: str) -> int:
        """Row id of the repo stored under exactly the full name ``repo``. Raises RepoNotFound."""
        row = self.conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
        if row is None:
            raise versions.not_found(self.conn, repo)
        return int(row[0])

    def resolve_repo(self, repo: str, *, section_id: str | None = None) -> RepoRow:
        """The stored repo a user's ``NAME``, ``NAME@VERSION`` means: the one place every command
        and tool resolves a repo argument (rules in :mod:`docmunch.index.versions`).

        Raises:
            RepoNotFound, UnknownVersion (lists the known versions), InvalidRepoName (``NAME@*``).
        """
        return versions.resolve(self.conn, repo, section_id=section_id)

    def repo_scope(self, repo: str | None) -> list[RepoRow] | None:
        """The repos a search or delete over ``repo`` covers (``NAME@*`` = every version; ``None`` =
        every name's default version, or ``None`` when that is every repo). See :func:`versions.scope`."""
        return versions.scope(self.conn, repo)

    def document_state(self, repo: str, doc_path: str) -> DocState | None:
        """What is stored for one document, or ``None`` (also when the repo does not exist)."""
        row = self.conn.execute(
            "SELECT d.doc_path, d.source_hash, d.raw_hash, d.meta, d.indexed_at FROM docs d "
            "JOIN repos r ON r.id = d.repo_id WHERE r.name = ? AND d.doc_path = ?",
            (repo, doc_path),
        ).fetchone()
        if row is None:
            return None
        return DocState(row[0], row[1], row[2], json.loads(row[3]), row[4])

    def source_hashes(self, repo: str) -> dict[str, tuple[str, str]]:
        """``{doc_path: (source_hash, raw_hash)}`` of every document of ``repo`` (empty for a new repo)."""
        cursor = self.conn.execute(
            "SELECT d.doc_path, d.source_hash, d.raw_hash FROM docs d JOIN repos r ON r.id = d.repo_id "
            "WHERE r.name = ?",
            (repo,),
        )
        return {path: (src, raw) for path, src, raw in cursor.fetchall()}

    # --- writes ------------------------------------------------------------------------
    def ensure_repo(
        self, repo: str, *, source: str, ref: str | None = None, commit: str | None = None
    ) -> None:
        """Create ``repo`` (or update its source) with an ``indexed_at`` of now.

        Args:
            repo: full name, ``NAME`` or ``NAME@VERSION`` (checked when the repo is new).
            source: folder, file, URL or ``github:o/n@sha``.
            ref: the git ref asked for (``None``: the default branch, or not a git source).
            commit: the commit SHA that ref resolved to.

        Raises:
            InvalidRepoName: a new repo's name breaks the rules of :mod:`docmunch.index.versions`.
        """
        with self.write() as conn:
            rows.upsert_repo(conn, repo, source, origin=(ref, commit))

    def set_default(self, repo: str | None, *, base: str | None = None) -> None:
        """Pin the full name ``repo`` as its group's default, or (``repo=None``) unpin ``base``'s.
        See :func:`docmunch.index.versions.pin_default` (errors)."""
        with self.write() as conn:
            versions.pin_default(conn, repo, base=base)

    def rename_repo(self, old: str, new: str) -> None:
        """Give the repo stored as ``old`` the full name ``new``, rewriting its section ids in one
        transaction. See :func:`docmunch.index.versions.rename` (errors)."""
        with self.write() as conn:
            versions.rename(conn, old, new)

    def load_repo(
        self,
        repo: str,
        docs: Sequence[PreparedDoc],
        *,
        source: str,
        origin: tuple[str | None, str | None],
        replace: bool,
        indexed_at: str | None = None,
    ) -> None:
        """Write a whole repo in ONE transaction (pack import): all its documents or nothing.

        Args:
            repo: full name of the repo to create.
            docs: prepared documents whose raw files are already in the cache (pending fsync).
            source, origin: the repo's source and ``(ref, commit)``.
            replace: delete an existing repo of that name in the same transaction; without it an
                existing repo is an error.
            indexed_at: when the documents were indexed (ISO 8601 UTC, as the pack records it),
                kept so that "newest indexed" (the default version) means the same after an
                import; ``None`` or an unreadable value: now.

        Raises:
            RepoExists: ``repo`` exists and ``replace`` is false. InvalidRepoName, IndexStoreError.
        """
        self.raw.sync(d.pending for d in docs if d.pending is not None)
        dropped: list[str] = []
        try:
            with self.write() as conn:
                row = conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
                if row is not None:
                    if not replace:
                        raise RepoExists(
                            f"repo {repo!r} already exists; pass --replace to overwrite it, or import "
                            "it under another name with --as NAME@VERSION",
                            repo=repo,
                        )
                    dropped.extend(rows.drop_repo_rows(conn, int(row[0]), self._terms))
                repo_id = rows.upsert_repo(conn, repo, source, origin=origin)
                if indexed_at is not None and rows.is_utc_time(indexed_at):
                    conn.execute("UPDATE repos SET indexed_at = ? WHERE id = ?", (indexed_at, repo_id))
                terms = TermWriter(conn, self._terms)
                for doc in docs:
                    if not self.raw.path_for(doc.raw_hash).is_file():
                        self.raw.put(doc.data, sync=True)
                    rows.write_doc(conn, repo_id, doc, terms, legacy=False)  # a new repo: not filled
                terms.flush()
                refresh_common_terms(conn, repo_id)
        except BaseException as exc:
            with contextlib.suppress(Exception):  # the cache files this failed load wrote
                self._discard_unreferenced([d.raw_hash for d in docs])
            if isinstance(exc, sqlite3.IntegrityError):
                raise IndexStoreError(
                    f"cannot load {repo!r}: its section ids collide with stored ones ({exc})",
                    path=str(self.db_path),
                ) from None
            raise
        self._discard_unreferenced([h for h in dropped if h not in {d.raw_hash for d in docs}])

    def put_document(
        self, repo: str, doc_path: str, rendition: Rendition, *, source_hash: str, source: str
    ) -> int:
        """Add or replace one document atomically; returns its number of sections.

        Args:
            repo: repo name (created when missing; must not contain ``::``).
            doc_path: POSIX path of the document in the repo.
            rendition: its bytes (stored verbatim in the raw cache) and metadata.
            source_hash: sha256 hex of the source as fetched/read (for incremental runs).
            source: the repo's source description (folder, URL, ``github:o/n@sha``).

        Raises:
            ConvertError: the rendition is not valid UTF-8 (nothing is written).
            IndexStoreError: the cache or database cannot be written.
        """
        prepared = self.prepare_document(repo, doc_path, rendition, source_hash=source_hash, sync=True)
        failures = self.commit_documents(repo, source, [prepared])
        if failures:
            raise IndexStoreError(f"cannot store {doc_path}: {failures[0][1]}", path=str(self.db_path))
        return len(prepared.section_rows)

    def prepare_document(
        self, repo: str, doc_path: str, rendition: Rendition, *, source_hash: str, sync: bool = True
    ) -> PreparedDoc:
        """Section a rendition and put its bytes in the raw cache; see :func:`prepare_document`."""
        return prepare_document(self.raw, repo, doc_path, rendition, source_hash=source_hash, sync=sync)

    def commit_documents(
        self, repo: str, source: str | None, docs: Sequence[PreparedDoc]
    ) -> list[tuple[str, str]]:
        """Make prepared documents visible: fsync their pending raw files, then one transaction.

        Every document's rows are replaced all-or-nothing; when the batch transaction fails
        on one document (a constraint error), each document is retried in its own transaction
        so the others still land.

        Returns:
            ``[(doc_path, error message)]`` of documents that could not be stored.
        """
        self.raw.sync(d.pending for d in docs if d.pending is not None)
        replaced: list[str] = []
        try:
            with self.write() as conn:
                repo_id = rows.upsert_repo(conn, repo, source)
                terms = TermWriter(conn, self._terms)
                legacy = fts.filled(conn, repo_id)
                cleared = rows.clear_terms(conn, repo_id, [d.doc_path for d in docs])  # one pass
                for doc in docs:
                    if not self.raw.path_for(doc.raw_hash).is_file():
                        self.raw.put(doc.data, sync=True)  # removed by a concurrent clean-up
                    replaced.extend(rows.write_doc(conn, repo_id, doc, terms, legacy=legacy, cleared=cleared))
                terms.flush()
        except sqlite3.IntegrityError:
            if len(docs) == 1:
                return [(docs[0].doc_path, "duplicate section ids in the document")]
            failures: list[tuple[str, str]] = []
            for doc in docs:
                failures.extend(self.commit_documents(repo, source, [doc]))
            return failures
        self._discard_unreferenced([h for h in replaced if h not in {d.raw_hash for d in docs}])
        return []

    def remove_document(self, repo: str, doc_path: str) -> bool:
        """Remove one document; ``False`` when it was not indexed."""
        return bool(self.remove_documents(repo, [doc_path]))

    def remove_documents(self, repo: str, doc_paths: Sequence[str]) -> list[str]:
        """Remove documents of ``repo`` in ONE transaction, taking them all out of the term index
        in one pass (:func:`rows.delete_docs`), then discard their unreferenced raw files.

        Returns:
            The doc_paths that were indexed and are now removed, sorted (unknown paths and an
            unknown repo are ignored).

        Raises:
            IndexStoreError: the database cannot be written.
        """
        if not doc_paths:
            return []
        with self.write() as conn:
            row = conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
            if row is None:
                return []
            removed = rows.delete_docs(conn, int(row[0]), doc_paths)
            if removed:
                conn.execute("UPDATE repos SET indexed_at = ? WHERE id = ?", (rows.utc_now(), row[0]))
        self._discard_unreferenced([raw for _path, raw in removed])
        return sorted(path for path, _raw in removed)

    def delete_repo(self, repo: str) -> None:
        """Delete a repo, its documents and their unreferenced raw files. Raises RepoNotFound."""
        with self.write() as conn:
            row = conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
            if row is None:
                raise versions.not_found(conn, repo)
            dropped = rows.drop_repo_rows(conn, int(row[0]), self._terms)
        self._discard_unreferenced(dropped)

    def fill_fts(self) -> list[str]:
        """Fill the legacy ranking's FTS table with every repo not yet in it
        (:mod:`docmunch.index.fts`; one write transaction, none when all are filled).

        Returns:
            ``repo::doc_path`` of documents whose stored bytes could not be read (no rows).

        Raises:
            IndexStoreError: the database cannot be written.
        """
        if not fts.unfilled(self.conn):
            return []
        with self.write() as conn:
            return fts.fill_repos(conn, self.raw)

    def compact_terms(self, repo: str) -> int:
        """Merge the postings segments of a repo's terms (after an indexing run); returns how many
        terms had several. Unknown repo: 0."""
        with self.write() as conn:
            row = conn.execute("SELECT id FROM repos WHERE name = ?", (repo,)).fetchone()
            return compact(conn, int(row[0])) if row is not None else 0

    def record_tokens_saved(self, tokens: int) -> int:
        """Add ``tokens`` to the persisted ``tokens_saved`` counter; returns the new total."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO counters(name, value) VALUES ('tokens_saved', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                (max(0, int(tokens)),),
            )
            return int(conn.execute("SELECT value FROM counters WHERE name = 'tokens_saved'").fetchone()[0])

    def sweep_orphans(self, *, tmp_age_seconds: float = 3600) -> int:
        """Delete raw-cache files no document refers to (what a killed run's uncommitted
        batch left) and temporary files older than ``tmp_age_seconds``; returns how many.

        Runs under the write lock, like :meth:`_discard_unreferenced`, so a concurrent
        writer's not-yet-committed files are safe: its commit re-creates a file that is gone.
        """
        removed = 0
        now = time.time()
        with self.write() as conn:
            used = {row[0] for row in conn.execute("SELECT DISTINCT raw_hash FROM docs")}
            try:
                folders = [d for d in self.raw.root.iterdir() if d.is_dir()]
            except OSError:
                folders = []
            for folder in folders:
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                for entry in entries:
                    try:
                        if entry.name.startswith(".tmp-"):
                            if now - entry.stat(follow_symlinks=False).st_mtime < tmp_age_seconds:
                                continue
                        elif entry.name in used:
                            continue
                        os.unlink(entry.path)
                        removed += 1
                    except OSError:
                        continue
        return removed

    def _discard_unreferenced(self, digests: Sequence[str]) -> None:
        """Delete raw files no document refers to, under the write lock.

        Holding the lock makes this safe against a concurrent writer: it checks (and if needed
        re-creates) its raw files inside its own write transaction, so either it commits its
        reference first (the file is kept) or it sees the file gone and writes it again.
        """
        if not digests:
            return
        with self.write() as conn:
            for digest in set(digests):
                used = conn.execute("SELECT 1 FROM docs WHERE raw_hash = ? LIMIT 1", (digest,)).fetchone()
                if used is None:
                    self.raw.discard(digest)
