"""GitHub repositories: ``docmunch index github:OWNER/NAME[@REF] [--path SUBDIR]``.

Two requests per run (GitHub REST API, https://docs.github.com/en/rest):

1. ``GET {api}/repos/{owner}/{name}/commits/{ref}`` with ``Accept: application/vnd.github.sha``
   → the commit SHA as plain text. When the repo's stored source is already
   ``github:owner/name@<that sha>`` (same ``--path``), nothing else is done.
2. ``GET {api}/repos/{owner}/{name}/tarball/{sha}`` (redirects to codeload) → a gzip tarball,
   streamed to a temporary file (capped at 256 MiB, never held in memory) and extracted by
   :func:`docmunch.sources.tarball.extract_tarball` (no traversal, no links, size and count
   caps; only files with a supported suffix) into a temporary folder deleted afterwards.

The extracted tree is walked with the local-folder rules (:func:`docmunch.index.walk.walk`) and
every changed file is rendered and stored with :meth:`Index.put_document`, ``doc_path`` being
its path inside the repository; unchanged files (same sha256) are not parsed, files gone from
the tree leave the index. Each section's locator is the blob URL at the SHA with the heading's
line: ``{"url": "https://github.com/o/n/blob/<sha>/<doc_path>#L<line>"}`` (1-based; converted
formats such as HTML or notebooks get the blob URL without a line).

``GITHUB_TOKEN`` (when set) is sent as ``Authorization: Bearer`` to the API host only (the
fetcher drops it on the redirect to codeload). ``DOCMUNCH_GITHUB_API`` sets the API base
(GitHub Enterprise ``https://ghe.example/api/v3``, tests); the web host for blob URLs is derived
from it (``api.github.com`` → ``github.com``, ``…/api/v3`` → the same host).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tempfile
import time
import urllib.parse
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from docmunch.errors import SourceError
from docmunch.fetch import Fetcher, FetchResult, parse_retry_after
from docmunch.formats import render_file, supported_suffixes
from docmunch.formats.base import Rendition
from docmunch.index import DEFAULT_MAX_FILE_BYTES, FileError, Index, IndexReport
from docmunch.index.prepare import one_line
from docmunch.index.versions import version_from_ref, with_version
from docmunch.index.walk import looks_binary, walk
from docmunch.sources.page import Progress, make_fetcher, repo_sections
from docmunch.sources.tarball import TarLimits, extract_tarball

__all__ = ["GitHubSpec", "api_base", "index_github", "parse_spec", "stored_github", "web_base"]

DEFAULT_API = "https://api.github.com"
_SPEC = re.compile(
    r"^(?:github:|(?:https?://)?(?:www\.)?github\.com/)?"
    r"(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<name>[A-Za-z0-9._-]{1,100}?)(?:\.git)?/?"
    r"(?:@(?P<ref>[^\s@]+))?$"
)
_SHA = re.compile(r"^[0-9a-f]{40}$")
_LINE_KINDS = frozenset({"markdown", "text", "rst", "mdx"})
"""Renditions whose bytes are the file's own bytes, so a byte offset gives a source line."""
_MAX_TARBALL_BYTES = 256 * 2**20
"""Largest tarball downloaded (bytes, as served: gzip-compressed)."""
_DOWNLOAD_SECONDS = 600.0
"""Longest a whole tarball download may take (s)."""


@dataclasses.dataclass(frozen=True, slots=True)
class GitHubSpec:
    """A parsed ``github:OWNER/NAME[@REF]``."""

    owner: str
    name: str
    ref: str | None
    """Branch, tag or commit; ``None`` = the default branch (``HEAD``)."""


def parse_spec(spec: str, *, ref: str | None = None) -> GitHubSpec:
    """Parse ``github:o/n[@ref]``, ``o/n`` or ``https://github.com/o/n``; ``ref`` overrides ``@ref``.

    Raises:
        SourceError: not a repository spec.
    """
    match = _SPEC.match(spec.strip())
    if match is None or match["name"] in (".", ".."):
        raise SourceError(f"not a GitHub repository: {spec!r} (expected github:OWNER/NAME[@REF])", path=spec)
    return GitHubSpec(match["owner"], match["name"], ref or match["ref"])


def api_base() -> str:
    """``$DOCMUNCH_GITHUB_API`` without a trailing slash (default ``https://api.github.com``)."""
    return (os.environ.get("DOCMUNCH_GITHUB_API") or DEFAULT_API).rstrip("/")


def web_base(api: str) -> str:
    """Web origin for blob URLs: ``https://api.github.com`` → ``https://github.com``;
    ``https://ghe.example/api/v3`` → ``https://ghe.example``; any other base → its origin."""
    parts = urllib.parse.urlsplit(api)
    host = parts.netloc
    if host.startswith("api."):
        host = host[len("api.") :]
    return f"{parts.scheme}://{host}"


@dataclasses.dataclass(frozen=True, slots=True)
class _BlobRendition(Rendition):
    """A rendition whose section locators are GitHub blob URLs (with ``#L<line>`` when possible)."""

    blob_url: str = ""

    def locator_for(self, byte_start: int, byte_end: int, *, anchor: str | None = None) -> dict[str, Any]:
        if self.source_kind not in _LINE_KINDS:
            return {"url": self.blob_url}
        line = self.markdown.count(b"\n", 0, byte_start) + 1
        return {"url": f"{self.blob_url}#L{line}"}


def _headers(accept: str) -> dict[str, str]:
    headers = {"Accept": accept, "X-GitHub-Api-Version": "2022-11-28"}
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token.strip()}"
    return headers


def _check(result: FetchResult, what: str) -> None:
    """Raise a clear :class:`SourceError` for a non-200 GitHub answer."""
    status = result.status
    if status == 200:
        return
    headers = result.headers
    if status in (403, 429) and (
        headers.get("x-ratelimit-remaining") == "0" or "retry-after" in headers or status == 429
    ):
        reset = None
        if headers.get("x-ratelimit-reset", "").isdigit():
            reset = datetime.fromtimestamp(int(headers["x-ratelimit-reset"]), UTC)
        else:
            wait = parse_retry_after(headers.get("retry-after"))
            if wait is not None:
                reset = datetime.now(UTC) + timedelta(seconds=wait)
        when = f"; it resets at {reset:%Y-%m-%d %H:%M:%S} UTC" if reset else ""
        hint = "" if os.environ.get("GITHUB_TOKEN") else " (set GITHUB_TOKEN for a higher limit)"
        raise SourceError(f"GitHub API rate limit exceeded while {what}{when}{hint}", path=result.url)
    if status in (401, 403):
        raise SourceError(f"GitHub refused access (HTTP {status}) while {what}; check GITHUB_TOKEN")
    if status == 404:
        raise SourceError(f"GitHub: not found (HTTP 404) while {what}; check the repository and ref")
    raise SourceError(f"GitHub answered HTTP {status} while {what}", path=result.url)


def stored_github(index: Index, repo: str) -> dict[str, Any]:
    """What a GitHub repo was indexed from, read from its documents' meta: ``{"github_repo":
    "owner/name", "github_ref": ref or None, "github_path": subdir or None, "sha": …}``
    (empty when the repo has no document)."""
    for doc in index.list_docs(repo)[:1]:
        state = index.document_state(repo, doc.doc_path)
        if state is not None:
            return {k: state.meta.get(k) for k in ("github_repo", "github_ref", "github_path", "sha")}
    return {}


def index_github(
    index: Index,
    spec_or_url: str,
    *,
    ref: str | None = None,
    repo: str | None = None,
    path: str | None = None,
    progress: Progress | None = None,
    allow_private: bool = False,
    fetcher: Fetcher | None = None,
    version: str | None = None,
) -> IndexReport:
    """Index the documentation files of a GitHub repository at a ref (see the module docstring).

    Args:
        index: the open index.
        spec_or_url: ``github:OWNER/NAME[@REF]``, ``OWNER/NAME`` or a ``https://github.com/…`` URL.
        ref: branch, tag or SHA (overrides ``@REF``); default the default branch.
        repo: repo name; default ``NAME@REF`` for an explicit ref (``/`` in it becomes ``-``),
            ``NAME`` for the default branch — or ``NAME`` when that unversioned repo was indexed
            from this repository and ref before versions existed (it keeps being updated).
        path: only this folder of the repository (``doc_path`` stays the full path in the repo).
        progress: ``progress(done, total, doc_path)`` per file.
        allow_private: lift the SSRF guard (GitHub Enterprise on an intranet, tests).
        fetcher: a configured fetcher (tests); default a new one.
        version: index as ``NAME@VERSION`` whatever the ref (``repo`` may still set NAME).

    The repo records the ref asked for and the commit it resolved to (``docmunch list``).

    Returns:
        The :class:`IndexReport`; ``docs_unchanged`` counts every stored file when the SHA did not move.

    Raises:
        SourceError: bad spec, rate limit (message gives the reset time in UTC), missing repo/ref,
            unreadable tarball. FetchError: network failures.
    """
    started = time.perf_counter()
    spec = parse_spec(spec_or_url, ref=ref)
    sub = path.strip("/") if path else None
    if sub and any(part in ("..", "") for part in sub.split("/")):
        raise SourceError(f"invalid --path {path!r}: use a folder path inside the repository", path=path)
    name = _repo_name(index, spec, repo, version)
    with index.exclusive(name) as run:  # one writer per repo (docmunch.index.runlock)
        report = _index_github(index, spec, name, sub, progress, allow_private, fetcher, started)
    return dataclasses.replace(report, interrupted_run=run.interrupted)  # this run completed it


def _index_github(
    index: Index,
    spec: GitHubSpec,
    name: str,
    sub: str | None,
    progress: Progress | None,
    allow_private: bool,
    fetcher: Fetcher | None,
    started: float,
) -> IndexReport:
    api = api_base()
    base = f"{api}/repos/{spec.owner}/{spec.name}"
    own = fetcher is None
    fetcher = fetcher or make_fetcher(
        allow_private=allow_private,
        retry_statuses=frozenset({502, 503}),
        max_bytes=_MAX_TARBALL_BYTES,
        total_timeout=_DOWNLOAD_SECONDS,
    )
    try:
        sha = _resolve_sha(fetcher, base, spec)
        source = f"github:{spec.owner}/{spec.name}@{sha}"
        info = next((r for r in index.list_repos() if r.repo == name), None)
        if (
            info is not None
            and info.source == source
            and stored_github(index, name).get("github_path") == sub
        ):
            docs = len(index.list_docs(name))
            return IndexReport(name, 0, docs, 0, 0, info.sections, (), _ms(started))
        with tempfile.TemporaryDirectory(prefix="docmunch-gh-") as tmp:
            archive = Path(tmp) / "archive.tar.gz"
            with archive.open("wb") as sink:  # streamed to disk, never held in memory
                tarball = fetcher.fetch(
                    f"{base}/tarball/{sha}",
                    headers=_headers("application/vnd.github+json"),
                    raw=True,
                    sink=sink,
                )
            _check(tarball, f"downloading {spec.owner}/{spec.name}@{sha[:12]}")
            blob = f"{web_base(api)}/{spec.owner}/{spec.name}/blob/{sha}/"
            meta = {
                "github_repo": f"{spec.owner}/{spec.name}",
                "github_ref": spec.ref,
                "github_path": sub,
                "sha": sha,
            }
            tree = Path(tmp) / "tree"
            tree.mkdir()
            report = _index_tree(index, archive, tree, name, sub, blob, meta, progress)
    finally:
        if own:
            fetcher.close()
    index.ensure_repo(name, source=source, ref=spec.ref, commit=sha)  # only now: retried if interrupted
    return dataclasses.replace(report, sections=repo_sections(index, name), elapsed_ms=_ms(started))


def _repo_name(index: Index, spec: GitHubSpec, repo: str | None, version: str | None) -> str:
    """The repo a run writes (see ``repo`` and ``version`` of :func:`index_github`)."""
    if repo is not None or version is not None or spec.ref is None:
        return with_version(repo or spec.name, version)
    legacy = next((r for r in index.list_repos() if r.repo == spec.name), None)
    if (
        legacy is not None
        and legacy.source.startswith(f"github:{spec.owner}/{spec.name}@")
        and legacy.ref == spec.ref
    ):
        return spec.name
    return with_version(spec.name, version_from_ref(spec.ref))


def _resolve_sha(fetcher: Fetcher, base: str, spec: GitHubSpec) -> str:
    """The commit SHA of ``spec.ref`` (one request). Raises SourceError."""
    target = urllib.parse.quote(spec.ref or "HEAD", safe="")
    answer = fetcher.fetch(
        f"{base}/commits/{target}", headers=_headers("application/vnd.github.sha"), raw=True
    )
    what = f"{spec.owner}/{spec.name}@{spec.ref or 'HEAD'}"
    _check(answer, f"resolving {what}")
    sha = answer.body.decode("ascii", errors="replace").strip()
    if not _SHA.match(sha):
        raise SourceError(f"GitHub returned no commit SHA for {what}")
    return sha


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _index_tree(
    index: Index,
    archive: Path,
    dest: Path,
    repo: str,
    sub: str | None,
    blob: str,
    meta: dict[str, Any],
    progress: Progress | None,
) -> IndexReport:
    suffixes = supported_suffixes()
    prefix = f"{sub}/" if sub else ""

    def keep(rel: str) -> bool:
        return rel.startswith(prefix) and Path(rel).suffix.lower() in suffixes

    with archive.open("rb") as stream:
        extracted = extract_tarball(stream, dest, keep=keep, limits=TarLimits())
    root = dest / sub if sub else dest
    errors: list[FileError] = [FileError(n, "unsafe archive entry skipped") for n in extracted.skipped_unsafe]
    skipped = len(extracted.skipped_large)
    files = []
    if root.is_dir():
        result = walk(root, suffixes=suffixes, max_file_bytes=DEFAULT_MAX_FILE_BYTES)
        files = list(result.files)
        skipped += len(result.skipped)
    known = (
        {doc.doc_path for doc in index.list_docs(repo)}
        if any(r.repo == repo for r in index.list_repos())
        else set()
    )
    pending_source = f"github:pending/{repo}"
    indexed = unchanged = 0
    seen: set[str] = set()
    for done, item in enumerate(files, start=1):
        doc_path = prefix + item.doc_path
        seen.add(doc_path)
        try:
            raw = item.path.read_bytes()
            if looks_binary(raw, item.path.suffix):
                seen.discard(doc_path)
                skipped += 1
                continue
            digest = hashlib.sha256(raw).hexdigest()
            state = index.document_state(repo, doc_path)
            if state is not None and state.source_hash == digest and state.meta.get("github_path") == sub:
                unchanged += 1
            else:
                rendition = render_file(item.path, raw)
                fields = {f.name: getattr(rendition, f.name) for f in dataclasses.fields(Rendition)}
                fields.update(source_ref=blob + doc_path, meta={**rendition.meta, **meta})
                wrapped = _BlobRendition(**fields, blob_url=blob + urllib.parse.quote(doc_path))
                index.put_document(repo, doc_path, wrapped, source_hash=digest, source=pending_source)
                indexed += 1
        except Exception as exc:  # one bad file never ends the run (DocmunchError or not)
            errors.append(FileError(doc_path, one_line(exc)))
        finally:
            if progress is not None:
                progress(done, len(files), doc_path)
    removed = len(index.remove_documents(repo, sorted(known - seen)))  # one transaction
    return IndexReport(repo, indexed, unchanged, removed, skipped, 0, tuple(errors), 0)
