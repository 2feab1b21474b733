"""Web pages as documents: ``docmunch index URL`` (one page, or a crawl) and ``docmunch extract``.

One page is loaded by :func:`docmunch.sources.page.load_page` (fetch → extract → convert) and
written by :func:`docmunch.sources.page.store_page`; ``crawl=True`` hands the URL to
:func:`docmunch.sources.crawl.crawl_site`, which builds on the same two functions.

The default repo of a URL is :func:`docmunch.sources.urls.default_repo_name`: its host, plus
``:PORT`` for a port other than the scheme's default (``127.0.0.1:8732``). A single page the user
asked for is fetched without consulting robots.txt (it applies to crawlers, RFC 9309 §1); a
crawl honours it for every request.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

from docmunch.convert import html_to_markdown
from docmunch.errors import HTTPStatusError, SourceError
from docmunch.extract import extract
from docmunch.fetch import DEFAULT_MAX_BODY_BYTES, decode_html
from docmunch.formats import renderer_bytes
from docmunch.formats.html import article_meta
from docmunch.index import DEFAULT_MAX_FILE_BYTES, FileError, Index, IndexReport
from docmunch.index.runlock import index_command, still_incomplete
from docmunch.index.walk import read_regular
from docmunch.sources.crawl import crawl_site
from docmunch.sources.page import Progress, doc_path_for, load_page, make_fetcher
from docmunch.sources.spec import parse_source
from docmunch.sources.tally import RunTally
from docmunch.sources.urls import default_repo_name, normalize_url

__all__ = ["extract_source", "index_url"]

_EXTRACTABLE = frozenset({".html", ".htm", ".xhtml", ".md", ".markdown", ".txt"})

_RENDER: MarkdownIt = (
    MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"]).use(footnote_plugin)
)
"""The renderer of ``extract --format html`` for sources whose rendition is Markdown: CommonMark
+ GFM tables (as the sectioner parses them), strikethrough and footnotes (``[^1]``, as the DOCX
and HTML converters write them); raw HTML in the Markdown is escaped (shown as text, never
passed through) and markdown-it-py's own ``validateLink`` turns ``javascript:``, ``vbscript:``,
``file:`` and non-image ``data:`` links back into text (docs/decisions.md)."""


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
        repo: repo name; default :func:`docmunch.sources.urls.default_repo_name` (host[:port]).
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
    name = repo or default_repo_name(start)
    with index.exclusive(name) as run:  # one writer per repo (docmunch.index.runlock)
        held = None if crawl else next((r for r in index.list_repos() if r.repo == name), None)
        # one page into a repo that holds other pages reads a part of it: an interrupted run stays so
        if held is not None and held.docs > (index.document_state(name, doc_path_for(start)) is not None):
            run.completes = False
        report = _index_url(index, start, name, allow_private, crawl, max_pages, scope, concurrency, progress)
    if run.interrupted is None or held is None or run.completes:
        return dataclasses.replace(report, interrupted_run=run.interrupted)  # this run completed it
    command = index_command(held.source, name, "--crawl", *(["--allow-private"] if allow_private else []))
    why = f"this run read only {start}"
    still = FileError(held.source, still_incomplete(run.interrupted, why, command))
    return dataclasses.replace(report, warnings=(*report.warnings, still))


def _index_url(
    index: Index,
    start: str,
    name: str,
    allow_private: bool,
    crawl: bool,
    max_pages: int,
    scope: str | None,
    concurrency: int,
    progress: Progress | None,
) -> IndexReport:
    if crawl:
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
    tally = RunTally()
    tally.count(index, name, page, start)
    if progress is not None:
        progress(1, 1, start)
    return tally.report(index, name, started)


def extract_source(
    source: str, *, format: str = "markdown", allow_private: bool = False, password: str | None = None
) -> str | dict[str, Any]:
    """``docmunch extract``: the main content of a URL or a local file.

    HTML is extracted and converted; a URL's links and images come out absolute, a local file's
    as the page wrote them (``#frag``, ``other.html`` stay relative, so they still point next to
    the file). Markdown and text are returned as they are; any other format docmunch indexes
    (DOCX, PDF, reStructuredText, notebooks, MDX) gives the Markdown rendition the index stores
    for it.

    Args:
        source: an ``http(s)`` URL or a file path.
        password: for an encrypted local PDF.
        format: ``"markdown"`` (text), ``"html"`` (a page's cleaned content element; for every
            other source its rendition rendered as HTML: Markdown by markdown-it-py with raw HTML
            escaped, reStructuredText by docutils), or ``"json"`` (``content_html`` that HTML):
            ``{"url","title","byline","excerpt","site_name","lang","dir","published_time",
            "platform","markdown","text","content_html","length"}``.
        allow_private: lift the SSRF guard.

    Raises:
        SourceError: unknown format, unsupported scheme, a folder or a missing file. FetchError/ExtractError:
            as for indexing.
    """
    if format not in ("markdown", "json", "html"):
        raise SourceError(f"unknown format {format!r}; use markdown, json or html")
    spec = parse_source(source)
    if spec.kind == "github":
        message = f"extract takes a URL or a file, not {source!r} (use `docmunch index`)"
        raise SourceError(message, path=source)
    if spec.kind == "url":
        with make_fetcher(allow_private=allow_private) as fetcher:
            result = fetcher.fetch(spec.value)
        url, kind, text = result.url, result.kind, result.text
    else:
        path = Path(source).expanduser()
        if path.is_dir():
            message = f"{source} is a folder; extract takes one file or URL (`docmunch index` takes folders)"
            raise SourceError(message, path=source)
        if not path.is_file():
            raise SourceError(f"no such file: {source}", path=source)
        suffix = path.suffix.lower()
        if suffix not in _EXTRACTABLE:
            return _rendered_file(path, format, password=password)
        data = read_regular(path, DEFAULT_MAX_BODY_BYTES)  # as a fetched page; a FIFO is refused, not read
        data = renderer_bytes(path, data)[0]  # a UTF-16/32 file with a BOM: its UTF-8 form, as indexed
        url = path.resolve().as_uri()
        kind = "html" if suffix in (".html", ".htm", ".xhtml") else "markdown"
        text = decode_html(data)[0] if kind == "html" else data.decode("utf-8", errors="replace")
    if kind != "html":  # Markdown / plain text: already what extraction would give
        fields: dict[str, Any] = dict.fromkeys(
            ("title", "byline", "excerpt", "site_name", "lang", "dir", "published_time")
        )
        fields.update(
            platform="generic", markdown=text, text=text, content_html=_markdown_html(text), length=len(text)
        )
    else:
        # a local page keeps its links as written: "#frag" and "other.html" stay relative, so they
        # still point at the same places next to the file; a fetched page's links are absolute
        link_base = url if spec.kind == "url" else None
        article = extract(text, url=link_base)
        fields = {
            "title": article.title,
            **article_meta(article),
            "markdown": html_to_markdown(article.content, base_url=link_base),
            "text": article.text,
            "content_html": article.content_html,
            "length": article.length,
        }
    return _shaped(url, fields, format)


def _markdown_html(markdown: str) -> str:
    """``markdown`` rendered as HTML by :data:`_RENDER` (raw HTML escaped, unsafe links as text):
    the ``content_html`` of a source whose rendition is Markdown."""
    return str(_RENDER.render(markdown))


def _shaped(url: str, fields: dict[str, Any], format: str) -> str | dict[str, Any]:
    if format == "markdown":
        return str(fields["markdown"])
    if format == "html":  # always HTML: a page's cleaned content, else the Markdown rendered
        return str(fields["content_html"] or _markdown_html(str(fields["markdown"])))
    return {"url": url, **fields}


def _rendered_file(path: Path, format: str, *, password: str | None) -> str | dict[str, Any]:
    """A local file of another format as its Markdown rendition (``content_html``: that rendered;
    reStructuredText, stored as it is, rendered by docutils).

    Raises:
        SourceError: docmunch has no renderer for the suffix. ConvertError: rendering failed.
    """
    from docmunch.formats import render_file, supported_suffixes
    from docmunch.formats.rst import rst_html  # docutils: loaded only for a file that needs it

    suffix = path.suffix.lower()
    if suffix not in supported_suffixes():
        raise SourceError(
            f"cannot extract {path}: {suffix or 'no suffix'} is not a format docmunch reads", path=str(path)
        )
    rendition = render_file(path, read_regular(path, DEFAULT_MAX_FILE_BYTES), password=password)
    markdown = rendition.markdown.decode("utf-8", errors="replace")
    if rendition.source_kind == "rst":  # stored as the file's own reStructuredText, not Markdown
        content_html = rst_html(markdown, path=str(path))
    else:
        content_html = _markdown_html(markdown)
    fields: dict[str, Any] = dict.fromkeys(
        ("byline", "excerpt", "site_name", "lang", "dir", "published_time")
    )
    fields.update(
        title=rendition.title, platform=rendition.source_kind, markdown=markdown, text=markdown,
        content_html=content_html, length=len(markdown),
    )
    return _shaped(path.resolve().as_uri(), fields, format)
