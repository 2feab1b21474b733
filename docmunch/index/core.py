""":class:`Index` — the one implementation behind the CLI and the MCP server.

A thin façade: writes live in :mod:`.store`, folder indexing in :mod:`.indexer`, reads in
:mod:`.read`, ranking in :mod:`.search`. Every method raises only :mod:`docmunch.errors`
exceptions on bad input.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from docmunch.errors import RepoExists, RepoNotFound
from docmunch.formats.base import Rendition
from docmunch.index import indexer, pack, pack_import, read, verify, versions
from docmunch.index import search as _search
from docmunch.index.connections import default_home
from docmunch.index.empty import EmptyReason, corrected_words, explain_empty, unmatched_words
from docmunch.index.records import (
    DocInfo,
    DocState,
    IndexReport,
    PackReport,
    RepoGroup,
    RepoInfo,
    SearchHit,
    SectionRead,
    VerifyReport,
)
from docmunch.index.runlock import RepoRun, WaitNotice
from docmunch.index.store import Store
from docmunch.section import Section

__all__ = ["Index"]


def doc_path_arg(doc_path: str | None) -> str | None:
    """A doc_path as a user may type it, as stored: leading ``./`` removed (``./tasks/a.md``
    → ``tasks/a.md``: doc_paths are relative to the repo root and never start with it)."""
    while doc_path is not None and doc_path.startswith("./"):
        doc_path = doc_path[2:].lstrip("/")
    return doc_path


class Index:
    """A docmunch index: SQLite (WAL) database + raw cache under one home folder.

    Use :meth:`open`; close with :meth:`close` or a ``with`` block. Safe to share between
    threads (each thread gets its own SQLite connection); several processes may read while
    one writes. Two runs writing one repo take turns as wholes (:mod:`docmunch.index.runlock`):
    the second waits for the first to end, telling :attr:`on_wait` so; runs of different repos
    only wait for each other's transactions (busy timeout 30 s).
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self.on_wait: WaitNotice | None = None
        """Told when a write run (:meth:`index_path`, :meth:`import_pack`, :meth:`exclusive`) waits
        for another run of its repo and when it may go on (:data:`~docmunch.index.runlock.WaitNotice`);
        the CLI prints the first and restarts its progress clock at the second."""

    @classmethod
    def open(cls, home: Path | None = None) -> Index:
        """Open (creating when needed) the index under ``home``.

        Args:
            home: folder; default ``$DOCMUNCH_HOME``, else ``platformdirs.user_data_dir("docmunch")``.

        Raises:
            SchemaVersionError: the database was written by another schema version.
            IndexStoreError: the folder or database is unusable.
        """
        return cls(Store(Path(home) if home is not None else default_home()))

    @property
    def home(self) -> Path:
        """The home folder (``index.sqlite3`` and ``raw/`` live here)."""
        return self._store.home

    def close(self) -> None:
        """Close all connections (idempotent)."""
        self._store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- writing -------------------------------------------------------------------------
    @contextlib.contextmanager
    def exclusive(self, repo: str, *, completes: bool = True) -> Iterator[RepoRun]:
        """Be the only writer of ``repo`` for the ``with`` block (web, crawl, GitHub runs;
        :meth:`index_path` takes it itself). A crashed run's leftovers are swept on entry.

        The run's :attr:`~RepoRun.interrupted` belongs in the report of a run that completes the
        repo (:attr:`IndexReport.interrupted_run`, as :meth:`index_path` gives it). ``completes=False``: the
        block re-checks stored documents only (``refresh`` of a URL repo), so an interrupted
        run's mark stays for the next index run to complete (:class:`RepoRun`).

        Raises:
            LimitExceeded: another run held the repo longer than ``REPO_LOCK_WAIT_SECONDS``.
        """
        with RepoRun(self._store.home, repo, on_wait=self.on_wait, completes=completes) as run:
            if run.swept:
                self._store.sweep_orphans()
            yield run

    def index_path(
        self,
        path: Path,
        *,
        repo: str | None = None,
        incremental: bool = True,
        max_file_bytes: int = indexer.DEFAULT_MAX_FILE_BYTES,
        password: str | None = None,
        exclude: Sequence[str] = (),
        progress: indexer.Progress | None = None,
        workers: int | None = None,
        version: str | None = None,
        replace: bool = False,
    ) -> IndexReport:
        """Index a folder or one file; see :func:`docmunch.index.indexer.index_path`.

        ``version`` makes the repo ``NAME@VERSION`` (NAME = ``repo`` or the folder's name).
        """
        return indexer.index_path(
            self._store,
            Path(path),
            repo=repo,
            version=version,
            incremental=incremental,
            max_file_bytes=max_file_bytes,
            password=password,
            exclude=exclude,
            progress=progress,
            workers=workers,
            replace=replace,
            on_wait=self.on_wait,
        )

    def put_document(
        self, repo: str, doc_path: str, rendition: Rendition, *, source_hash: str, source: str
    ) -> int:
        """Add/replace one document atomically; returns its section count (see :meth:`Store.put_document`)."""
        return self._store.put_document(repo, doc_path, rendition, source_hash=source_hash, source=source)

    def document_state(self, repo: str, doc_path: str) -> DocState | None:
        """Stored source_hash / raw_hash / meta of a document, or ``None``."""
        return self._store.document_state(repo, doc_path)

    def remove_document(self, repo: str, doc_path: str) -> bool:
        """Remove one document; ``False`` when it was not indexed."""
        return self._store.remove_document(repo, doc_path)

    def remove_documents(self, repo: str, doc_paths: Sequence[str]) -> list[str]:
        """Remove documents in one transaction; returns the doc_paths removed, sorted (see
        :meth:`Store.remove_documents <docmunch.index.store.Store.remove_documents>`)."""
        return self._store.remove_documents(repo, doc_paths)

    def ensure_repo(
        self, repo: str, *, source: str, ref: str | None = None, commit: str | None = None
    ) -> None:
        """Create the repo (or refresh its source and ``indexed_at``); ``ref``/``commit`` record
        what a git source was asked for and resolved to."""
        self._store.ensure_repo(repo, source=source, ref=ref, commit=commit)

    def delete_repo(self, repo: str) -> list[str]:
        """Delete a repo (``NAME`` = its default version, ``NAME@*`` = every version) and its
        cached bytes; returns the full names deleted. Raises RepoNotFound, UnknownVersion,
        LimitExceeded.

        Like an index run it is the repo's one writer while it deletes (:meth:`exclusive`): it
        waits for a running index run of the repo (telling :attr:`on_wait`), then deletes what
        that run wrote, and clears the repo's "interrupted" mark (:mod:`.runlock`)."""
        targets = self._store.repo_scope(repo)
        names = [row.name for row in targets] if targets is not None else []
        deleted = []
        for name in names:
            # takes its turn with the index runs of that repo (:mod:`.runlock`); its end clears an
            # interrupted run's mark, so a new repo of that name starts clean
            with self.exclusive(name), contextlib.suppress(RepoNotFound):  # gone while it waited
                self._store.delete_repo(name)
                deleted.append(name)
        if names and not deleted:
            self._store.resolve_repo(repo)  # RepoNotFound with its message
        return deleted

    def set_default(self, repo: str) -> str:
        """Pin ``NAME@VERSION`` as what a bare ``NAME`` means; returns its full name.

        Raises RepoNotFound, UnknownVersion, InvalidRepoName (unversioned, or NAME is also stored
        unversioned)."""
        self._store.set_default(repo)
        return repo

    def unpin_default(self, name: str) -> str:
        """Drop ``NAME``'s pin (the newest version is the default again); returns the new default."""
        base = name.partition("@")[0]
        self._store.set_default(None, base=base)
        return self._store.resolve_repo(base).name

    def rename_repo(self, repo: str, new: str) -> str:
        """Store ``repo`` (resolved as a reader would) as the full name ``new``, rewriting its ids.
        Raises RepoNotFound, RepoExists (``new`` is taken, or is ``repo`` as given: a bare name
        that means a version is not renamed to itself without it), InvalidRepoName, LimitExceeded.

        It holds both names as their one writer (:meth:`exclusive`), so it waits for a running
        index run of either. An interrupted run's mark moves with the documents to ``new``
        (whose next index run completes them); the old name keeps none."""
        if repo == new:
            raise RepoExists(f"repo {repo!r} already has that name; nothing to rename", repo=new)
        old = self._store.resolve_repo(repo).name
        if old == new:  # the store says why, without taking one lock twice
            self._store.rename_repo(old, new)
            return new
        with contextlib.ExitStack() as runs:  # both names, in one order: two renames never deadlock
            held = {name: runs.enter_context(self.exclusive(name)) for name in sorted((old, new))}
            self._store.rename_repo(old, new)
            held[new].carry(held[old].interrupted)  # the incomplete documents now bear the new name
        return new

    def export_pack(self, repo: str, out: Path, *, overwrite: bool = False) -> PackReport:
        """Write ``repo`` as one pack file; see :func:`docmunch.index.pack.export_pack`."""
        return pack.export_pack(self._store, self.resolve_repo(repo), Path(out), overwrite=overwrite)

    def import_pack(self, path: Path, *, as_name: str | None = None, replace: bool = False) -> PackReport:
        """Verify a pack and load it as one repo, atomically (:func:`.pack_import.import_pack`);
        :attr:`on_wait` hears when it waits for another run of that repo."""
        return pack_import.import_pack(
            self._store, Path(path), as_name=as_name, replace=replace, on_wait=self.on_wait
        )

    def record_tokens_saved(self, tokens: int) -> int:
        """Add to the persisted tokens-saved counter; returns the new total."""
        return self._store.record_tokens_saved(tokens)

    # --- reading -------------------------------------------------------------------------
    def resolve_repo(self, repo: str, *, section_id: str | None = None) -> str:
        """The full name of the stored repo ``repo`` means (``NAME`` → its default version).

        Raises RepoNotFound, UnknownVersion (message lists the known versions), InvalidRepoName.
        """
        return self._store.resolve_repo(repo, section_id=section_id).name

    def list_repos(self) -> list[RepoInfo]:
        """Every stored repo (every version separately), grouped by name."""
        return read.list_repos(self._store)

    def list_groups(self) -> list[RepoGroup]:
        """Every name with its versions and its default, by name."""
        return read.list_groups(self._store)

    def list_docs(self, repo: str) -> list[DocInfo]:
        """Documents of a repo, by doc_path. Raises RepoNotFound."""
        return read.list_docs(self._store, self.resolve_repo(repo))

    def toc(self, repo: str, doc_path: str | None = None) -> list[Section]:
        """Sections in document order (documents by doc_path; ``./`` before it is ignored).
        Raises RepoNotFound."""
        return read.toc(self._store, self.resolve_repo(repo), doc_path_arg(doc_path))

    def toc_tree(self, repo: str, doc_path: str | None = None) -> list[dict[str, Any]]:
        """Nested outline; see :func:`docmunch.index.read.toc_tree`."""
        return read.toc_tree(self._store, self.resolve_repo(repo), doc_path_arg(doc_path))

    def search(
        self,
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
        """Ranked search; see :func:`docmunch.index.search.search` (``repo``: ``NAME``,
        ``NAME@VERSION``, ``NAME@*`` for every version, ``None`` for every name's default)."""
        return _search.search(
            self._store,
            query,
            repo=repo,
            limit=limit,
            doc_path=doc_path_arg(doc_path),
            path_glob=path_glob,
            min_level=min_level,
            max_level=max_level,
            snippet_bytes=snippet_bytes,
            ranking=ranking,
        )

    def explain_empty(
        self,
        query: str,
        *,
        repo: str | None = None,
        doc_path: str | None = None,
        path_glob: str | None = None,
        min_level: int | None = None,
        max_level: int | None = None,
    ) -> EmptyReason:
        """Why :meth:`search` with these arguments found nothing; see :mod:`docmunch.index.empty`."""
        return explain_empty(
            self._store,
            query,
            repo=repo,
            doc_path=doc_path_arg(doc_path),
            path_glob=path_glob,
            min_level=min_level,
            max_level=max_level,
        )

    def unmatched_words(self, query: str, *, repo: str | None = None) -> tuple[str, ...]:
        """The query's content words that match nothing in the repos a search over ``repo``
        covers (as written, at most 8); see :func:`docmunch.index.empty.unmatched_words`.

        Raises:
            RepoNotFound, UnknownVersion: ``repo`` is not indexed.
        """
        return unmatched_words(self._store, query, repo=repo)

    def corrected_words(self, query: str, *, repo: str | None = None) -> dict[str, str]:
        """``{mistyped word: the word searched in its place}`` of a search over ``repo`` (at
        most 8); see :func:`docmunch.index.empty.corrected_words`.

        Raises:
            RepoNotFound, UnknownVersion: ``repo`` is not indexed.
        """
        return corrected_words(self._store, query, repo=repo)

    def section_repo(self, repo: str | None, section_id: str) -> str:
        """The full name of the repo a section read of ``section_id`` goes to: ``repo`` resolved
        with the id (:func:`.versions.resolve` rule 5), or, when ``repo`` is ``None``, the repo
        the id names (:func:`.versions.repo_named_by`) resolved the same way.

        Raises SectionNotFound (``repo`` is ``None`` and the id names no repo), RepoNotFound,
        UnknownVersion, InvalidRepoName.
        """
        named = versions.repo_named_by(section_id) if repo is None else repo
        return self.resolve_repo(named, section_id=section_id)

    def get_section(self, repo: str | None, section_id: str, *, verify: bool = False) -> SectionRead:
        """One section's bytes (seek + read of the raw cache); see :func:`.read.get_section`.
        ``repo=None``: the repo the id names (:meth:`section_repo`)."""
        name = self.section_repo(repo, section_id)
        return read.get_section(self._store, name, section_id, verify=verify)

    def get_section_context(
        self, repo: str | None, section_id: str, *, max_tokens: int = 2000
    ) -> dict[str, Any]:
        """Section + breadcrumb + following sections; see :func:`docmunch.index.read.get_section_context`.
        ``repo=None``: the repo the id names (:meth:`section_repo`)."""
        name = self.section_repo(repo, section_id)
        return read.get_section_context(self._store, name, section_id, max_tokens=max_tokens)

    def locate(self, repo: str | None, section_id: str) -> dict[str, Any]:
        """Where a section lives in its original; see :func:`docmunch.index.read.locate`.
        ``repo=None``: the repo the id names (:meth:`section_repo`)."""
        return read.locate(self._store, self.section_repo(repo, section_id), section_id)

    def verify_repo(self, repo: str) -> VerifyReport:
        """Re-hash every section (cache and original); see :func:`docmunch.index.verify.verify_repo`."""
        return verify.verify_repo(self._store, self.resolve_repo(repo))
