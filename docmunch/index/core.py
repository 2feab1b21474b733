""":class:`Index` — the one implementation behind the CLI and the MCP server.

A thin façade: writes live in :mod:`.store`, folder indexing in :mod:`.indexer`, reads in
:mod:`.read`, ranking in :mod:`.search`. Every method raises only :mod:`docmunch.errors`
exceptions on bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from docmunch.formats.base import Rendition
from docmunch.index import indexer, read
from docmunch.index import search as _search
from docmunch.index.records import (
    DocInfo,
    DocState,
    IndexReport,
    RepoInfo,
    SearchHit,
    SectionRead,
    VerifyReport,
)
from docmunch.index.store import Store, default_home
from docmunch.section import Section

__all__ = ["Index"]


class Index:
    """A docmunch index: SQLite (WAL) database + raw cache under one home folder.

    Use :meth:`open`; close with :meth:`close` or a ``with`` block. Safe to share between
    threads (each thread gets its own SQLite connection); several processes may read while
    one writes, and concurrent writers wait for each other (busy timeout 30 s).
    """

    def __init__(self, store: Store) -> None:
        self._store = store

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
    ) -> IndexReport:
        """Index a folder or one file; see :func:`docmunch.index.indexer.index_path`."""
        return indexer.index_path(
            self._store,
            Path(path),
            repo=repo,
            incremental=incremental,
            max_file_bytes=max_file_bytes,
            password=password,
            exclude=exclude,
            progress=progress,
            workers=workers,
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

    def ensure_repo(self, repo: str, *, source: str) -> None:
        """Create the repo (or refresh its source and ``indexed_at``)."""
        self._store.ensure_repo(repo, source=source)

    def delete_repo(self, repo: str) -> None:
        """Delete a repo and its cached bytes. Raises RepoNotFound."""
        self._store.delete_repo(repo)

    def record_tokens_saved(self, tokens: int) -> int:
        """Add to the persisted tokens-saved counter; returns the new total."""
        return self._store.record_tokens_saved(tokens)

    # --- reading -------------------------------------------------------------------------
    def list_repos(self) -> list[RepoInfo]:
        """Every repo, by name."""
        return read.list_repos(self._store)

    def list_docs(self, repo: str) -> list[DocInfo]:
        """Documents of a repo, by doc_path. Raises RepoNotFound."""
        return read.list_docs(self._store, repo)

    def toc(self, repo: str, doc_path: str | None = None) -> list[Section]:
        """Sections in document order (documents by doc_path). Raises RepoNotFound."""
        return read.toc(self._store, repo, doc_path)

    def toc_tree(self, repo: str, doc_path: str | None = None) -> list[dict[str, Any]]:
        """Nested outline; see :func:`docmunch.index.read.toc_tree`."""
        return read.toc_tree(self._store, repo, doc_path)

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
        """Ranked search; see :func:`docmunch.index.search.search`."""
        return _search.search(
            self._store,
            query,
            repo=repo,
            limit=limit,
            doc_path=doc_path,
            path_glob=path_glob,
            min_level=min_level,
            max_level=max_level,
            snippet_bytes=snippet_bytes,
            ranking=ranking,
        )

    def get_section(self, repo: str, section_id: str, *, verify: bool = False) -> SectionRead:
        """One section's bytes (seek + read of the raw cache); see :func:`.read.get_section`."""
        return read.get_section(self._store, repo, section_id, verify=verify)

    def get_section_context(self, repo: str, section_id: str, *, max_tokens: int = 2000) -> dict[str, Any]:
        """Section + breadcrumb + following sections; see :func:`docmunch.index.read.get_section_context`."""
        return read.get_section_context(self._store, repo, section_id, max_tokens=max_tokens)

    def locate(self, repo: str, section_id: str) -> dict[str, Any]:
        """Where a section lives in its original; see :func:`docmunch.index.read.locate`."""
        return read.locate(self._store, repo, section_id)

    def verify_repo(self, repo: str) -> VerifyReport:
        """Re-hash every section (cache and original); see :func:`docmunch.index.read.verify_repo`."""
        return read.verify_repo(self._store, repo)
