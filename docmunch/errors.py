"""The docmunch exception tree.

Every error a user can cause is a :class:`DocmunchError`; the CLI prints its message on one
line and exits 1, the MCP server turns it into a tool error. Builtin ``ValueError`` and
``TypeError`` are raised only for programmer misuse.

::

    DocmunchError
    ├── FetchError                  (url)
    │   ├── BlockedAddress          SSRF guard refused the address (reason)
    │   ├── TooLarge                body exceeded the size cap (limit_bytes)
    │   ├── DecodeError             bytes could not be decoded / decompressed
    │   ├── HTTPStatusError         non-success HTTP status (status_code)
    │   ├── UnsupportedContentType  content-type docmunch cannot index (content_type)
    │   ├── SkippedURL              a crawl rule refused the URL before any request (reason)
    │   │   └── RobotsDisallowed    robots.txt forbids the URL (reason "robots")
    │   ├── InvalidURL              malformed URL or one without a host
    │   ├── NetworkError            DNS, connection, TLS, protocol failure or timeout
    │   └── RedirectError           a redirect docmunch does not follow (chain)
    │       └── RedirectLoop        the redirects come back to a URL already requested
    ├── ExtractError                no main content could be found (url)
    │   └── PageTooComplex          the page exceeded its CPU / wall-clock budget (limit_seconds)
    ├── ConvertError                HTML/DOCX/PDF could not be rendered as Markdown (path)
    │   ├── NoTextLayer             scanned PDF without text; OCR is not supported
    │   └── PasswordRequired        encrypted PDF; pass its password with --password-stdin
    ├── SourceError                 a source (folder, file, repo) cannot be read (path)
    │   └── NothingToIndex          a folder holds no file of a known format (path, files_seen)
    │       └── AllSkipped          every file of a known format was skipped (path, skipped)
    ├── LimitExceeded               an input is over a resource limit (limit, value, env, path)
    ├── ConfigError                 a setting (environment variable) has an invalid value (name)
    ├── RunCancelled                the caller cancelled an index run between two files (done, total)
    ├── IndexStoreError             the SQLite store or raw cache is unusable (path)
    │   └── SchemaVersionError      index written by another schema version
    ├── InvalidRepoName             a repo name or version is not allowed (repo)
    ├── RepoNotFound                no indexed repo by that name (repo)
    │   └── UnknownVersion          the name is indexed, that version is not (repo, known)
    ├── RepoExists                  a write would replace an existing repo (repo)
    ├── PackError                   a pack file cannot be written or read (path)
    │   ├── PackCorrupt             a hash, size or structure check failed: tampered/truncated
    │   └── PackSchemaError         pack written by another pack format or index schema
    ├── SetupError                  an MCP client's config cannot be read or written (path)
    ├── DocumentNotFound            no document by that path in the repo (repo, doc_path)
    └── SectionNotFound             no section by that id in the repo (repo, section_id)
"""

from __future__ import annotations

from collections.abc import Iterable

from docmunch.suggest import near_matches

__all__ = [
    "AllSkipped",
    "BlockedAddress",
    "ConfigError",
    "ConvertError",
    "DecodeError",
    "DocmunchError",
    "DocumentNotFound",
    "ExtractError",
    "FetchError",
    "HTTPStatusError",
    "IndexStoreError",
    "InvalidRepoName",
    "InvalidURL",
    "LimitExceeded",
    "NetworkError",
    "NoTextLayer",
    "NothingToIndex",
    "PackCorrupt",
    "PackError",
    "PackSchemaError",
    "PageTooComplex",
    "PasswordRequired",
    "RedirectError",
    "RedirectLoop",
    "RepoExists",
    "RepoNotFound",
    "RobotsDisallowed",
    "RunCancelled",
    "SchemaVersionError",
    "SectionNotFound",
    "SetupError",
    "SkippedURL",
    "SourceError",
    "TooLarge",
    "UnknownVersion",
    "UnsupportedContentType",
]


class DocmunchError(Exception):
    """Root of every error docmunch raises on bad input. ``str(err)`` is a one-line message."""


class FetchError(DocmunchError):
    """A URL could not be fetched. ``url`` is the URL that failed (after redirects, if any)."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = url


class BlockedAddress(FetchError):
    """The SSRF guard refused a URL; ``reason`` says which rule (e.g. ``"loopback"``)."""

    def __init__(self, message: str, *, url: str | None = None, reason: str = "") -> None:
        super().__init__(message, url=url)
        self.reason = reason


class TooLarge(FetchError):
    """A body (after decompression) exceeded ``limit_bytes``."""

    def __init__(self, message: str, *, url: str | None = None, limit_bytes: int = 0) -> None:
        super().__init__(message, url=url)
        self.limit_bytes = limit_bytes


class DecodeError(FetchError):
    """Bytes could not be decompressed or decoded."""


class HTTPStatusError(FetchError):
    """The server answered with a non-success status (``status_code``)."""

    def __init__(self, message: str, *, url: str | None = None, status_code: int = 0) -> None:
        super().__init__(message, url=url)
        self.status_code = status_code


class UnsupportedContentType(FetchError):
    """The response's content-type is not HTML, XHTML, Markdown or plain text."""

    def __init__(self, message: str, *, url: str | None = None, content_type: str = "") -> None:
        super().__init__(message, url=url)
        self.content_type = content_type


class SkippedURL(FetchError):
    """A crawl rule refused the URL before it was requested; ``reason`` is a skip reason code
    (``"scope"``, ``"duplicate"``, ``"robots"``: see ``docmunch.sources.tally.SKIP_REASONS``)."""

    def __init__(self, message: str, *, url: str | None = None, reason: str = "") -> None:
        super().__init__(message, url=url)
        self.reason = reason


class RobotsDisallowed(SkippedURL):
    """robots.txt forbids docmunch from fetching the URL."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message, url=url, reason="robots")


class InvalidURL(FetchError):
    """A URL that cannot be parsed, or one without a host (``https:``, ``http://[x``)."""


class NetworkError(FetchError):
    """The HTTP stack failed below HTTP: name resolution, connection, TLS, a malformed response
    (protocol error) or a timeout. Every exception of httpx/httpcore/h11/ssl/socket that a
    response can cause arrives as this (or another :class:`FetchError`), never as itself."""


class RedirectError(FetchError):
    """A redirect docmunch will not follow: a ``Location`` that is not an http(s) URL with a
    host, or more hops than allowed. ``chain`` lists the URLs requested, in order."""

    def __init__(self, message: str, *, url: str | None = None, chain: tuple[str, ...] = ()) -> None:
        super().__init__(message, url=url)
        self.chain = chain


class RedirectLoop(RedirectError):
    """The redirects lead back to a URL already requested; ``chain`` ends with that URL again
    (``/a → /b → /a``)."""


class ExtractError(DocmunchError):
    """No main content could be extracted from a page."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = url


class PageTooComplex(ExtractError):
    """Extracting or converting one page used more than its budget of ``limit_seconds``.

    ``kind`` is ``"cpu"`` (CPU time of the working thread) or ``"wall"`` (elapsed time);
    the limits and the variable that raises them are in :mod:`docmunch.extract._budget`.
    """

    def __init__(
        self, message: str, *, url: str | None = None, limit_seconds: float = 0.0, kind: str = "cpu"
    ) -> None:
        super().__init__(message, url=url)
        self.limit_seconds = limit_seconds
        self.kind = kind


class ConvertError(DocmunchError):
    """A document (HTML, DOCX, PDF, …) could not be rendered as Markdown."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class NoTextLayer(ConvertError):
    """A PDF has no text layer (scanned); OCR is not supported."""


class PasswordRequired(ConvertError):
    """A PDF is encrypted; a password is needed or was wrong. The message ends with :attr:`HINT`
    (encrypted DOCX files are a plain :class:`ConvertError`: no password opens them)."""

    HINT = "pass its password with --password-stdin (or --password PW)"
    """How the CLI takes a password, safer option first (``--password`` shows it in process
    lists). The MCP server replaces this text (``docmunch.serve._hints``): tools take no password."""


class SourceError(DocmunchError):
    """A source (folder, file, archive, repo spec) cannot be read."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class NothingToIndex(SourceError):
    """A folder holds no file of a known format, so a new repo would be empty (none is created).

    ``files_seen`` is how many files the walk looked at (hidden, ignored and other-type files
    included); the message says how many of them had another type, and which suffixes count.
    """

    def __init__(self, message: str, *, path: str | None = None, files_seen: int = 0) -> None:
        super().__init__(message, path=path)
        self.files_seen = files_seen


class AllSkipped(NothingToIndex):
    """Every file of a known format in the folder (or the one file given) was skipped by a safety
    rule (larger than the size cap, binary content, …), so the run could index nothing; nothing
    was written (a new repo is not created, an existing one keeps every document).

    ``skipped`` is ``((reason, files), …)``, most frequent first, as the message lists them.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        files_seen: int = 0,
        skipped: tuple[tuple[str, int], ...] = (),
    ) -> None:
        super().__init__(message, path=path, files_seen=files_seen)
        self.skipped = skipped


class LimitExceeded(DocmunchError):
    """An input is over a resource limit (:mod:`docmunch.limits`): a bomb, or just very large.

    ``limit`` is the limit's constant name, ``value`` the limit in force, ``env`` the
    environment variable that raises it, ``path`` the file or URL concerned (when known).
    """

    def __init__(
        self, message: str, *, limit: str, value: int, env: str, path: str | None = None
    ) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value
        self.env = env
        self.path = path


class ConfigError(DocmunchError):
    """A setting has an invalid value; ``name`` is the environment variable (or option)."""

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message)
        self.name = name


class RunCancelled(DocmunchError):
    """The caller of an index run (an MCP client's ``notifications/cancelled``) stopped it.

    Raised by the run's progress callback, so the run stops between two files or pages: the
    documents committed before stay, the run's journal says it was interrupted (the next run of
    the repo completes it and says so, :mod:`docmunch.index.runlock`). ``done`` and ``total``
    are the progress counts when it stopped.
    """

    def __init__(self, message: str, *, done: int, total: int) -> None:
        super().__init__(message)
        self.done = done
        self.total = total


class IndexStoreError(DocmunchError):
    """The index store (SQLite database or raw cache under ``path``) is unusable."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class SchemaVersionError(IndexStoreError):
    """The index was written by another schema version; the message says how to rebuild."""


class InvalidRepoName(DocmunchError):
    """A repo name or version (``NAME@VERSION``) breaks the naming rules; the message says which."""

    def __init__(self, message: str, *, repo: str) -> None:
        super().__init__(message)
        self.repo = repo


class RepoNotFound(DocmunchError):
    """No indexed repo is called ``repo``; ``known`` (the stored names) feeds a did-you-mean."""

    def __init__(self, repo: str, message: str | None = None, *, known: Iterable[str] = ()) -> None:
        near: list[str] = []
        if message is None:
            near = near_matches(repo, known)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            message = f"unknown repo {repo!r}{hint}; `docmunch list` (MCP: list_repos) shows the indexed ones"
        super().__init__(message)
        self.repo = repo
        self.suggestions = near
        """Indexed names close to ``repo`` (the did-you-mean), empty when none or a message was given."""


class UnknownVersion(RepoNotFound):
    """``NAME`` is indexed but not at the asked version; ``known`` lists its versions (full names)."""

    def __init__(self, repo: str, known: list[str]) -> None:
        super().__init__(
            repo,
            f"unknown version {repo!r}; indexed versions of {repo.split('@', 1)[0]!r}: "
            f"{', '.join(known)} (`docmunch list`, MCP: list_repos, shows them all)",
        )
        self.known = known


class RepoExists(DocmunchError):
    """A write (import, rename) would replace the existing repo ``repo`` without being told to."""

    def __init__(self, message: str, *, repo: str) -> None:
        super().__init__(message)
        self.repo = repo


class PackError(DocmunchError):
    """A pack file (``docmunch export`` / ``import``) at ``path`` cannot be written or read."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class PackCorrupt(PackError):
    """A pack failed a check (sha256 of a blob or of the rows, sizes, SQLite structure): it was
    changed or cut short after it was written. Nothing was imported."""


class PackSchemaError(PackError):
    """A pack was written by another pack format or another index schema version."""


class SetupError(DocmunchError):
    """An MCP client's config file at ``path`` cannot be read, parsed or written (it is left as it was)."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class DocumentNotFound(DocmunchError):
    """No document ``doc_path`` exists in ``repo`` (``None``: in any searched repo); the
    message names up to three ``suggestions`` (similar doc_paths) when given."""

    def __init__(self, repo: str | None, doc_path: str, *, suggestions: tuple[str, ...] = ()) -> None:
        where = f"repo {repo!r}" if repo is not None else "any repo"
        hint = f" (similar: {', '.join(repr(s) for s in suggestions[:3])})" if suggestions else ""
        super().__init__(
            f"unknown document {doc_path!r} in {where}{hint}; "
            "`docmunch toc REPO` (MCP: list_docs) lists the indexed documents"
        )
        self.repo = repo
        self.doc_path = doc_path
        self.suggestions = suggestions


class SectionNotFound(DocmunchError):
    """No section ``section_id`` exists in ``repo``; the message also says when the id itself
    names another repo (ids read ``REPO::DOC_PATH::SLUGS#LEVEL``), and names up to three
    ``suggestions`` (ids of the repo the given one is close to: its ``#LEVEL`` or a parent's slug
    left out) when given."""

    def __init__(self, repo: str, section_id: str, *, suggestions: tuple[str, ...] = ()) -> None:
        named = section_id.partition("::")[0] if "::" in section_id else ""
        other = named and named.split("@", 1)[0] != repo.split("@", 1)[0]
        hint = f" (the id names repo {named!r})" if other else ""
        where = f"in repo {repo!r}{hint}" if repo else "naming no repo (ids read REPO::DOC_PATH::…)"
        meant = f" (did you mean {', '.join(repr(s) for s in suggestions[:3])}?)" if suggestions else ""
        super().__init__(
            f"unknown section id {section_id!r} {where}{meant}; "
            "search or toc (MCP: search_sections, get_toc) list valid ids"
        )
        self.repo = repo
        self.section_id = section_id
        self.suggestions = suggestions
