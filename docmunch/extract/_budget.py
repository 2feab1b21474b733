"""The per-page budget: one page may use so much CPU and elapsed time, then it is "too complex".

Extraction and conversion are linear in the page for the shapes we know of (nesting is
clamped at parse time, :mod:`docmunch.extract._depth`), but a crawl or an MCP ``extract_url``
must never hang on a page shaped in a way nobody thought of. So :func:`extract` and
:func:`docmunch.convert.html_to_markdown` each run inside :func:`page_budget`, and their loops
call :func:`check_budget`, which raises :class:`docmunch.errors.PageTooComplex` once the page
has used :data:`PAGE_CPU_SECONDS` of CPU time (of the working thread, ``time.thread_time``) or
:data:`PAGE_WALL_FACTOR` times that in elapsed time (``time.monotonic``; a loaded machine).

A caller that wants one budget around several steps (extract, then convert) opens
:func:`page_budget` itself: nested budgets defer to the outermost one. The budget lives in a
:class:`contextvars.ContextVar`, so threads and asyncio tasks each have their own.

Environment: ``DOCMUNCH_PAGE_SECONDS`` (a positive number) replaces :data:`PAGE_CPU_SECONDS`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from docmunch.errors import PageTooComplex

__all__ = [
    "BUDGET_ENV",
    "PAGE_CPU_SECONDS",
    "PAGE_WALL_FACTOR",
    "budget_seconds",
    "check_budget",
    "page_budget",
]

PAGE_CPU_SECONDS = 10.0
"""CPU seconds one page may take to extract (or to convert). The slowest real page of the
fixtures (330 KB of API reference) takes about 0.2 s; 200,000 nested ``<div>``s about 1 s."""

PAGE_WALL_FACTOR = 3.0
"""Elapsed-time budget as a multiple of the CPU budget (other processes share the cores)."""

BUDGET_ENV = "DOCMUNCH_PAGE_SECONDS"
"""Environment variable that replaces :data:`PAGE_CPU_SECONDS` (seconds, > 0)."""

_CHECK_EVERY = 64
""":func:`check_budget` reads the clocks on every 64th call only (a clock read is a syscall)."""


class _Budget:
    __slots__ = ("countdown", "cpu_deadline", "seconds", "url", "wall_deadline")

    def __init__(self, seconds: float, url: str | None) -> None:
        self.seconds = seconds
        self.url = url
        self.cpu_deadline = time.thread_time() + seconds
        self.wall_deadline = time.monotonic() + seconds * PAGE_WALL_FACTOR
        self.countdown = _CHECK_EVERY

    def check_clocks(self) -> None:
        self.countdown = _CHECK_EVERY
        if time.thread_time() > self.cpu_deadline:
            raise PageTooComplex(
                f"page too complex: processing it used more than {self.seconds:g} s of CPU time "
                f"(set {BUDGET_ENV} to allow more)",
                url=self.url,
                limit_seconds=self.seconds,
                kind="cpu",
            )
        if time.monotonic() > self.wall_deadline:
            limit = self.seconds * PAGE_WALL_FACTOR
            raise PageTooComplex(
                f"page too complex: processing it took more than {limit:g} s "
                f"(set {BUDGET_ENV} to allow more)",
                url=self.url,
                limit_seconds=limit,
                kind="wall",
            )


_CURRENT: ContextVar[_Budget | None] = ContextVar("docmunch_page_budget", default=None)


def budget_seconds() -> float:
    """The CPU budget per page in seconds: ``$DOCMUNCH_PAGE_SECONDS`` if valid, else the default."""
    raw = os.environ.get(BUDGET_ENV, "").strip()
    if raw:
        try:
            value = float(raw)
        except ValueError:
            value = 0.0
        if value > 0:
            return value
    return PAGE_CPU_SECONDS


@contextmanager
def page_budget(*, url: str | None = None, seconds: float | None = None) -> Iterator[None]:
    """Run the body under a page budget (``seconds`` of CPU, default :func:`budget_seconds`).

    Inside an already open budget this does nothing: the outermost budget counts. ``url``
    names the page in the :class:`~docmunch.errors.PageTooComplex` it may raise.
    """
    if _CURRENT.get() is not None:
        yield
        return
    token = _CURRENT.set(_Budget(seconds if seconds is not None else budget_seconds(), url))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check_budget() -> None:
    """Raise :class:`~docmunch.errors.PageTooComplex` when the open budget is spent.

    Costs a context-variable read and a counter decrement; the clocks are read every
    :data:`_CHECK_EVERY` calls. Without an open budget it does nothing.
    """
    budget = _CURRENT.get()
    if budget is None:
        return
    budget.countdown -= 1
    if budget.countdown <= 0:
        budget.check_clocks()
