"""Loading one web page: the piece single-page indexing, the crawl and refresh all build on.

One page goes: fetch (:mod:`docmunch.fetch`, SSRF-guarded) → by content type, HTML through
extraction + conversion (:func:`docmunch.formats.html.render_html`), Markdown and plain text as
they are → :meth:`Index.put_document`. :func:`load_page` does the network and CPU work with no
index writes (safe in worker threads); :func:`store_page` is the one index write.

Incremental re-index: the page's ``ETag``/``Last-Modified`` and the sha256 of its body are kept
in the document (``meta`` and ``source_hash``), with the URL they came from (``meta["url"]``, the
final URL after redirects). A re-index sends a conditional request (a 304 costs no download and
no extraction); a 200 whose body hash equals the stored one is not extracted either. Both
shortcuts apply only to that very URL (normalised): several URLs map to one ``doc_path``
(``x.md``, ``x.htm``, ``x.html``; ``d/index.md`` and ``d/``; and the same path on another
origin), and one URL's validators sent to another would get a 304 for a page never stored. The
validators are not sent on to a redirect target either: a conditional request that is redirected
is made again without them. :attr:`Page.replaces` names the other URL whose copy was replaced.

Paths: ``doc_path`` is the URL path with ``.md`` (``/`` → ``index.md``, ``/a/b/`` →
``a/b/index.md``, ``/a/b.html`` → ``a/b.md``).
"""

from __future__ import annotations

import hashlib
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

from docmunch.errors import DocmunchError, FetchError, HTTPStatusError
from docmunch.fetch import Fetcher, FetchResult
from docmunch.fetch.mime import parse_content_type
from docmunch.formats.base import Rendition
from docmunch.formats.html import render_html
from docmunch.index import DocState, FileError, Index
from docmunch.sources.urls import normalize_url

__all__ = [
    "BeforeRequest",
    "Page",
    "PageLinks",
    "Progress",
    "doc_path_for",
    "load_page",
    "make_fetcher",
    "markdown_links",
    "page_error",
    "page_links",
    "repo_sections",
    "store_page",
]

Progress = Callable[[int, int, str], None]
"""``progress(done, total, url)`` after each page."""
BeforeRequest = Callable[[str, str | None], None]
"""``(url, redirected_from)`` before each request (:meth:`Fetcher.fetch`); raises a
:class:`FetchError` to refuse it."""
Outcome = Literal["changed", "unchanged", "gone"]
_GONE = frozenset({404, 410})


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


def markdown_links(text: str, url: str) -> tuple[str, ...]:
    """The links of a Markdown page, in order, as :func:`page_links` finds them in the HTML
    that CommonMark renders it to (inline and reference links, autolinks, raw ``<a href>``):
    a crawl follows a ``text/markdown`` page's links as it follows an HTML page's."""
    return page_links(MarkdownIt("commonmark").render(text), url).links


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
    replaces: str | None = None
    """URL of a copy from another URL stored at ``doc_path``: a ``changed`` page replaces it,
    a ``gone`` page leaves it alone (another URL's page is not gone)."""


def same_url(a: object, b: str) -> bool:
    """True when ``a`` is a string naming the same URL as ``b`` once both are normalised."""
    return isinstance(a, str) and (normalize_url(a) or a) == (normalize_url(b) or b)


def usable_state(state: DocState | None, url: str) -> DocState | None:
    """``state`` when it was stored from ``url`` itself (normalised), else ``None``.

    Another URL's validators and body hash never stand in, even when it maps to the same
    ``doc_path`` (``x.md`` and ``x.htm``) or lies on the same origin.
    """
    if state is None or not same_url(state.meta.get("url"), url):
        return None
    return state


class _ConditionalRedirect(FetchError):
    """A conditional request was redirected: its validators belong to the URL first asked."""


def load_page(
    fetcher: Fetcher,
    url: str,
    *,
    state: DocState | None = None,
    doc_path: str | None = None,
    prefer_markdown: bool = True,
    before_request: BeforeRequest | None = None,
) -> Page:
    """Fetch one page (conditionally, given its stored ``state``) and render it when it changed.

    Args:
        fetcher: the run's fetcher (thread-safe).
        url: the page URL.
        state: the stored document at this page's path, if any; its etag/last_modified/hash are
            used only when it was stored from ``url`` itself (or from the URL it redirects to:
            the hash only), never for another URL of the same ``doc_path``.
        doc_path: where it is stored; default :func:`doc_path_for` of the final URL.
        prefer_markdown: fetch and store the page's ``text/markdown`` alternate when it has one.
        before_request: passed to :meth:`Fetcher.fetch` for the page and its Markdown alternate
            (a crawl's robots.txt, scope and once-per-run rules).

    Returns:
        A :class:`Page`; a 404/410 answer gives ``outcome="gone"`` instead of an error.

    Raises:
        FetchError (any subclass), ExtractError, ConvertError: the page cannot be indexed.
    """
    own = usable_state(state, url)
    replaced = state.meta.get("url") if state is not None and own is None else None
    meta = own.meta if own is not None else {}
    try:
        result = _fetch_page(fetcher, url, meta, before_request)
    except HTTPStatusError as exc:
        if exc.status_code in _GONE:
            other = replaced if isinstance(replaced, str) else None
            return Page(normalize_url(url) or url, doc_path or doc_path_for(url), "gone", replaces=other)
        raise
    final = normalize_url(result.url) or result.url
    path = doc_path or doc_path_for(final)
    if own is None and state is not None and same_url(state.meta.get("url"), final):
        own, replaced = state, None  # redirected to the very URL the stored copy came from
    meta = own.meta if own is not None else {}
    stored_links = tuple(meta.get("links") or ())
    if result.not_modified:
        return Page(final, path, "unchanged", links=stored_links)
    digest = hashlib.sha256(result.body).hexdigest()
    size = len(result.body)
    if own is not None and own.source_hash == digest:
        return Page(final, path, "unchanged", source_hash=digest, links=stored_links, fetched_bytes=size)
    rendition, links, canonical = _render(fetcher, result, final, prefer_markdown, before_request)
    stored = {
        **rendition.meta,
        "url": final,
        "etag": result.etag,
        "last_modified": result.last_modified,
        "content_type": result.content_type,
        "links": list(links),
    }
    if fetcher.policy.allow_private:  # refresh fetches it the same way (docmunch.sources.refresh)
        stored["allow_private"] = True
    return Page(
        final,
        path,
        "changed",
        replace(rendition, meta=stored),
        digest,
        links,
        canonical,
        size,
        replaced if isinstance(replaced, str) else None,
    )


def _fetch_page(
    fetcher: Fetcher, url: str, meta: dict[str, Any], before_request: BeforeRequest | None
) -> FetchResult:
    """GET ``url``, conditionally with ``meta``'s validators when it has any.

    The fetcher would send them on to every redirect hop; a redirected conditional request is
    stopped before the hop and made again without them (one extra request for a moved page).

    Raises:
        FetchError (any subclass): as :meth:`Fetcher.fetch`.
    """
    etag, last_modified = meta.get("etag"), meta.get("last_modified")
    if not etag and not last_modified:
        return fetcher.fetch(url, before_request=before_request)

    def first_hop_only(hop: str, redirected_from: str | None) -> None:
        if redirected_from is not None:
            raise _ConditionalRedirect(f"{redirected_from} redirects to {hop}", url=hop)
        if before_request is not None:
            before_request(hop, redirected_from)

    try:
        return fetcher.fetch(url, etag=etag, last_modified=last_modified, before_request=first_hop_only)
    except _ConditionalRedirect:
        return fetcher.fetch(url, before_request=before_request)


def _render(
    fetcher: Fetcher,
    result: FetchResult,
    url: str,
    prefer_markdown: bool,
    before_request: BeforeRequest | None,
) -> tuple[Rendition, tuple[str, ...], str | None]:
    if result.kind == "markdown":
        rendition = Rendition(result.text.encode("utf-8"), "url", source_ref=url, meta={"anchors": []})
        return rendition, markdown_links(result.text, url), None
    if result.kind == "text":
        return Rendition(result.text.encode("utf-8"), "text", source_ref=url), (), None
    found = page_links(result.text, url)
    if prefer_markdown and found.markdown and found.markdown != url:
        try:
            alternate: FetchResult | None = fetcher.fetch(found.markdown, before_request=before_request)
        except FetchError:  # a broken or refused alternate link: the HTML is still there
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
    """Write a ``changed`` page (returns its section count) or remove a ``gone`` one (returns 0).

    A ``gone`` page whose path holds another URL's copy (:attr:`Page.replaces`) removes nothing.
    """
    if page.outcome == "gone":
        if page.replaces is None:
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


def page_error(url: str, exc: BaseException) -> FileError:
    """A report entry for a failed page (one line; a foreign exception is named by its type)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return FileError(url, text if isinstance(exc, DocmunchError) else f"{type(exc).__name__}: {text}")
