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
    │   └── RobotsDisallowed        robots.txt forbids the URL
    ├── ExtractError                no main content could be found (url)
    │   └── PageTooComplex          the page exceeded its CPU / wall-clock budget (limit_seconds)
    ├── ConvertError                HTML/DOCX/PDF could not be rendered as Markdown (path)
    │   ├── NoTextLayer             scanned PDF without text; OCR is not supported
    │   └── PasswordRequired        encrypted PDF/DOCX; pass --password
    ├── SourceError                 a source (folder, file, repo) cannot be read (path)
    ├── IndexStoreError             the SQLite store or raw cache is unusable (path)
    │   └── SchemaVersionError      index written by another schema version
    ├── RepoNotFound                no indexed repo by that name (repo)
    ├── DocumentNotFound            no document by that path in the repo (repo, doc_path)
    └── SectionNotFound             no section by that id in the repo (repo, section_id)
"""

from __future__ import annotations

__all__ = [
    "BlockedAddress",
    "ConvertError",
    "DecodeError",
    "DocmunchError",
    "DocumentNotFound",
    "ExtractError",
    "FetchError",
    "HTTPStatusError",
    "IndexStoreError",
    "NoTextLayer",
    "PageTooComplex",
    "PasswordRequired",
    "RepoNotFound",
    "RobotsDisallowed",
    "SchemaVersionError",
    "SectionNotFound",
    "SourceError",
    "TooLarge",
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


class RobotsDisallowed(FetchError):
    """robots.txt forbids docmunch from fetching the URL."""


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
    """A document is encrypted; a password (``--password``) is needed or was wrong."""


class SourceError(DocmunchError):
    """A source (folder, file, archive, repo spec) cannot be read."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class IndexStoreError(DocmunchError):
    """The index store (SQLite database or raw cache under ``path``) is unusable."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class SchemaVersionError(IndexStoreError):
    """The index was written by another schema version; the message says how to rebuild."""


class RepoNotFound(DocmunchError):
    """No indexed repo is called ``repo``."""

    def __init__(self, repo: str) -> None:
        super().__init__(
            f"unknown repo {repo!r}; `docmunch list` (MCP: list_repos) shows the indexed ones"
        )
        self.repo = repo


class DocumentNotFound(DocmunchError):
    """No document ``doc_path`` exists in ``repo``."""

    def __init__(self, repo: str, doc_path: str) -> None:
        super().__init__(
            f"unknown document {doc_path!r} in repo {repo!r}; "
            "`docmunch toc REPO` (MCP: list_docs) lists the indexed documents"
        )
        self.repo = repo
        self.doc_path = doc_path


class SectionNotFound(DocmunchError):
    """No section ``section_id`` exists in ``repo``."""

    def __init__(self, repo: str, section_id: str) -> None:
        super().__init__(
            f"unknown section id {section_id!r} in repo {repo!r}; "
            "search or toc (MCP: search_sections, get_toc) list valid ids"
        )
        self.repo = repo
        self.section_id = section_id
