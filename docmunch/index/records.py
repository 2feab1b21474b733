"""Records returned by :class:`docmunch.index.Index`.

Every record is a frozen slotted dataclass whose ``to_json()`` gives the exact JSON shape the
CLI (``--json``) and the MCP server emit (design brief §6–§7, issue 2). Byte offsets are UTF-8
byte offsets into the stored document bytes; times are milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docmunch.section.model import Section

__all__ = [
    "DocInfo",
    "DocState",
    "FileError",
    "IndexReport",
    "Mismatch",
    "PackReport",
    "RepoGroup",
    "RepoInfo",
    "SearchHit",
    "SectionRead",
    "VerifyCheck",
    "VerifyReport",
    "echo_query",
    "section_toc_json",
]


@dataclass(frozen=True, slots=True)
class FileError:
    """One file that could not be indexed (the run went on without it)."""

    path: str
    """doc_path (POSIX, relative to the indexed root) or URL of the failing source."""
    error: str
    """One-line message."""

    @property
    def message(self) -> str:
        """:attr:`error` without a leading ``"PATH: "`` (some messages name their file; the
        path is a field of its own). The path may appear whitespace-collapsed in a one-line
        message (a file name with a newline)."""
        for prefix in (f"{self.path}: ", f"{' '.join(self.path.split())}: "):
            if self.error.startswith(prefix):
                return self.error[len(prefix) :]
        return self.error

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "error": self.message}


@dataclass(frozen=True, slots=True)
class IndexReport:
    """Outcome of one ``index`` run."""

    repo: str
    """Name of the repo that was written."""
    docs_indexed: int
    """Documents (re)parsed and stored in this run."""
    docs_unchanged: int
    """Documents whose source sha256 equals the stored one (not rendered, not parsed)."""
    docs_removed: int
    """Documents removed because their file disappeared (or is now excluded)."""
    docs_skipped: int
    """Files refused by a safety rule: secret-looking name, symlink leaving the root,
    larger than ``max_file_bytes``, or binary content (NUL byte in the first 8 KiB)."""
    sections: int
    """Total number of sections in the repo after the run."""
    errors: tuple[FileError, ...]
    """Files that failed (unreadable, undecodable, renderer error); their previous entry is kept."""
    elapsed_ms: int
    """Wall-clock duration of the run in milliseconds."""
    skipped_paths: tuple[str, ...] = ()
    """doc_paths (URLs for web runs) counted in ``docs_skipped``; JSON ``skipped[].path``."""
    skipped_reasons: tuple[str, ...] = ()
    """Why each of ``skipped_paths`` was skipped (same order), e.g. ``"binary content (NUL byte)"``;
    for web runs a code of ``docmunch.sources.tally.SKIP_REASONS`` (``"robots"``, ``"scope"``, …)."""
    skipped_details: tuple[str, ...] = ()
    """One-line detail per skipped path (same order; may be shorter: missing = ``""``)."""
    warnings: tuple[FileError, ...] = ()
    """Problems that cost no document (a sitemap that failed); the run's exit status ignores them."""

    interrupted_run: dict[str, Any] | None = None
    """The journal (``{"state", "repo", "pid", "started_at"}``) of a previous run of this repo
    that was killed before it finished (see :mod:`docmunch.index.runlock`); ``None`` normally.
    This run completed the repo."""
    nothing_to_index: str | None = None
    """One line when the indexed folder holds no file of a known format (its repo existed, so
    the run removed every document it had and kept the repo, empty); ``None`` normally. The
    CLI prints it and exits 1. For a repo that does not exist yet the run raises
    :class:`~docmunch.errors.NothingToIndex` instead."""
    source_changed: dict[str, str] | None = None
    """``{"previous", "source", "message"}`` when this run changed the repo's recorded source
    (what ``refresh`` re-reads): a file repo given another file or its folder, or another source
    with ``replace`` (docs/decisions.md: the last source indexed is the one recorded — except a
    file or folder inside the recorded folder, which changes no source); ``message`` says what
    ``refresh`` re-reads now and how to go back. ``None`` normally."""

    def to_json(self) -> dict[str, Any]:
        details = self.skipped_details
        out: dict[str, Any] = {
            "repo": self.repo,
            "docs_indexed": self.docs_indexed,
            "docs_unchanged": self.docs_unchanged,
            "docs_removed": self.docs_removed,
            "docs_skipped": self.docs_skipped,
            "sections": self.sections,
            "errors": [e.to_json() for e in self.errors],
            "skipped": [
                {"path": path, "reason": reason, "detail": details[i] if i < len(details) else ""}
                for i, (path, reason) in enumerate(
                    zip(self.skipped_paths, self.skipped_reasons, strict=False)
                )
            ],
            "warnings": [w.to_json() for w in self.warnings],
            "elapsed_ms": self.elapsed_ms,
        }
        if self.interrupted_run is not None:  # only then: the usual shape stays as documented
            out["interrupted_run"] = {
                k: self.interrupted_run.get(k) for k in ("repo", "pid", "started_at")
            }
        if self.nothing_to_index is not None:  # likewise
            out["nothing_to_index"] = self.nothing_to_index
        if self.source_changed is not None:  # likewise
            out["source_changed"] = dict(self.source_changed)
        return out


@dataclass(frozen=True, slots=True)
class RepoInfo:
    """One indexed repo (collection of documents): one version of a name, or an unversioned name."""

    repo: str
    """Full name, the prefix of its section ids: ``NAME`` or ``NAME@VERSION``."""
    docs: int
    sections: int
    source: str
    """Folder path, URL or ``github:owner/name@sha`` the repo was indexed from."""
    indexed_at: str
    """UTC ISO-8601 time of the last write (``2026-11-30T13:40:00Z``)."""
    name: str = ""
    """``NAME`` without the version (empty only for hand-built records)."""
    version: str | None = None
    """``VERSION``, or ``None`` for an unversioned repo."""
    ref: str | None = None
    """The git ref asked for (``None``: the default branch, or not a git source)."""
    commit: str | None = None
    """The commit SHA the ref resolved to (git sources)."""
    default: bool = False
    """What the bare ``NAME`` means (see :mod:`docmunch.index.versions`)."""
    pinned: bool = False
    """Made the default with ``docmunch default NAME@VERSION``."""
    last_run: str | None = None
    """``"running"`` while a run writes the repo, ``"interrupted"`` when the last run was killed
    before it finished (the next index run completes it), ``None`` when complete."""

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "version": self.version,
            "default": self.default,
            "pinned": self.pinned,
            "docs": self.docs,
            "sections": self.sections,
            "source": self.source,
            "ref": self.ref,
            "commit": self.commit,
            "indexed_at": self.indexed_at,
            "last_run": self.last_run,
        }


@dataclass(frozen=True, slots=True)
class RepoGroup:
    """Every version of one name (``docmunch list``, MCP ``list_repos``)."""

    name: str
    """``NAME``: what a bare repo argument names."""
    versions: tuple[RepoInfo, ...]
    """Its repos, newest first; exactly one has ``default`` set."""

    @property
    def default(self) -> RepoInfo:
        """The version a bare ``NAME`` means."""
        return next(v for v in self.versions if v.default)

    def to_json(self) -> dict[str, Any]:
        """``{"repo": NAME, "default": full name, docs/sections/source/indexed_at of the default,
        "versions": [RepoInfo.to_json(), …]}`` — the first five keys as before versions existed."""
        d = self.default
        return {
            "repo": self.name,
            "docs": d.docs,
            "sections": d.sections,
            "source": d.source,
            "indexed_at": d.indexed_at,
            "default": d.repo,
            "versions": [v.to_json() for v in self.versions],
        }


@dataclass(frozen=True, slots=True)
class PackReport:
    """Outcome of ``docmunch export`` (a pack written) or ``docmunch import`` (a pack loaded)."""

    repo: str
    """Full name of the repo exported, or imported as."""
    path: str
    """The pack file."""
    docs: int
    sections: int
    blobs: int
    """Distinct stored documents (raw blobs) in the pack."""
    raw_bytes: int
    """Bytes of those documents, uncompressed."""
    pack_bytes: int
    """Size of the pack file in bytes."""
    schema_version: int
    """Index schema the pack was written for (:data:`docmunch.index.SCHEMA_VERSION`)."""
    elapsed_ms: int
    """Wall-clock duration in milliseconds."""
    replaced: bool = False
    """Import only: an existing repo of that name was replaced (``--replace``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "path": self.path,
            "docs": self.docs,
            "sections": self.sections,
            "blobs": self.blobs,
            "raw_bytes": self.raw_bytes,
            "pack_bytes": self.pack_bytes,
            "schema_version": self.schema_version,
            "replaced": self.replaced,
            "elapsed_ms": self.elapsed_ms,
        }


@dataclass(frozen=True, slots=True)
class DocInfo:
    """One document of a repo."""

    doc_path: str
    title: str
    sections: int
    bytes: int
    """Size of the stored document bytes (the rendition for converted sources)."""
    source_kind: str
    source_ref: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_path": self.doc_path,
            "title": self.title,
            "sections": self.sections,
            "bytes": self.bytes,
            "source_kind": self.source_kind,
            "source_ref": self.source_ref,
        }


@dataclass(frozen=True, slots=True)
class DocState:
    """What the index remembers about a document, for incremental re-indexing."""

    doc_path: str
    source_hash: str
    """sha256 hex of the source as given to ``put_document`` (the file bytes for local files)."""
    raw_hash: str
    """sha256 hex of the stored bytes (the raw cache file name)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """The rendition's ``meta`` (etag, last-modified, …)."""
    indexed_at: str = ""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A search result: a handle to a section, never its body (unless a snippet is asked for)."""

    repo: str
    id: str
    title: str
    level: int
    doc_path: str
    score: float
    """Higher is better. Question ranking: 0 … about 2 (1.0 = every query term at full impact,
    exact title +1.0; see :mod:`docmunch.index.search`); legacy ranking: ``-bm25`` plus 25."""
    summary: str
    byte_start: int
    byte_end: int
    snippet: str | None = None
    """The start of the section, at most ``snippet_bytes`` bytes, cut at a character and word
    boundary (:func:`docmunch.index.read.read_snippet`), when asked for."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "level": self.level,
            "doc_path": self.doc_path,
            "score": self.score,
            "summary": self.summary,
            "byte_start": self.byte_start,
            "byte_end": self.byte_end,
            "repo": self.repo,
        }
        if self.snippet is not None:
            out["snippet"] = self.snippet
        return out


@dataclass(frozen=True, slots=True)
class VerifyCheck:
    """One copy of a section's bytes that ``get_section(verify=True)`` re-hashed."""

    where: str
    """``"cache"`` (the index's raw copy) or ``"original"`` (the user's file, local text sources)."""
    path: str
    """The file that was read (raw cache file, or the original's absolute path)."""
    ok: bool | None
    """sha256 of ``[byte_start, byte_end)`` equals ``content_hash``; ``None`` when the file is gone
    (a missing original is not a mismatch: the cache is the index's copy)."""

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "path": self.path, "ok": self.ok}


@dataclass(frozen=True, slots=True)
class SectionRead:
    """The bytes of one section, read from the raw cache."""

    section: Section
    """The full section record (with ``locator`` for converted sources)."""
    content: str
    """``data[byte_start:byte_end]`` decoded as UTF-8 (undecodable bytes replaced)."""
    doc_bytes: int
    """Size in bytes of the whole stored document (for ``tokens_saved``)."""
    verified: bool | None = None
    """``None`` unless verification was asked; then true when every check in ``checks`` that
    could run matched ``content_hash``."""
    checks: tuple[VerifyCheck, ...] = ()
    """What verification re-hashed: the cache copy, then the original file for local
    Markdown/text sources (empty unless verification was asked)."""

    def to_json(self) -> dict[str, Any]:
        s = self.section
        data: dict[str, Any] = {
            "id": s.id,
            "title": s.title,
            "level": s.level,
            "doc_path": s.doc_path,
            "byte_start": s.byte_start,
            "byte_end": s.byte_end,
            "content_hash": s.content_hash,
            "content": self.content,
            "verified": self.verified,
        }
        if self.checks:
            data["checked"] = [check.to_json() for check in self.checks]
        return data


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A section whose bytes no longer hash to its ``content_hash``."""

    id: str
    doc_path: str
    expected: str
    """The stored ``content_hash``."""
    actual: str | None
    """sha256 hex of the bytes found now; ``None`` when they could not be hashed (the file is
    gone, shorter than the section's range, or grew past its indexed size and was not read)."""
    where: str
    """``"cache"`` (the raw cache copy) or ``"original"`` (the user's file)."""
    reason: str = ""
    """Why it does not match, one readable line (e.g. ``the file is longer than the 812 indexed
    bytes (now 900 bytes)``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "doc_path": self.doc_path,
            "expected": self.expected,
            "actual": self.actual,
            "reason": self.reason,
            "where": self.where,
        }


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of re-hashing every section of a repo."""

    repo: str
    sections_checked: int
    mismatches: tuple[Mismatch, ...]
    originals_checked: int = 0
    """Documents whose original file (Markdown/text sources) was also re-hashed."""
    originals_missing: int = 0
    """Documents stored as the user's bytes whose original file could not be read (moved,
    deleted, no longer a regular file): checked in the cache only, not a mismatch."""
    cache_only: int = 0
    """Documents with no original to re-hash: converted sources (PDF, DOCX, HTML files, web
    pages, notebooks: the cache holds a Markdown rendition, not the file's bytes) and documents
    without a local file (e.g. imported from a pack)."""

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "sections_checked": self.sections_checked,
            "ok": self.ok,
            "mismatches": [m.to_json() for m in self.mismatches],
        }


def section_toc_json(section: Section) -> dict[str, Any]:
    """The ``toc --json`` entry of a section: id, title, level, doc_path, parent_id, byte range."""
    return {
        "id": section.id,
        "title": section.title,
        "level": section.level,
        "doc_path": section.doc_path,
        "parent_id": section.parent_id,
        "byte_start": section.byte_start,
        "byte_end": section.byte_end,
    }


QUERY_ECHO_MAX_CHARS = 200
"""A search answer echoes its query cut to this many characters (``…`` marks the cut): a query
may be megabytes long (a pasted log), and sending it back would cost a reader as many tokens."""


def echo_query(query: str) -> str:
    """``query`` as a search answer repeats it (MCP ``search_sections``' ``query``, the CLI's
    ``--json`` ``_meta.query``): whole up to :data:`QUERY_ECHO_MAX_CHARS` characters, else its
    start and ``…``."""
    if len(query) <= QUERY_ECHO_MAX_CHARS:
        return query
    return query[: QUERY_ECHO_MAX_CHARS - 1] + "…"
