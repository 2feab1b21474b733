"""Whole documentation sites: ``docmunch index URL --crawl``.

Crawl order: the start URL, then the links of ``llms.txt`` and the pages of the sitemaps
(:mod:`docmunch.sources.discover`), then links found in fetched pages, breadth first. Every URL
is normalised (:func:`docmunch.sources.urls.normalize_url`) and must lie under the scope prefix
(default: the start URL's origin and folder); :mod:`docmunch.sources.frontier` decides which
discovered URLs are queued. A page's ``rel=canonical`` (in scope) names the document it is
stored as, so no page is stored twice.

Every request goes through the run's :class:`docmunch.sources.rules.Gate` (robots.txt of the
URL's origin, the scope, each URL once per run), redirect hops and Markdown alternates
included, so a redirect never fetches a disallowed, out-of-scope or already fetched URL.

Politeness: robots.txt per RFC 9309 (:mod:`docmunch.sources.robots`); an unreachable robots.txt
of the start origin (5xx, network failure) stops the crawl before any page (complete disallow).
``Crawl-delay`` becomes the origin's rate in the fetcher's limiter; the fetcher's per-origin
concurrency limit, ``max_pages`` and a total byte budget bound the run.

Report: each page indexed, unchanged or failed (``errors``); each URL not fetched or not stored
is listed in ``skipped`` with its reason (:data:`docmunch.sources.tally.SKIP_REASONS`); failing
sitemaps are ``warnings``. One bad page is one entry, never the end of the run.

One page, one document: the spellings of a page (``x.md``, ``x.html``, ``x.htm``, ``x/``, ``x``:
:func:`docmunch.sources.frontier.page_key`) are requested once, through the first one met; each
other spelling is a ``duplicate`` skip naming that URL (and the ``doc_path`` it was stored as).
A fetched page whose ``doc_path`` a page of this run already holds (``d/index.md`` after ``d/``)
is a ``duplicate`` skip naming the URL stored there. Stored validators are sent only to the URL
they came from (:func:`docmunch.sources.page.load_page`).

Threads: ``concurrency`` workers fetch and render pages (:func:`docmunch.sources.page.load_page`,
no index writes); the calling thread schedules, writes each page and reports progress. When the
crawl finished its frontier (no page or byte limit hit), stored pages under the scope it no longer
reached are removed: a full re-crawl mirrors the site.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import time

from docmunch.errors import DocmunchError, RedirectLoop, SkippedURL, SourceError, TooLarge
from docmunch.fetch import Fetcher, check_url, origin_of
from docmunch.fetch.redirects import describe
from docmunch.index import FileError, Index, IndexReport
from docmunch.sources.discover import discover_seeds
from docmunch.sources.frontier import Frontier, page_key
from docmunch.sources.page import Page, Progress, doc_path_for, load_page, make_fetcher, page_error
from docmunch.sources.rules import Gate, RobotsBook, Visits
from docmunch.sources.tally import RunTally
from docmunch.sources.urls import in_scope, normalize_url, scope_prefix

__all__ = ["DEFAULT_MAX_TOTAL_BYTES", "crawl_site"]

DEFAULT_MAX_TOTAL_BYTES = 200 * 2**20
"""Total body bytes a crawl downloads before it stops scheduling pages (200 MiB)."""


class _Crawl:
    """One crawl run's state: frontier, gate, stored paths, tally."""

    def __init__(self, index: Index, repo: str, scope: str, robots: RobotsBook) -> None:
        self.index, self.repo, self.scope = index, repo, scope
        self.tally = RunTally()
        self.frontier = Frontier(scope, robots, self.tally, set())
        self.visits = Visits()
        self.gate = Gate(robots, scope=scope, visits=self.visits)
        self.stored_paths: dict[str, str] = {}
        """``{doc_path: final URL}`` of every page stored (or found unchanged) in this run."""
        self.stored_as: dict[str, str] = {}
        """``{URL: doc_path}`` of the same pages, by requested and by final URL."""
        self.requested = 0
        """Page loads that sent at least one request (what ``max_pages`` counts)."""

    def settle(self, url: str, future: cf.Future[Page]) -> None:
        """Record one finished page load: stored, skipped or failed — never raises."""
        try:
            page = future.result()
        except SkippedURL as exc:
            if exc.url == url:  # refused before any request
                self.tally.skip(url, exc.reason, str(exc))
                return
            self.requested += 1
            self.tally.skip(url, exc.reason, f"redirects to {exc.url}: {exc}")
            return
        except RedirectLoop as exc:
            for source, target in itertools.pairwise(exc.chain):  # for loads that stop inside it
                self.visits.redirect(normalize_url(source) or source, normalize_url(target) or target)
            self.tally.skip(url, "redirect-loop", str(exc))
        except TooLarge as exc:
            self.tally.skip(url, "too-large", str(exc))
        except Exception as exc:  # one bad page never ends the run (DocmunchError or not)
            self.tally.errors.append(page_error(url, exc))
        else:
            try:
                self.accept(url, page)
            except DocmunchError as exc:
                self.tally.errors.append(page_error(url, exc))
        self.requested += 1

    def name_loops(self) -> None:
        """Turn ``duplicate`` skips whose recorded redirects come back on themselves into
        ``redirect-loop`` skips naming the loop (a loop split across two concurrent loads)."""
        for i, (url, reason, _detail) in enumerate(self.tally.skipped):
            if reason == "duplicate":
                loop = self.visits.redirect_loop(url)
                if loop is not None:
                    self.tally.skipped[i] = (url, "redirect-loop", f"redirect loop: {describe(loop)}")

    def skip_spellings(self) -> None:
        """List each other spelling of a page that no load of the run requested as a ``duplicate``."""
        for url, first in self.frontier.spellings.items():
            if url in self.visits:  # requested after all (a redirect target): reported with that load
                continue
            stored = self.stored_as.get(first)
            where = f", stored in this run as {stored}" if stored else " (see its own entry)"
            self.tally.skip(url, "duplicate", f"not requested: another spelling of {first}{where}")

    def accept(self, requested: str, page: Page) -> None:
        """Store a loaded page unless its final or canonical URL names another document."""
        tally, frontier = self.tally, self.frontier
        if page.outcome == "gone":  # a 404/410 in a crawl is a failure (and leaves the index)
            if page.replaces is None and self.index.remove_document(self.repo, page.doc_path):
                tally.removed += 1
            tally.errors.append(FileError(requested, "not found (HTTP 404/410)"))
            return
        canonical = page.canonical
        requested_canonical = canonical is not None and page_key(canonical) == page_key(requested)
        elsewhere = canonical is not None and canonical != page.url and not requested_canonical
        if canonical is not None and elsewhere and in_scope(canonical, self.scope):
            # Another URL is the page's canonical one: store that page (fetched on its own, with
            # its own validators) instead of this copy.
            frontier.mark(page.url)
            tally.skip(requested, "canonical", f"its canonical URL is {canonical}")
            frontier.offer([canonical], first=True)
            frontier.offer(page.links)
            return
        if not in_scope(page.url, self.scope):
            tally.skip(requested, "scope", f"redirected to {page.url}, outside the scope {self.scope}")
            return
        holder = self.stored_paths.get(page.doc_path)
        if holder is not None:
            tally.skip(
                requested,
                "duplicate",
                f"same doc_path {page.doc_path} as {holder}, stored already in this run",
            )
            return
        frontier.mark(page.url)
        self.stored_paths[page.doc_path] = page.url
        self.stored_as[requested] = self.stored_as[page.url] = page.doc_path
        tally.count(self.index, self.repo, page, self.scope)
        frontier.offer(page.links)


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
        max_pages: most pages requested (robots.txt, llms.txt and sitemaps not counted).
        scope: URL prefix to stay under; default :func:`scope_prefix` of ``start``.
        concurrency: pages fetched at once (also the fetcher's per-origin limit when it makes one).
        max_total_bytes: body bytes downloaded before scheduling stops.
        progress: ``progress(done, done + queued, "<failed> failed · <url>")`` after each page.
        fetcher: a configured fetcher (tests, benchmarks); default a new one.

    Returns:
        The :class:`IndexReport`: ``skipped`` lists every URL not fetched or not stored with its
        reason, ``warnings`` the discovery files that failed.

    Raises:
        SourceError: bad scope, or the start origin's robots.txt unreachable (5xx, network error).
        BlockedAddress: the start URL is refused by the SSRF guard.
    """
    started = time.perf_counter()
    prefix = normalize_url(scope) if scope else scope_prefix(start)
    if prefix is None:
        raise SourceError(f"not an http(s) scope: {scope!r}", path=scope)
    if not in_scope(start, prefix):
        raise SourceError(f"start URL {start} is outside the scope {prefix}", path=start)
    origin = origin_of(start)
    if origin is None:
        raise SourceError(f"not an http(s) URL: {start!r}", path=start)
    own = fetcher is None
    fetcher = fetcher or make_fetcher(allow_private=allow_private, concurrency_per_host=max(1, concurrency))
    try:
        check_url(start, policy=fetcher.policy)  # a refused start URL is the error to show
        book = RobotsBook(fetcher)
        robots = book.for_url(start)
        if robots.unreachable:
            raise SourceError(f"{robots.note}; not crawling {start} (RFC 9309)", path=f"{origin}/robots.txt")
        delay = robots.crawl_delay()
        if delay and delay > 0:
            fetcher.limiter.set_rate(origin.key, 1.0 / delay, 1.0)
        index.ensure_repo(repo, source=prefix)
        run = _Crawl(index, repo, prefix, book)
        run.frontier.offer([start])
        robots_url = f"{origin}/robots.txt"
        declared = tuple(u for u in (normalize_url(s, base=robots_url) for s in robots.sitemaps) if u)
        found = discover_seeds(fetcher, list(dict.fromkeys([prefix, f"{origin}/"])), book, declared=declared)
        run.frontier.sitemaps.update(found.sitemaps)
        for url, reason, detail in found.skipped:
            run.tally.skip(url, reason, detail)
        for url, message in found.warnings:
            run.tally.warn(url, message)
        run.frontier.offer(found.urls)
        complete = _drive(run, fetcher, max_pages, max_total_bytes, max(1, concurrency), progress)
        run.name_loops()
        run.skip_spellings()
    finally:
        if own:
            fetcher.close()
    if complete:
        gone = [
            doc.doc_path
            for doc in index.list_docs(repo)
            if doc.doc_path not in run.stored_paths
            and in_scope(normalize_url(doc.source_ref or "") or "", prefix)  # never another origin's
        ]
        run.tally.removed += len(index.remove_documents(repo, gone))  # one transaction
    return run.tally.report(index, repo, started)


def _drive(
    run: _Crawl, fetcher: Fetcher, max_pages: int, max_bytes: int, workers: int, progress: Progress | None
) -> bool:
    """Fetch the frontier with ``workers`` threads; True when it was exhausted (no limit hit)."""
    tally, frontier = run.tally, run.frontier
    stop = ""
    with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="docmunch-crawl") as pool:
        running: dict[cf.Future[Page], str] = {}
        while frontier.queue or running:
            while frontier.queue and len(running) < workers and not stop:
                if run.requested + len(running) >= max_pages:
                    stop = "max-pages"
                elif tally.bytes >= max_bytes:
                    stop = "byte-budget"
                else:
                    url = frontier.queue.popleft()
                    state = run.index.document_state(run.repo, doc_path_for(url))
                    gate = run.gate.for_page(url)
                    running[pool.submit(load_page, fetcher, url, state=state, before_request=gate)] = url
            if not running:
                break
            finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                url = running.pop(future)
                tally.done += 1
                run.settle(url, future)
                if progress is not None:
                    queued = len(frontier.queue) + len(running)
                    progress(tally.done, tally.done + queued, f"{len(tally.errors)} failed · {url}")
    if stop == "max-pages":
        frontier.drain("max-pages", f"the crawl stopped at {max_pages} pages")
    elif stop == "byte-budget":
        tally.warn(run.scope, f"stopped at the {max_bytes} byte budget")
        frontier.drain("byte-budget", f"the crawl stopped at the {max_bytes} byte download budget")
    return not stop
