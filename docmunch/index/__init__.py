"""SQLite store, raw cache, search and retrieval (design brief §4–§5).

Public surface::

    Index.open(home=None) -> Index          # $DOCMUNCH_HOME, else the platform data dir
    index.index_path(path, repo=..., ...) -> IndexReport
    index.search(query, repo=..., ...) -> list[SearchHit]
    index.explain_empty(query, repo=..., ...) -> EmptyReason   # why a search found nothing
    index.get_section(repo | None, section_id, verify=False) -> SectionRead  # None: the id's repo
    … (see :class:`Index`)

Layout of a home folder: ``index.sqlite3`` (WAL; metadata + FTS5) and ``raw/`` (document
bytes addressed by sha256, byte-identical to the source for Markdown/text).
"""

from docmunch.index.connections import default_home
from docmunch.index.core import Index
from docmunch.index.empty import EmptyReason
from docmunch.index.indexer import DEFAULT_MAX_FILE_BYTES
from docmunch.index.records import (
    DocInfo,
    DocState,
    FileError,
    IndexReport,
    Mismatch,
    PackReport,
    RepoGroup,
    RepoInfo,
    SearchHit,
    SectionRead,
    VerifyCheck,
    VerifyReport,
    section_toc_json,
)
from docmunch.index.schema import SCHEMA_VERSION
from docmunch.index.search import MAX_HITS

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_HITS",
    "SCHEMA_VERSION",
    "DocInfo",
    "DocState",
    "EmptyReason",
    "FileError",
    "Index",
    "IndexReport",
    "Mismatch",
    "PackReport",
    "RepoGroup",
    "RepoInfo",
    "SearchHit",
    "SectionRead",
    "VerifyCheck",
    "VerifyReport",
    "default_home",
    "section_toc_json",
]
