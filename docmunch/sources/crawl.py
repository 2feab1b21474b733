"""Whole documentation sites: ``docmunch index URL --crawl`` and ``docmunch refresh REPO``.

Crawl order (issue 7): the start URL, then the links of ``llms.txt`` (else ``llms-full.txt``) at
the scope root and the site root, then every page of the sitemaps (``Sitemap:`` lines of
robots.txt, ``/sitemap.xml``; sitemap indexes and gzip followed), then links found in fetched
pages, breadth first. Every URL is normalised (:func:`docmunch.sources.discover.normalize_url`)
and must lie under the scope prefix (default: the start URL's origin and folder). A page's
``rel=canonical`` (in scope) names the document it is stored as, so no page is stored twice.

Politeness: robots.txt for ``docmunch`` and ``*`` (RFC 9309: a 4xx robots.txt allows
everything, a 5xx or unreachable one forbids everything); ``Crawl-delay`` becomes the host's
rate in the fetcher's limiter; the fetcher's per-host concurrency limit, ``max_pages`` and a
total byte budget bound the run.

Threads: ``concurrency`` workers fetch and render pages (:func:`docmunch.sources.web.load_page`,
no index writes); the calling thread schedules, writes each page
(:func:`docmunch.sources.web.store_page`) and reports progress. A failing page becomes an
``errors`` entry and the crawl goes on. When the crawl finished its frontier (no page or byte
limit hit), stored pages it no longer reached are removed: a full re-crawl mirrors the site.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
import urllib.parse
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from docmunch.errors import BlockedAddress, DocmunchError, HTTPStatusError, SourceError
from docmunch.fetch import Fetcher, check_url
from docmunch.index import FileError, Index, IndexReport
from docmunch.sources.discover import (
    Robots,
    in_scope,
    normalize_url,
    parse_llms_txt,
    parse_sitemap,
    scope_prefix,
)
from docmunch.sources.web import (
    Page,
    Progress,
    doc_path_for,
    load_page,
    make_fetcher,
    page_error,
    repo_sections,
    store_page,
)

__all__ = ["DEFAULT_MAX_TOTAL_BYTES", "RunTally", "crawl_site", "discover_seeds", "load_robots"]

DEFAULT_MAX_TOTAL_BYTES = 200 * 2**20
"""Total body bytes a crawl downloads before it stops scheduling pages (200 MiB)."""
_MAX_SITEMAPS = 50
"""Sitemap files read per crawl (indexes included)."""


@dataclass(slots=True)
class RunTally:
    """Counters of one run (mutated by the scheduling thread only)."""

    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    done: int = 0
    bytes: int = 0
    errors: list[FileError] = field(default_factory=list)

    def report(self, index: Index, repo: str, started: float) -> IndexReport:
        return IndexReport(
            repo=repo,
            docs_indexed=self.indexed,
            docs_unchanged=self.unchanged,
            docs_removed=self.removed,
            docs_skipped=self.skipped,
            sections=repo_sections(index, repo),
            errors=tuple(self.errors),
            elapsed_ms=round((time.perf_counter() - started) * 1000),
        )

    def count(self, index: Index, repo: str, page: Page, source: str) -> None:
        """Store ``page`` and count its outcome."""
        store_page(index, repo, page, source=source)
        self.bytes += page.fetched_bytes
        if page.outcome == "changed":
            self.indexed += 1
        elif page.outcome == "unchanged":
            self.unchanged += 1
        else:
            self.removed += 1


def load_robots(fetcher: Fetcher, origin: str) -> Robots:
    """robots.txt of ``origin`` (``scheme://host[:port]``), per RFC 9309 §2.3.1.

    Raises:
        SourceError: robots.txt answered 5xx or could not be fetched (complete disallow).
    """
    url = origin + "/robots.txt"
    try:
        result = fetcher.fetch(url, raw=True)
    except BlockedAddress:
        raise
    except DocmunchError as exc:
        raise SourceError(f"cannot read {url} ({exc}); not crawling (RFC 9309)", path=url) from None
    if result.status >= 500:
        raise SourceError(f"{url} answered HTTP {result.status}; not crawling (RFC 9309)", path=url)
    if result.status >= 400:
        return Robots.parse("")
    return Robots.parse(result.body.decode("utf-8", errors="replace"))


def _roots(scope: str, origin: str) -> list[str]:
    return list(dict.fromkeys([scope, origin + "/"]))


def _fetch_ok(fetcher: Fetcher, url: str) -> bytes | None:
    try:
        result = fetcher.fetch(url, raw=True)
    except DocmunchError:
        return None
    return result.body if result.status == 200 else None


def discover_seeds(fetcher: Fetcher, scope: str, origin: str, robots: Robots) -> list[str]:
    """URLs from llms.txt (else llms-full.txt) and the sitemaps, in that order, unique, unfiltered."""
    found: dict[str, None] = {}
    for root in _roots(scope, origin):
        for name in ("llms.txt", "llms-full.txt"):
            body = _fetch_ok(fetcher, root + name)
            if body is not None:
                found.update(dict.fromkeys(parse_llms_txt(body.decode("utf-8", "replace"), base=root + name)))
                break
    sitemaps = deque(robots.sitemaps() or [r + "sitemap.xml" for r in _roots(scope, origin)])
    read: set[str] = set()
    while sitemaps and len(read) < _MAX_SITEMAPS:
        url = sitemaps.popleft()
        if url in read:
            continue
        read.add(url)
        body = _fetch_ok(fetcher, url)
        if body is None:
            continue
        pages, children = parse_sitemap(body)
        sitemaps.extend(urllib.parse.urljoin(url, c) for c in children)
        for page in pages:
            norm = normalize_url(page, base=url)
            if norm:
                found.setdefault(norm, None)
    return list(found)


_ASSET_SUFFIXES = frozenset(
    {
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".svg",
        ".webp",
        ".ico",
        ".css",
        ".js",
        ".mjs",
        ".map",
        ".json",
        ".xml",
        ".woff",
        ".woff2",
        ".ttf",
        ".eot",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".whl",
        ".tar",
        ".exe",
        ".dmg",
        ".mp4",
        ".webm",
        ".mp3",
        ".ogg",
        ".wasm",
    }
)
"""Link targets that are never documentation pages (not fetched, not counted as failures)."""


def _not_a_page(url: str) -> bool:
    path = urllib.parse.urlsplit(url).path.lower()
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:] in _ASSET_SUFFIXES


def _key(url: str) -> str:
    """Identity of a page across its spellings (``x.md``, ``x.html``, ``x/`` and ``x`` are one page)."""
    for suffix in (".md", ".html", ".htm"):
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url[:-1] if url.endswith("/") and url.count("/") > 3 else url


class _Crawl:
    """One crawl run's state: frontier, seen keys, robots, limits."""

    def __init__(self, index: Index, repo: str, scope: str, robots: Robots, source: str) -> None:
        self.index, self.repo, self.scope, self.robots, self.source = index, repo, scope, robots, source
        self.queue: deque[str] = deque()
        self.seen: set[str] = set()
        self.stored_paths: set[str] = set()
        self.tally = RunTally()

    def offer(self, urls: Iterable[str]) -> None:
        for url in urls:
            key = _key(url)
            if key in self.seen or not in_scope(url, self.scope) or _not_a_page(url):
                continue
            self.seen.add(key)
            if not self.robots.allowed(url):
                self.tally.skipped += 1
                continue
            self.queue.append(url)

    def accept(self, requested: str, page: Page) -> None:
        """Store a loaded page unless its final or canonical URL was stored already."""
        if page.outcome == "gone":  # a 404/410 in a crawl is a failure (and leaves the index)
            if self.index.remove_document(self.repo, page.doc_path):
                self.tally.removed += 1
            self.tally.errors.append(FileError(requested, "not found (HTTP 404/410)"))
            return
        canonical = page.canonical
        requested_canonical = canonical is not None and _key(canonical) == _key(requested)
        if (
            canonical
            and canonical != page.url
            and not requested_canonical
            and in_scope(canonical, self.scope)
        ):
            # Another URL is the page's canonical one: store that page (fetched on its own, with
            # its own validators) instead of this copy.
            self.seen.add(_key(page.url))
            self.tally.skipped += 1
            if _key(canonical) not in self.seen:
                self.seen.add(_key(canonical))
                if self.robots.allowed(canonical):
                    self.queue.appendleft(canonical)
            self.offer(page.links)
            return
        if not in_scope(page.url, self.scope):
            self.tally.errors.append(FileError(requested, f"redirected out of scope to {page.url}"))
            return
        if page.doc_path in self.stored_paths:
            return  # the same document reached again (canonical, redirect, .md spelling)
        self.seen.add(_key(page.url))
        self.stored_paths.add(page.doc_path)
        self.tally.count(self.index, self.repo, page, self.source)
        self.offer(page.links)


def crawl_site(
    index: Index,
    start: str,
    *,
    repo: str,
    allow_private: bool = False,
    max_pages: int = 500,
    scope: str | None = None,
    concurrency: int = 4,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    progress: Progress | None = None,
    fetcher: Fetcher | None = None,
) -> IndexReport:
    """Crawl the site under ``scope`` from ``start`` into ``repo`` (see the module docstring).

    Args:
        index: the open index.
        start: the start URL (normalised).
        repo: repo name.
        allow_private: lift the SSRF guard (ignored when ``fetcher`` is given).
        max_pages: most pages fetched (sitemaps, llms.txt and robots.txt not counted).
        scope: URL prefix to stay under; default :func:`scope_prefix` of ``start``.
        concurrency: pages fetched at once (also the fetcher's per-host limit when it makes one).
        max_total_bytes: body bytes downloaded before scheduling stops.
        progress: ``progress(done, done + queued, "<failed> failed · <url>")`` after each page.
        fetcher: a configured fetcher (tests, benchmarks); default a new one.

    Returns:
        The :class:`IndexReport` (``docs_skipped`` = URLs robots.txt forbids + pages whose
        canonical URL is another page).

    Raises:
        SourceError: bad scope, or robots.txt unreachable / 5xx.
    """
    started = time.perf_counter()
    prefix = normalize_url(scope) if scope else scope_prefix(start)
    if prefix is None:
        raise SourceError(f"not an http(s) scope: {scope!r}", path=scope)
    if not in_scope(start, prefix):
        raise SourceError(f"start URL {start} is outside the scope {prefix}", path=start)
    parts = urllib.parse.urlsplit(start)
    origin = f"{parts.scheme}://{parts.netloc}"
    own = fetcher is None
    fetcher = fetcher or make_fetcher(allow_private=allow_private, concurrency_per_host=max(1, concurrency))
    try:
        check_url(start, policy=fetcher.policy)  # a refused start URL is the error to show
        robots = load_robots(fetcher, origin)
        delay = robots.crawl_delay()
        if delay and delay > 0:
            fetcher.limiter.set_rate(parts.hostname or "", 1.0 / delay, 1.0)
        index.ensure_repo(repo, source=prefix)
        run = _Crawl(index, repo, prefix, robots, prefix)
        run.offer([start])
        run.offer(discover_seeds(fetcher, prefix, origin, robots))
        complete = _drive(run, fetcher, max_pages, max_total_bytes, max(1, concurrency), progress)
    finally:
        if own:
            fetcher.close()
    if complete:
        for doc in index.list_docs(repo):
            if doc.doc_path not in run.stored_paths and index.remove_document(repo, doc.doc_path):
                run.tally.removed += 1
    return run.tally.report(index, repo, started)


def _drive(
    run: _Crawl, fetcher: Fetcher, max_pages: int, max_bytes: int, workers: int, progress: Progress | None
) -> bool:
    """Fetch the frontier with ``workers`` threads; True when it was exhausted (no limit hit)."""
    tally = run.tally
    limited = False
    with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="docmunch-crawl") as pool:
        running: dict[cf.Future[Page], str] = {}
        while run.queue or running:
            while run.queue and len(running) < workers:
                if tally.done + len(running) >= max_pages or tally.bytes >= max_bytes:
                    limited = True
                    break
                url = run.queue.popleft()
                path = doc_path_for(url)
                state = run.index.document_state(run.repo, path)
                running[pool.submit(load_page, fetcher, url, state=state)] = url
            if not running:
                break
            finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                url = running.pop(future)
                tally.done += 1
                try:
                    run.accept(url, future.result())
                except HTTPStatusError as exc:
                    tally.errors.append(page_error(url, exc))
                except DocmunchError as exc:
                    tally.errors.append(page_error(url, exc))
                except (ValueError, LookupError, UnicodeError, OSError) as exc:
                    tally.errors.append(page_error(url, exc))
                if progress is not None:
                    queued = len(run.queue) + len(running)
                    progress(tally.done, tally.done + queued, f"{len(tally.errors)} failed · {url}")
    if limited or run.queue:
        if tally.bytes >= max_bytes:
            tally.errors.append(FileError(run.scope, f"stopped at the {max_bytes} byte budget"))
        return False
    return True
