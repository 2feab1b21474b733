"""Web pages as documents: ``docmunch extract URL|FILE`` and ``docmunch index URL``.

One page goes: fetch (:mod:`docmunch.fetch`, SSRF-guarded) → by content type, HTML through
extraction + conversion (:func:`docmunch.formats.html.render_html`), Markdown and plain text as
they are → :meth:`Index.put_document`. The split between :func:`load_page` (network and CPU, no
index writes, safe in worker threads) and :func:`store_page` (one index write) lets the site
crawler (:mod:`docmunch.sources.crawl`) fetch in parallel while one thread writes.

Incremental re-index: the page's ``ETag``/``Last-Modified`` and the sha256 of its body are kept
in the document (``meta`` and ``source_hash``). A re-index sends a conditional request (a 304
costs no download and no extraction); a 200 whose body hash equals the stored one is not
extracted either.

Repos and paths: the default repo is the URL's host name; ``doc_path`` is the URL path with
``.md`` (``/`` → ``index.md``, ``/a/b/`` → ``a/b/index.md``, ``/a/b.html`` → ``a/b.md``).
"""

from __future__ import annotations

import hashlib
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from selectolax.lexbor import LexborHTMLParser

from docmunch.convert import html_to_markdown
from docmunch.errors import DocmunchError, FetchError, HTTPStatusError, SourceError
from docmunch.extract import extract
from docmunch.fetch import Fetcher, FetchResult, decode_html
from docmunch.fetch.mime import parse_content_type
from docmunch.formats.base import Rendition
from docmunch.formats.html import article_meta, render_html
from docmunch.index import DocState, FileError, Index, IndexReport
from docmunch.sources.discover import normalize_url

__all__ = [
    "Page",
    "doc_path_for",
    "extract_source",
    "index_url",
    "load_page",
    "make_fetcher",
    "page_links",
    "repo_sections",
    "store_page",
]

Progress = Callable[[int, int, str], None]
"""``progress(done, total, url)`` after each page."""
Outcome = Literal["changed", "unchanged", "gone"]
_GONE = frozenset({404, 410})
_EXTRACTABLE = frozenset({".html", ".htm", ".xhtml", ".md", ".markdown", ".txt"})


def make_fetcher(*, allow_private: bool = False, **options: Any) -> Fetcher:
    """A :class:`Fetcher` for indexing; ``allow_private=False`` still honours ``DOCMUNCH_ALLOW_PRIVATE``."""
    return Fetcher(allow_private=True if allow_private else None, **options)


def doc_path_for(url: str) -> str:
    """The ``doc_path`` of a page URL (see the module docstring); a query adds a short hash."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path or "/").lstrip("/")
    if not path or path.endswith("/"):
        path += "index"
    else:
        for suffix in (".html", ".htm", ".md", ".markdown", ".txt"):
            if path.lower().endswith(suffix):
                path = path[: -len(suffix)]
                break
    if parts.query:
        path += "_" + hashlib.sha256(parts.query.encode()).hexdigest()[:8]
    return path + ".md"


@dataclass(frozen=True, slots=True)
class PageLinks:
    """What a page's HTML says about other URLs (all normalised, absolute)."""

    links: tuple[str, ...]
    """``<a href>`` targets in document order, unique, http(s) only."""
    canonical: str | None
    """``<link rel="canonical">`` target."""
    markdown: str | None
    """``<link rel="alternate" type="text/markdown">`` target (the page's Markdown alternate)."""


def page_links(html: str, url: str) -> PageLinks:
    """Links, canonical URL and Markdown alternate of a page (lexbor parse; ``<base href>`` honoured)."""
    tree = LexborHTMLParser(html)
    base = url
    base_node = tree.css_first("base[href]")
    if base_node is not None:
        base = urllib.parse.urljoin(url, (base_node.attributes.get("href") or "").strip())
    seen: dict[str, None] = {}
    for node in tree.css("a[href]"):
        target = normalize_url(node.attributes.get("href") or "", base=base)
        if target:
            seen.setdefault(target, None)
    canonical = markdown = None
    for node in tree.css("link[rel][href]"):
        rel = (node.attributes.get("rel") or "").lower().split()
        href = node.attributes.get("href") or ""
        if "canonical" in rel and canonical is None:
            canonical = normalize_url(href, base=base)
        kind = (node.attributes.get("type") or "").lower()
        if "alternate" in rel and kind in ("text/markdown", "text/x-markdown") and markdown is None:
            markdown = normalize_url(href, base=base)
    return PageLinks(tuple(seen), canonical, markdown)


@dataclass(frozen=True, slots=True)
class Page:
    """One page after :func:`load_page`: what to store (if anything) and where it points."""

    url: str
    """Final URL (after redirects), normalised."""
    doc_path: str
    outcome: Outcome
    """``changed`` (store ``rendition``), ``unchanged`` (nothing to do), ``gone`` (404/410)."""
    rendition: Rendition | None = None
    source_hash: str = ""
    """sha256 hex of the page body as served."""
    links: tuple[str, ...] = ()
    """Links found in the page (for unchanged pages: the stored ones)."""
    canonical: str | None = None
    fetched_bytes: int = 0
    """Body bytes downloaded for this page (0 for a 304)."""


def _conditional(state: DocState | None) -> dict[str, str | None]:
    meta = state.meta if state is not None else {}
    return {"etag": meta.get("etag"), "last_modified": meta.get("last_modified")}


def load_page(
    fetcher: Fetcher,
    url: str,
    *,
    state: DocState | None = None,
    doc_path: str | None = None,
    prefer_markdown: bool = True,
) -> Page:
    """Fetch one page (conditionally, given its stored ``state``) and render it when it changed.

    Args:
        fetcher: the run's fetcher (thread-safe).
        url: the page URL.
        state: the stored document for this page, if any (its etag/last_modified/hash are used).
        doc_path: where it is stored; default :func:`doc_path_for` of the final URL.
        prefer_markdown: fetch and store the page's ``text/markdown`` alternate when it has one.

    Returns:
        A :class:`Page`; a 404/410 answer gives ``outcome="gone"`` instead of an error.

    Raises:
        FetchError (any subclass), ExtractError, ConvertError: the page cannot be indexed.
    """
    try:
        result = fetcher.fetch(url, **_conditional(state))
    except HTTPStatusError as exc:
        if exc.status_code in _GONE:
            return Page(normalize_url(url) or url, doc_path or doc_path_for(url), "gone")
        raise
    final = normalize_url(result.url) or result.url
    path = doc_path or doc_path_for(final)
    stored_links = tuple((state.meta.get("links") or ()) if state is not None else ())
    if result.not_modified:
        return Page(final, path, "unchanged", links=stored_links)
    digest = hashlib.sha256(result.body).hexdigest()
    size = len(result.body)
    if state is not None and state.source_hash == digest:
        return Page(final, path, "unchanged", source_hash=digest, links=stored_links, fetched_bytes=size)
    rendition, links, canonical = _render(fetcher, result, final, prefer_markdown)
    meta = {
        **rendition.meta,
        "url": final,
        "etag": result.etag,
        "last_modified": result.last_modified,
        "content_type": result.content_type,
        "links": list(links),
    }
    return Page(final, path, "changed", replace(rendition, meta=meta), digest, links, canonical, size)


def _render(
    fetcher: Fetcher, result: FetchResult, url: str, prefer_markdown: bool
) -> tuple[Rendition, tuple[str, ...], str | None]:
    if result.kind == "markdown":
        return Rendition(result.text.encode("utf-8"), "url", source_ref=url, meta={"anchors": []}), (), None
    if result.kind == "text":
        return Rendition(result.text.encode("utf-8"), "text", source_ref=url), (), None
    found = page_links(result.text, url)
    if prefer_markdown and found.markdown and found.markdown != url:
        try:
            alternate: FetchResult | None = fetcher.fetch(found.markdown)
        except FetchError:  # a broken alternate link: the HTML is still there
            alternate = None
        if alternate is not None and alternate.kind == "markdown":
            text = alternate.text.encode("utf-8")
            meta = {"anchors": [], "markdown_url": found.markdown}
            return Rendition(text, "url", source_ref=url, meta=meta), found.links, found.canonical
    rendition = render_html(result.body, url=url, http_charset=_http_charset(result))
    return rendition, found.links, found.canonical


def _http_charset(result: FetchResult) -> str | None:
    return parse_content_type(result.headers.get("content-type"))[1]


def store_page(index: Index, repo: str, page: Page, *, source: str) -> int:
    """Write a ``changed`` page (returns its section count) or remove a ``gone`` one (returns 0)."""
    if page.outcome == "gone":
        index.remove_document(repo, page.doc_path)
        return 0
    if page.outcome == "changed" and page.rendition is not None:
        return index.put_document(
            repo, page.doc_path, page.rendition, source_hash=page.source_hash, source=source
        )
    return 0


def repo_sections(index: Index, repo: str) -> int:
    """Total sections of ``repo`` now (0 when it does not exist)."""
    return next((info.sections for info in index.list_repos() if info.repo == repo), 0)


def index_url(
    index: Index,
    url: str,
    *,
    repo: str | None = None,
    allow_private: bool = False,
    crawl: bool = False,
    max_pages: int = 500,
    scope: str | None = None,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> IndexReport:
    """Index one page (or, with ``crawl=True``, a whole site: :func:`docmunch.sources.crawl.crawl_site`).

    Args:
        index: the open index.
        url: an ``http(s)`` URL.
        repo: repo name; default the URL's host name.
        allow_private: lift the SSRF guard (intranets, tests on 127.0.0.1).
        crawl, max_pages, scope, concurrency: see :func:`docmunch.sources.crawl.crawl_site`.
        progress: ``progress(done, total, url)`` after each page.

    Returns:
        The :class:`IndexReport`; for one page a fetch/extract failure is raised, not reported.

    Raises:
        SourceError: not an http(s) URL. FetchError/ExtractError/ConvertError: single page failed.
    """
    start = normalize_url(url)
    if start is None:
        raise SourceError(f"not an http(s) URL: {url!r}", path=url)
    name = repo or urllib.parse.urlsplit(start).hostname or "web"
    if crawl:
        from docmunch.sources.crawl import crawl_site

        return crawl_site(
            index,
            start,
            repo=name,
            allow_private=allow_private,
            max_pages=max_pages,
            scope=scope,
            concurrency=concurrency,
            progress=progress,
        )
    started = time.perf_counter()
    path = doc_path_for(start)
    with make_fetcher(allow_private=allow_private) as fetcher:
        page = load_page(fetcher, start, state=index.document_state(name, path), doc_path=path)
    if page.outcome == "gone":
        raise HTTPStatusError(f"HTTP 404 from {start}", url=start, status_code=404)
    index.ensure_repo(name, source=start)
    store_page(index, name, page, source=start)
    if progress is not None:
        progress(1, 1, start)
    return IndexReport(
        repo=name,
        docs_indexed=int(page.outcome == "changed"),
        docs_unchanged=int(page.outcome == "unchanged"),
        docs_removed=0,
        docs_skipped=0,
        sections=repo_sections(index, name),
        errors=(),
        elapsed_ms=round((time.perf_counter() - started) * 1000),
    )


def page_error(url: str, exc: BaseException) -> FileError:
    """A report entry for a failed page (one line)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return FileError(url, text if isinstance(exc, DocmunchError) else f"{type(exc).__name__}: {text}")


def extract_source(
    source: str, *, format: str = "markdown", allow_private: bool = False
) -> str | dict[str, Any]:
    """``docmunch extract``: the main content of a URL or a local HTML/Markdown file.

    Args:
        source: an ``http(s)`` URL or a file path.
        format: ``"markdown"`` (text), ``"html"`` (the cleaned content element), or ``"json"``:
            ``{"url","title","byline","excerpt","site_name","lang","dir","published_time",
            "platform","markdown","text","content_html","length"}``.
        allow_private: lift the SSRF guard.

    Raises:
        SourceError: unknown format or missing file. FetchError/ExtractError: as for indexing.
    """
    if format not in ("markdown", "json", "html"):
        raise SourceError(f"unknown format {format!r}; use markdown, json or html")
    if source.startswith(("http://", "https://")):
        with make_fetcher(allow_private=allow_private) as fetcher:
            result = fetcher.fetch(source)
        url, kind, text = result.url, result.kind, result.text
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise SourceError(f"no such file: {source}", path=source)
        suffix = path.suffix.lower()
        if suffix not in _EXTRACTABLE:
            raise SourceError(
                f"cannot extract {source}: {suffix or 'no suffix'} is not HTML, Markdown or text "
                "(index PDF/DOCX files with `docmunch index`)",
                path=source,
            )
        data = path.read_bytes()
        url = path.resolve().as_uri()
        kind = "html" if suffix in (".html", ".htm", ".xhtml") else "markdown"
        text = decode_html(data)[0] if kind == "html" else data.decode("utf-8", errors="replace")
    if kind != "html":  # Markdown / plain text: already what extraction would give
        fields: dict[str, Any] = dict.fromkeys(
            ("title", "byline", "excerpt", "site_name", "lang", "dir", "published_time")
        )
        fields.update(platform="generic", markdown=text, text=text, content_html="", length=len(text))
    else:
        article = extract(text, url=url)
        fields = {
            "title": article.title,
            **article_meta(article),
            "markdown": html_to_markdown(article.content, base_url=url),
            "text": article.text,
            "content_html": article.content_html,
            "length": article.length,
        }
    if format == "markdown":
        return str(fields["markdown"])
    if format == "html":
        return str(fields["content_html"] or fields["markdown"])
    return {"url": url, **fields}
