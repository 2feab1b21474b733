"""The crawl frontier: which discovered URLs are queued, and why the others are skipped.

Each distinct URL (spellings of one page folded: ``x.md``, ``x.html``, ``x.htm``, ``x/`` and ``x``
are one key) is decided once, in this order: outside the scope → ``scope``; robots.txt, llms.txt
or a sitemap → ``discovery-file``; an asset suffix → ``asset``; robots.txt forbids it → ``robots``;
else it is queued, breadth first. Every skip is recorded in the run's tally with its reason.

Another spelling of a key already decided is not queued: it is kept in :attr:`Frontier.spellings`
(with the URL that decided the key), and the crawl lists it in ``skipped`` as a ``duplicate`` at
the end of the run, unless a page load requested it after all (a redirect to it).
"""

from __future__ import annotations

import urllib.parse
from collections import deque
from collections.abc import Iterable

from docmunch.sources.discover import is_discovery_file
from docmunch.sources.rules import RobotsBook
from docmunch.sources.tally import RunTally
from docmunch.sources.urls import in_scope

__all__ = ["ASSET_SUFFIXES", "Frontier", "page_key"]

ASSET_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".avif", ".bmp",
        ".css", ".js", ".mjs", ".map", ".json", ".xml", ".rss", ".atom",
        ".woff", ".woff2", ".ttf", ".otf", ".eot",
        ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".whl", ".tar", ".7z",
        ".exe", ".dmg", ".msi", ".deb", ".rpm", ".apk",
        ".mp4", ".webm", ".mov", ".mp3", ".ogg", ".wav", ".wasm",
    }
)  # fmt: skip
"""Link targets that are never documentation pages (not fetched; listed as ``asset`` skips)."""


def asset_suffix(url: str) -> str | None:
    """The asset suffix of ``url``'s last path segment (``".png"``), or ``None`` for a page."""
    path = urllib.parse.urlsplit(url).path.lower()
    dot = path.rfind(".")
    suffix = path[dot:] if dot > path.rfind("/") else ""
    return suffix if suffix in ASSET_SUFFIXES else None


def page_key(url: str) -> str:
    """Identity of a page across its spellings (``x.md``, ``x.html``, ``x/`` and ``x`` are one page)."""
    for suffix in (".md", ".html", ".htm"):
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url[:-1] if url.endswith("/") and url.count("/") > 3 else url


class Frontier:
    """Queued URLs of one crawl plus every key already decided."""

    def __init__(self, scope: str, robots: RobotsBook, tally: RunTally, sitemaps: set[str]) -> None:
        self.scope = scope
        self.robots = robots
        self.tally = tally
        self.sitemaps = sitemaps
        """Sitemap URLs of the run (discovery files); filled in by discovery."""
        self.queue: deque[str] = deque()
        self.seen: dict[str, str] = {}
        """Keys (:func:`page_key`) already decided (queued, fetched or skipped) → the URL that
        decided each."""
        self.met: set[str] = set()
        """Every URL offered or marked (so a URL linked from many pages is considered once)."""
        self.spellings: dict[str, str] = {}
        """Other spellings of a decided key, never queued: ``{url: url that decided the key}``."""

    def decided(self, url: str) -> bool:
        return page_key(url) in self.seen

    def mark(self, url: str) -> None:
        """Record ``url``'s key as decided without queueing it (a page already fetched)."""
        self.met.add(url)
        self.seen.setdefault(page_key(url), url)

    def offer(self, urls: Iterable[str], *, first: bool = False) -> None:
        """Queue each new URL that may be crawled (at the front with ``first``); skip the rest.

        Another spelling of a decided page goes to :attr:`spellings`, not to the tally.
        """
        for url in urls:
            if url in self.met:
                continue
            self.met.add(url)
            key = page_key(url)
            decided_by = self.seen.get(key)
            if decided_by is not None:
                if decided_by != url:
                    self.spellings.setdefault(url, decided_by)
                continue
            self.seen[key] = url
            reason, detail = self._refusal(url)
            if reason:
                self.tally.skip(url, reason, detail)
            elif first:
                self.queue.appendleft(url)
            else:
                self.queue.append(url)

    def _refusal(self, url: str) -> tuple[str, str]:
        if not in_scope(url, self.scope):
            return "scope", f"outside the scope {self.scope}"
        if is_discovery_file(url, self.sitemaps):
            return "discovery-file", "a source of URLs, not a page"
        suffix = asset_suffix(url)
        if suffix:
            return "asset", f"a {suffix} file"
        robots = self.robots.for_url(url)
        if not robots.allowed(url):
            return "robots", robots.why(url)
        return "", ""

    def drain(self, reason: str, detail: str) -> None:
        """Skip every URL still queued (the run stopped at a limit)."""
        while self.queue:
            self.tally.skip(self.queue.popleft(), reason, detail)
