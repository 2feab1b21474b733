"""Where a crawl finds URLs besides links: ``llms.txt`` and sitemaps.

- ``llms.txt`` is the llmstxt.org proposal: a Markdown file whose list items link to pages
  (``- [Title](url): notes``); every Markdown link in it is taken, in order. It is looked for at
  the scope root, then the site root (``llms.txt``, else ``llms-full.txt``).
- Sitemaps (:mod:`docmunch.sources.sitemaps` parses them): the ``Sitemap:`` lines of the start
  origin's robots.txt, else ``sitemap.xml`` at the scope root and the site root. Indexes are
  followed breadth first; a file already read (after normalisation, redirects included) is not
  read again, so an index that lists itself or two indexes listing each other end.
- Every discovery file is fetched through the run's robots.txt rules (a disallowed one is a
  ``robots`` skip) and is a source of URLs, never a page.
- A sitemap that was declared (robots.txt, or a child of an index) and fails — 404, 5xx,
  timeout, not a sitemap, damaged gzip, a limit hit — is a warning in the run's report; a
  guessed ``sitemap.xml`` or ``llms.txt`` that is absent is silent.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Container
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from docmunch.errors import FetchError, SkippedURL
from docmunch.fetch import Fetcher
from docmunch.sources.rules import Gate, RobotsBook
from docmunch.sources.sitemaps import MAX_SITEMAP_BYTES, parse_sitemap
from docmunch.sources.urls import normalize_url

__all__ = [
    "DISCOVERY_NAMES",
    "MAX_SITEMAP_FILES",
    "MAX_SITEMAP_URLS_PER_RUN",
    "Discovery",
    "discover_seeds",
    "is_discovery_file",
    "parse_llms_txt",
]

LLMS_FILES = ("llms.txt", "llms-full.txt")
DISCOVERY_NAMES = frozenset({"robots.txt", *LLMS_FILES})
"""File names that are sources of URLs wherever they are linked, never pages."""
MAX_SITEMAP_FILES = 50
"""Sitemap files (indexes included) read per crawl."""
MAX_SITEMAP_URLS_PER_RUN = 100_000
"""Page URLs taken from all sitemaps of one crawl (each file is also capped at 50,000)."""
_MD_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def parse_llms_txt(text: str, *, base: str) -> list[str]:
    """Link targets of an ``llms.txt`` / ``llms-full.txt`` file, normalised, in order, unique."""
    seen: dict[str, None] = {}
    for match in _MD_LINK.finditer(text):
        url = normalize_url(match.group(1), base=base)
        if url:
            seen.setdefault(url, None)
    return list(seen)


def is_discovery_file(url: str, sitemaps: Container[str] = ()) -> bool:
    """True for robots.txt, llms.txt, llms-full.txt (any folder) and the run's sitemap files."""
    name = urlsplit(url).path.rsplit("/", 1)[-1].lower()
    return name in DISCOVERY_NAMES or url in sitemaps


@dataclass(slots=True)
class Discovery:
    """What discovery found, and what it skipped or warns about."""

    urls: list[str] = field(default_factory=list)
    """Page URLs (normalised, unique): llms.txt links first, then sitemap entries."""
    sitemaps: set[str] = field(default_factory=set)
    """Every sitemap URL read or reached (normalised): discovery files, never pages."""
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    """``(url, reason, detail)`` of discovery files not fetched (robots.txt forbids them)."""
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """``(url, message)`` of declared sitemaps that failed, and limits hit."""


class _Reader:
    def __init__(self, fetcher: Fetcher, robots: RobotsBook, found: Discovery) -> None:
        self.fetcher = fetcher
        self.gate = Gate(robots)
        self.found = found

    def read(self, url: str, *, declared: bool, max_bytes: int | None = None) -> tuple[str, bytes] | None:
        """``(final URL, body)`` of a discovery file, or ``None`` (skip or warning recorded)."""
        try:
            result = self.fetcher.fetch(
                url, raw=True, max_bytes=max_bytes, truncate=max_bytes is not None, before_request=self.gate
            )
        except SkippedURL as exc:
            self.found.skipped.append((exc.url or url, exc.reason, str(exc)))
            return None
        except FetchError as exc:
            self.found.warnings.append((url, str(exc)))
            return None
        if result.status == 200:
            return normalize_url(result.url) or result.url, result.body
        if declared or not 400 <= result.status < 500:
            self.found.warnings.append((url, f"HTTP {result.status}"))
        return None


def discover_seeds(
    fetcher: Fetcher, roots: list[str], robots: RobotsBook, *, declared: tuple[str, ...] = ()
) -> Discovery:
    """Read llms.txt and the sitemaps (see the module docstring).

    Args:
        fetcher: the run's fetcher.
        roots: folders to look in, in order (the scope root, then the site root), ending in ``/``.
        robots: the run's robots.txt rules (every discovery fetch goes through them).
        declared: sitemap URLs named by robots.txt (absolute); without them ``sitemap.xml`` of
            each root is tried.

    Returns:
        A :class:`Discovery`; never raises for a failing file.
    """
    found = Discovery()
    reader = _Reader(fetcher, robots, found)
    seeds: dict[str, None] = {}
    for root in roots:
        for name in LLMS_FILES:
            got = reader.read(root + name, declared=False)
            if got is not None:
                final, body = got
                seeds.update(dict.fromkeys(parse_llms_txt(body.decode("utf-8", "replace"), base=final)))
                break
    _read_sitemaps(reader, roots, declared, seeds)
    found.urls = list(seeds)
    return found


def _read_sitemaps(
    reader: _Reader, roots: list[str], declared: tuple[str, ...], seeds: dict[str, None]
) -> None:
    found = reader.found
    queue: deque[tuple[str, bool]] = deque((url, True) for url in declared)
    if not queue:
        queue.extend((root + "sitemap.xml", False) for root in roots)
    taken = 0
    files = 0
    while queue:
        url, named = queue.popleft()
        norm = normalize_url(url) or url
        if norm in found.sitemaps:
            continue
        if files >= MAX_SITEMAP_FILES:
            found.warnings.append((norm, f"not read: a crawl reads at most {MAX_SITEMAP_FILES} sitemaps"))
            continue
        found.sitemaps.add(norm)
        files += 1
        got = reader.read(norm, declared=named, max_bytes=MAX_SITEMAP_BYTES)
        if got is None:
            continue
        final, body = got
        found.sitemaps.add(final)
        parsed = parse_sitemap(body)
        if not parsed.kind:
            if named:
                found.warnings.extend((norm, w) for w in parsed.warnings)
            continue
        found.warnings.extend((norm, w) for w in parsed.warnings)
        if len(body) >= MAX_SITEMAP_BYTES and body[:2] != b"\x1f\x8b":
            found.warnings.append((norm, f"read the first {MAX_SITEMAP_BYTES} bytes (sitemaps.org limit)"))
        for child in parsed.children:
            target = normalize_url(child, base=final)
            if target and target not in found.sitemaps:
                queue.append((target, True))
        for loc in parsed.pages:
            if taken >= MAX_SITEMAP_URLS_PER_RUN:
                found.warnings.append(
                    (norm, f"sitemap URLs beyond {MAX_SITEMAP_URLS_PER_RUN} per crawl were not taken")
                )
                queue.clear()
                break
            page = normalize_url(loc, base=final)
            if page:
                seeds.setdefault(page, None)
                taken += 1
