"""What a crawl may request: robots.txt per origin, each URL once per run, the scope.

- :class:`RobotsBook` fetches and caches robots.txt per origin (RFC 9309 §2.3: one file per
  scheme, host and port) and maps the fetch outcome as §2.3.1 says: 2xx → parse the first
  500 KiB; 4xx → unavailable, everything allowed; 5xx or a network failure → unreachable,
  complete disallow. docmunch also treats a 429 that outlasted its retries as unreachable (the
  server asks crawlers to stay away), and more redirects than the fetcher follows (5, the
  minimum of §2.3.1.2) or a redirect loop as unavailable, as §2.3.1.2 allows.
- :class:`Visits` records which URL (normalised) each page load requested, so no URL is
  requested twice in one run: a redirect to a URL another load already fetched is a
  ``duplicate`` skip, not a second download.
- :class:`Gate` is the ``before_request`` hook the crawl passes to every fetch (pages, redirect
  hops, Markdown alternates, llms.txt, sitemaps): it raises :class:`SkippedURL` (reason
  ``scope``/``duplicate``) or :class:`RobotsDisallowed` (reason ``robots``) before any traffic.
"""

from __future__ import annotations

import threading

from docmunch.errors import (
    BlockedAddress,
    FetchError,
    HTTPStatusError,
    RedirectError,
    RobotsDisallowed,
    SkippedURL,
)
from docmunch.fetch import Fetcher, origin_of
from docmunch.sources.robots import MAX_ROBOTS_BYTES, Robots
from docmunch.sources.urls import in_scope, normalize_url

__all__ = ["Gate", "RobotsBook", "Visits"]


class RobotsBook:
    """robots.txt of every origin a run touches, fetched once per origin (thread-safe)."""

    def __init__(self, fetcher: Fetcher) -> None:
        self._fetcher = fetcher
        self._cache: dict[str, Robots] = {}
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}

    def for_url(self, url: str) -> Robots:
        """The rules for ``url``'s origin (complete disallow for a URL without an origin)."""
        origin = origin_of(url)
        if origin is None:
            return Robots.disallow_all(f"{url} has no http(s) origin")
        key = origin.key
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                return cached
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:  # one fetch per origin even when several workers ask at once
            with self._lock:
                cached = self._cache.get(key)
            if cached is None:
                cached = self._load(f"{origin}/robots.txt")
                with self._lock:
                    self._cache[key] = cached
        return cached

    def _load(self, url: str) -> Robots:
        try:
            result = self._fetcher.fetch(url, raw=True, max_bytes=MAX_ROBOTS_BYTES, truncate=True)
        except BlockedAddress as exc:
            return Robots.disallow_all(f"{url}: {exc}")
        except RedirectError as exc:
            return Robots.allow_all(f"{url}: {exc}; treated as unavailable (RFC 9309 §2.3.1.2)")
        except HTTPStatusError as exc:  # 429/503 after the fetcher's retries
            return Robots.disallow_all(f"{url} answered HTTP {exc.status_code}; complete disallow")
        except FetchError as exc:
            return Robots.disallow_all(f"cannot read {url} ({exc}); complete disallow (RFC 9309 §2.3.1.4)")
        status = result.status
        if 200 <= status < 300:
            return Robots.from_bytes(result.body)
        if 400 <= status < 500:
            return Robots.allow_all()
        return Robots.disallow_all(f"{url} answered HTTP {status}; complete disallow (RFC 9309 §2.3.1.4)")


class Visits:
    """Which page load requested each normalised URL in this run, and the redirects seen
    (thread-safe)."""

    def __init__(self) -> None:
        self._owner: dict[str, str] = {}
        self._lock = threading.Lock()
        self.redirects: dict[str, str] = {}
        """``{url: target}`` of every redirect met (normalised; the first answer kept)."""

    def redirect(self, source: str, target: str) -> None:
        """Record that ``source`` redirected to ``target``."""
        with self._lock:
            self.redirects.setdefault(source, target)

    def redirect_loop(self, url: str) -> list[str] | None:
        """The redirect chain from ``url`` when it comes back to a URL already on it (``[a, b, a]``).

        Loads of one run each stop at the first URL another load claimed, so a loop spread over
        two loads (``/a → /b`` in one, ``/b → /a`` in the other) is only seen here, from the
        redirects all loads recorded.
        """
        with self._lock:
            walk = [url]
            while walk[-1] in self.redirects and len(walk) <= len(self.redirects) + 1:
                nxt = self.redirects[walk[-1]]
                walk.append(nxt)
                if nxt in walk[:-1]:
                    return walk
        return None

    def claim(self, url: str, owner: str) -> bool:
        """Record that the load of ``owner`` requests ``url``; False when another load did."""
        with self._lock:
            return self._owner.setdefault(url, owner) == owner

    def __contains__(self, url: object) -> bool:
        with self._lock:
            return url in self._owner


class Gate:
    """The ``before_request`` hook of one page load (or of discovery files, without scope/visits)."""

    def __init__(
        self, robots: RobotsBook, *, scope: str | None = None, visits: Visits | None = None, owner: str = ""
    ) -> None:
        self.robots = robots
        self.scope = scope
        self.visits = visits
        self.owner = owner

    def for_page(self, url: str) -> Gate:
        """The gate of the page load that starts at ``url``."""
        return Gate(self.robots, scope=self.scope, visits=self.visits, owner=normalize_url(url) or url)

    def __call__(self, url: str, redirected_from: str | None = None) -> None:
        """Raise before ``url`` is requested when the run must not request it."""
        norm = normalize_url(url) or url
        if redirected_from is not None and self.visits is not None:
            self.visits.redirect(normalize_url(redirected_from) or redirected_from, norm)
        if self.scope is not None and not in_scope(norm, self.scope):
            raise SkippedURL(f"{norm} is outside the scope {self.scope}", url=norm, reason="scope")
        robots = self.robots.for_url(norm)
        if not robots.allowed(norm):
            raise RobotsDisallowed(robots.why(norm), url=norm)
        if self.visits is not None and not self.visits.claim(norm, self.owner or norm):
            raise SkippedURL(f"{norm} was already fetched in this run", url=norm, reason="duplicate")
