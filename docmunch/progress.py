"""Progress of long CLI runs on stderr: count, rate and ETA, on any terminal width and off a TTY.

The indexers call ``progress(done, total, message)`` after each file or page (``message`` is a
doc path, URL or ``"<n> failed · <url>"``). :class:`RunProgress` turns those calls into:

- **a TTY**: one live line (rich ``Live``, transient) laid out by :func:`render_line` for the
  console's current width: ``LABEL DONE/TOTAL RATE/s ETA H:MM:SS [bar] …/tail/of/the/path``.
  The counts are never cut: as the width shrinks the path is cut from the left (its end, the
  file name, stays), the bar is dropped, then the label and the rate give way to the path;
  the counts and ETA stay even when they alone overflow the line.
- **not a TTY** (a log file, CI): a plain line at most every :data:`PLAIN_INTERVAL_S` seconds
  with the same fields and the whole message, so short runs print nothing and long ones leave
  a readable trail without carriage returns or escape codes.

A run that has to wait for another run of its repo says so in one line (:func:`wait_notice`,
the one place that line is written: ``index``, ``refresh`` and ``import`` use it).

Rate = items done ÷ seconds since the run started (or stopped waiting for another run of its
repo: :meth:`RunProgress.restart`); ETA = items left ÷ rate (the overall
average, which stays steady when single files vary a lot). Control characters in messages
(file names with newlines or escape codes) are shown escaped, so they can neither split nor
colour the line; so are the other characters Python does not call printable, whose width a
terminal may not agree on (:func:`docmunch.terminal.printable` with ``strict=True``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.cells import cell_len, get_character_cell_size

from docmunch.terminal import esc, printable

__all__ = ["PLAIN_INTERVAL_S", "RunProgress", "cut_left", "render_line", "wait_notice"]

PLAIN_INTERVAL_S = 10.0
"""Seconds between two plain progress lines when stderr is not a terminal."""

BAR_MIN_COLUMNS = 10
"""Narrowest bar worth drawing (columns); below it the bar is dropped."""

BAR_MAX_COLUMNS = 30
"""Widest bar (columns): the rest of a wide line goes to the path."""

PATH_MIN_COLUMNS = 12
"""Columns the path keeps before the bar gives way to it."""

ELLIPSIS = "…"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _rate_text(rate: float | None) -> str:
    if rate is None:
        return "-/s"
    return f"{rate:.1f}/s" if rate < 100 else f"{rate:.0f}/s"


def cut_left(text: str, width: int) -> str:
    """``text`` fitted into ``width`` terminal cells by cutting its start (``…/tail``).

    Widths are terminal cells (a CJK character takes two), per ``rich.cells``; ``""`` when
    ``width`` ≤ 0.
    """
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    room, kept = width - 1, 0  # one cell for the ellipsis
    for index in range(len(text) - 1, -1, -1):
        size = get_character_cell_size(text[index])
        if kept + size > room:
            return ELLIPSIS + text[index + 1 :]
        kept += size
    return ELLIPSIS  # pragma: no cover - the whole text fitted, handled above


def _fit_message(message: str, width: int) -> str:
    """Fit a message, keeping a short ``"<n> failed · "`` head and cutting the URL/path from the left."""
    head, sep, tail = message.rpartition(" · ")
    if sep and cell_len(head) + len(sep) + 4 <= width:
        return head + sep + cut_left(tail, width - cell_len(head) - len(sep))
    return cut_left(message, width)


def _bar(done: int, total: int, width: int) -> str:
    filled = 0 if total <= 0 else min(width, done * width // total)
    return "━" * filled + "╺" + "─" * (width - filled - 1) if filled < width else "━" * width


def render_line(
    label: str,
    done: int,
    total: int,
    rate: float | None,
    eta: float | None,
    message: str,
    width: int,
    *,
    bar: bool = True,
) -> str:
    """One progress line of at most ``width`` cells (more only when the counts alone need it).

    Args:
        label: what is running (``"indexing"``).
        done: items finished.
        total: items known so far (0 or less = unknown, shown as ``?``).
        rate: items per second, or ``None`` before it can be estimated.
        eta: seconds left, or ``None`` when unknown.
        message: the current item (a path or URL; control characters are escaped here).
        width: the terminal width in cells (columns).
        bar: draw a bar when there is room (plain log lines have none).

    Returns:
        The line, without a newline. Every field but the counts yields to a narrow width: the
        path is cut from the left, the bar goes first, then the label and the rate make room
        for :data:`PATH_MIN_COLUMNS` of path; ``DONE/TOTAL`` and the ETA are always whole.
    """
    counts = f"{done}/{total if total > 0 else '?'}"
    eta_text = f"ETA {_clock(eta)}"
    rate_text = _rate_text(rate)
    message = printable(message, strict=True)  # every character of unknown width escaped
    layouts = (
        [label, counts, rate_text, eta_text],
        [counts, rate_text, eta_text],
        [counts, eta_text],
    )
    wanted = PATH_MIN_COLUMNS + 1 if message else 0  # a path is only worth showing this wide
    fitting = [c for c in layouts if cell_len(" ".join(c)) <= width] or [layouts[-1]]
    fields = next((c for c in fitting if cell_len(" ".join(c)) + wanted <= width), fitting[0])
    line = " ".join(fields)
    room = width - cell_len(line) - 1  # one space before each extra field
    if room < 4:
        return line
    bar_width = min(BAR_MAX_COLUMNS, (room - PATH_MIN_COLUMNS - 1) // 2)
    if bar and bar_width >= BAR_MIN_COLUMNS and total > 0:
        line += " " + _bar(done, total, bar_width)
        room -= bar_width + 1
    if message and room > 0:
        line += " " + _fit_message(message, room)
    return line


class RunProgress:
    """``progress(done, total, message)`` callable that draws on a TTY or logs plain lines.

    Thread-safe: indexers may call it from worker threads. Use as a context manager
    (:meth:`open`) so the live line is removed when the run ends.
    """

    def __init__(
        self,
        label: str,
        *,
        console: Any = None,
        stream: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        plain_interval: float | None = None,
    ) -> None:
        """Args:
        label: what is running, first on the line.
        console: a rich ``Console`` for the live line (TTY mode); ``None`` selects plain mode.
        stream: where plain lines go (default ``sys.stderr``).
        clock: seconds, monotonic (tests pass a fake one).
        plain_interval: seconds between plain lines (default :data:`PLAIN_INTERVAL_S`).
        """
        self.label = label
        self.console = console
        self.stream = stream
        self._clock = clock
        self._interval = PLAIN_INTERVAL_S if plain_interval is None else plain_interval
        self._lock = threading.Lock()
        self._started = self._last_plain = clock()
        self.done = 0
        self.total = 0
        self.message = ""

    def restart(self) -> None:
        """Start the clock again (after waiting for another run): rate and ETA count from now."""
        with self._lock:
            self._started = self._last_plain = self._clock()

    def estimate(self) -> tuple[float | None, float | None]:
        """``(rate items/s, eta seconds)`` from the counts so far (``None`` when not known yet)."""
        with self._lock:
            done, total = self.done, self.total
        elapsed = self._clock() - self._started
        if done <= 0:
            return None, None
        if elapsed <= 0:
            return None, None
        rate = done / elapsed
        eta = max(0, total - done) / rate if total > 0 else None
        return rate, eta

    def line(self, width: int, *, bar: bool = True) -> str:
        """The current line for a terminal ``width`` columns wide."""
        rate, eta = self.estimate()
        with self._lock:
            done, total, message = self.done, self.total, self.message
        return render_line(self.label, done, total, rate, eta, message, width, bar=bar)

    def __call__(self, done: int, total: int, message: str) -> None:
        now = self._clock()
        with self._lock:
            self.done, self.total, self.message = done, total, message
            due = self.console is None and now - self._last_plain >= self._interval
            if due:
                self._last_plain = now
        if due:
            stream = self.stream or sys.stderr
            stream.write(f"docmunch: {self.line(10**6, bar=False)}\n")
            stream.flush()

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.text import Text

        yield Text(self.line(options.max_width), no_wrap=True, overflow="ignore")

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement(1, options.max_width)

    @contextmanager
    def open(self) -> Iterator[RunProgress]:
        """Show the live line (TTY mode) while the block runs; plain mode needs no setup."""
        if self.console is None:
            yield self
            return
        from rich.live import Live

        with Live(self, console=self.console, transient=True, refresh_per_second=8, redirect_stdout=False):
            yield self


def wait_notice(
    progress: Callable[[int, int, str], None] | None = None, *, stream: IO[str] | None = None
) -> Callable[[str | None], None]:
    """The ``on_wait`` of a CLI run (:data:`docmunch.index.runlock.WaitNotice`): when the run has
    to wait for another run of its repo, one ``docmunch: MESSAGE`` line on stderr (above the live
    line of a TTY ``progress``; with ``--json`` too, stdout stays the report); when it may go on,
    ``progress``'s clock restarts (:meth:`RunProgress.restart`), so rate and ETA leave the wait out.

    Args:
        progress: the run's progress (a :class:`RunProgress`), or ``None`` (no progress: ``--json``,
            or a command without one such as ``import``).
        stream: where the line goes without a live line (default ``sys.stderr``).
    """

    def notice(message: str | None) -> None:
        if message is not None:
            console = getattr(progress, "console", None)
            if console is not None:  # above the live line
                console.print(f"docmunch: {esc(printable(message))}", highlight=False)
            else:
                out = stream or sys.stderr
                out.write(f"docmunch: {printable(message)}\n")
                out.flush()
        elif progress is not None and hasattr(progress, "restart"):
            progress.restart()

    return notice
