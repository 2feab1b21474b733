"""The report of one web run (crawl or refresh): counts, errors, skipped URLs, warnings.

A *skipped* URL is one the run decided not to fetch or not to store, with a reason from a fixed
vocabulary (:data:`SKIP_REASONS`, documented in ``docs/crawl.md``) and a one-line detail. An
*error* is a page that should have been indexed and failed (404, timeout, extraction). A
*warning* is a problem that cost discovery but no page (a sitemap child answering 404).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from docmunch.fetch import same_origin
from docmunch.index import FileError, Index, IndexReport
from docmunch.sources.page import Page, page_error, repo_sections, store_page

__all__ = ["MAX_LISTED_SKIPS", "SKIP_REASONS", "RunTally", "page_error"]

SKIP_REASONS: dict[str, str] = {
    "robots": "robots.txt forbids docmunch to fetch it (or that origin's robots.txt is unreachable)",
    "scope": "outside the crawl scope (another origin or outside the prefix), also as a redirect target",
    "asset": "a link to a file that is not a page (image, style sheet, script, archive, PDF, …)",
    "discovery-file": "robots.txt, llms.txt, llms-full.txt or a sitemap: read for URLs, never stored",
    "duplicate": "the same document was already fetched or stored in this run",
    "canonical": "the page names another URL as canonical; that one is stored instead",
    "max-pages": "not fetched: the run reached its page limit (--max-pages / max_pages)",
    "byte-budget": "not fetched: the run reached its total download budget",
    "redirect-loop": "the URL's redirects come back to a URL already requested",
    "too-large": "the body is larger than the fetcher's size cap",
}
"""Every reason a crawl gives for a skipped URL (code → meaning)."""
MAX_LISTED_SKIPS = 10_000
"""Skipped URLs listed in one report; ``docs_skipped`` still counts them all, and a warning says
how many were not listed (bounds the report of a crawl scoped inside a huge sitemap)."""


@dataclass(slots=True)
class RunTally:
    """Counters of one run (mutated by the scheduling thread only)."""

    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    done: int = 0
    bytes: int = 0
    errors: list[FileError] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    """``(url, reason, detail)``, reason from :data:`SKIP_REASONS`."""
    skipped_total: int = 0
    warnings: list[FileError] = field(default_factory=list)

    def skip(self, url: str, reason: str, detail: str = "") -> None:
        """Record one skipped URL (listed up to :data:`MAX_LISTED_SKIPS`)."""
        if reason not in SKIP_REASONS:
            raise ValueError(f"unknown skip reason {reason!r}")
        self.skipped_total += 1
        if len(self.skipped) < MAX_LISTED_SKIPS:
            self.skipped.append((url, reason, " ".join(detail.split())))

    def warn(self, path: str, message: str) -> None:
        """Record one warning about ``path`` (a URL)."""
        self.warnings.append(FileError(path, " ".join(message.split())))

    def report(self, index: Index, repo: str, started: float) -> IndexReport:
        """The :class:`IndexReport` of the run so far (``started`` = ``time.perf_counter()``)."""
        warnings = list(self.warnings)
        unlisted = self.skipped_total - len(self.skipped)
        if unlisted:
            warnings.append(
                FileError(repo, f"{unlisted} more skipped URLs not listed (limit {MAX_LISTED_SKIPS})")
            )
        return IndexReport(
            repo=repo,
            docs_indexed=self.indexed,
            docs_unchanged=self.unchanged,
            docs_removed=self.removed,
            docs_skipped=self.skipped_total,
            sections=repo_sections(index, repo),
            errors=tuple(self.errors),
            elapsed_ms=round((time.perf_counter() - started) * 1000),
            skipped_paths=tuple(url for url, _reason, _detail in self.skipped),
            skipped_reasons=tuple(reason for _url, reason, _detail in self.skipped),
            skipped_details=tuple(detail for _url, _reason, detail in self.skipped),
            warnings=tuple(warnings),
        )

    def count(self, index: Index, repo: str, page: Page, source: str) -> None:
        """Store ``page`` and count its outcome."""
        store_page(index, repo, page, source=source)
        self.bytes += page.fetched_bytes
        if page.replaces and page.outcome == "changed":
            other = "another URL of this origin" if same_origin(page.replaces, page.url) else "another origin"
            self.warn(page.url, f"replaced {page.doc_path}, stored from {page.replaces} ({other})")
        if page.outcome == "changed":
            self.indexed += 1
        elif page.outcome == "unchanged":
            self.unchanged += 1
        else:
            self.removed += 1
