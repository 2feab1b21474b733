"""One writer per repo at a time, and what a crashed run left behind (issue 12).

**Serialising writers.** SQLite already makes every document's rows all-or-nothing, but two
index runs of one repo from *different* trees used to interleave their batches, so the repo
ended up half one tree and half the other. A run now holds an exclusive ``flock`` on
``$DOCMUNCH_HOME/locks/<sha256(repo)[:32]>.lock`` from its start to its end: a second run of
the same repo waits (at most :data:`REPO_LOCK_WAIT_SECONDS`), then sees the first one's
result and applies its own tree completely. Runs of different repos do not wait for each
other. ``flock`` locks belong to the open file, so the kernel releases them when a process
dies, ``kill -9`` included: a crash never leaves a repo locked. A waiting run says so once
(:data:`WaitNotice`: the CLI prints one line naming the other run's pid and start time) and
tells again when it holds the repo, so its progress clock can start then (an ETA counted
from before the wait came out as hours). Readers never take this lock.

**Journal.** While it runs, the lock file holds a one-line JSON journal ``{"state":
"running", "pid", "started_at"}``; a run that ends (successfully or with an error) empties
it. A run that takes the lock and finds ``"running"`` (or ``"interrupted"``) there knows the
previous run of that repo was killed: its batches committed so far are visible, the rest
was not (each document is still old-or-new, never mixed). That is reported
(:attr:`RepoRun.interrupted`; the CLI prints a note, ``--json`` an ``interrupted_run`` key)
and the new run, which re-checks every file by hash, completes the repo. A run that re-checks
only what is stored (``refresh`` of a URL or crawled repo: ``completes=False``) completes
nothing: on its end the mark of an interrupted run is written back, so the next index run still
finds it and completes the repo. So does a run that reads only a part of the repo's recorded
source (a file or sub-folder of its folder, one page into a repo holding other pages): its
report carries no ``interrupted_run`` but a warning (:func:`still_incomplete`) naming the
command that completes the repo.

**Other writers.** ``delete`` and ``rename`` take the same lock (``Index.delete_repo``,
``Index.rename_repo``), so they wait for a running index run instead of racing it. A delete
clears the journal (a new repo of that name starts clean); a rename moves an interrupted run's
mark to the new name, whose documents are the incomplete ones (:meth:`RepoRun.carry`).

**Clean-up.** A killed run can leave raw-cache files no document refers to (its last,
uncommitted batch) and, when it was creating the repo, an empty repo. When a run starts and
any lock file says ``"running"`` while its lock is free (its writer is dead), the raw cache is
swept (:meth:`docmunch.index.store.Store.sweep_orphans`) and those journals become
``"interrupted"``; an interrupted repo with no documents is deleted by its next run.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from docmunch.errors import IndexStoreError, RunCancelled
from docmunch.limits import Limit

__all__ = [
    "LOCK_DIR",
    "REPO_LOCK_WAIT_SECONDS",
    "RepoRun",
    "WaitNotice",
    "index_command",
    "run_state",
    "stale_runs",
    "still_incomplete",
]

LOCK_DIR = "locks"
"""Folder under the docmunch home that holds one lock file per repo ever written."""
REPO_LOCK_WAIT_SECONDS = Limit("REPO_LOCK_WAIT_SECONDS", 600, "seconds")
"""How long a run waits for another run of the same repo to finish before giving up."""
_POLL_SECONDS = 0.05
"""Seconds between two tries of a held lock (a held ``flock`` cannot be waited for with a deadline)."""
_NAMELESS_SECONDS = 0.5
"""How long a waiting run looks for the holder's journal (written just after it took the lock)
before saying it waits without naming the holder's pid."""

WaitNotice = Callable[[str | None], None]
"""``notice(message)`` once when a run has to wait for another run of its repo (``message``: one
line naming the repo and, when known, the other run's pid and start time), then
``notice(None)`` once it holds the repo. Not called when the repo is free."""


def _lock_path(home: Path, repo: str) -> Path:
    return home / LOCK_DIR / (hashlib.sha256(repo.encode("utf-8")).hexdigest()[:32] + ".lock")


def _read_journal(fd: int) -> dict[str, Any] | None:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 4096)
    if not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _write_journal(fd: int, journal: dict[str, Any] | None) -> None:
    os.ftruncate(fd, 0)
    if journal is not None:
        os.pwrite(fd, (json.dumps(journal, ensure_ascii=False) + "\n").encode("utf-8"), 0)


def run_state(home: Path, repo: str) -> str | None:
    """How the last run of ``repo`` stands, read without waiting or changing anything:
    ``"running"`` (a live run holds the repo now), ``"interrupted"`` (the last run was killed;
    its next run completes it) or ``None`` (complete, or never run with a journal)."""
    try:
        fd = os.open(_lock_path(home, repo), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return "running"
        journal = _read_journal(fd)
        if journal is not None and journal.get("state") in ("running", "interrupted"):
            return "interrupted"
        return None
    finally:
        os.close(fd)


def stale_runs(home: Path) -> list[dict[str, Any]]:
    """Journals of runs that were killed (``"running"`` but unlocked); each is marked
    ``"interrupted"`` so that it is reported by its repo's next run and swept only once."""
    found: list[dict[str, Any]] = []
    folder = home / LOCK_DIR
    try:
        paths = sorted(folder.glob("*.lock"))
    except OSError:
        return found
    for path in paths:
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live run holds it
            journal = _read_journal(fd)
            if journal is not None and journal.get("state") == "running":
                journal["state"] = "interrupted"
                _write_journal(fd, journal)
                found.append(journal)
        finally:
            os.close(fd)  # also releases the lock
    return found


def index_command(source: str, repo: str, *options: str) -> str:
    """The ``docmunch index`` command line that indexes ``source`` into ``repo`` (quoted for a
    POSIX shell), e.g. ``docmunch index http://127.0.0.1:8731/ --repo s --crawl --allow-private``."""
    return " ".join(shlex.quote(word) for word in ("docmunch", "index", source, "--repo", repo, *options))


def still_incomplete(journal: dict[str, Any], why: str, command: str) -> str:
    """The warning of a run that found ``journal`` (an interrupted run's) and did not complete
    the repo: ``why`` says what the run read, ``command`` (:func:`index_command`) what completes it."""
    return (
        f"the previous run of this repo (pid {journal.get('pid')}, started {journal.get('started_at')}) "
        f"was interrupted; {why}, so the repo stays incomplete: to complete it, run `{command}`"
    )


def _who(holder: dict[str, Any]) -> str:
    """``another docmunch run (pid N, started T)`` from a holder's journal (``?`` when unknown)."""
    return f"another docmunch run (pid {holder.get('pid', '?')}, started {holder.get('started_at', '?')})"


class RepoRun:
    """``with RepoRun(home, repo) as run:`` — the exclusive writer of ``repo`` (see module
    docstring). :attr:`interrupted` is the journal of a previous run of this repo that was
    killed, else ``None``; :attr:`swept` is true when this run found any crashed run's
    leftovers to clean (the caller then sweeps the raw cache).

    ``on_wait`` hears when the run has to wait for another one (:data:`WaitNotice`).
    ``completes=False`` says the run does not complete the repo (it re-checks stored documents
    only): it still reports :attr:`interrupted`, but its normal end keeps that mark
    (``"interrupted"``) instead of clearing it.

    Raises (on enter):
        LimitExceeded: another run of the repo held it for longer than
            :data:`REPO_LOCK_WAIT_SECONDS`.
        IndexStoreError: the lock file cannot be created.
    """

    def __init__(
        self, home: Path, repo: str, *, on_wait: WaitNotice | None = None, completes: bool = True
    ) -> None:
        self.path = _lock_path(home, repo)
        self.home = home
        self.repo = repo
        self.on_wait = on_wait
        self.completes = completes
        self.waited_s = 0.0
        """Seconds this run waited for another run of its repo (0 when it was free)."""
        self.interrupted: dict[str, Any] | None = None
        self.swept = False
        self._carried: dict[str, Any] | None = None
        self._fd = -1

    def __enter__(self) -> RepoRun:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise IndexStoreError(
                f"cannot create lock file {self.path}: {exc.strerror}", path=str(self.path)
            ) from None
        try:
            self._acquire(fd)
            previous = _read_journal(fd)
            if previous is not None and previous.get("state") in ("running", "interrupted"):
                self.interrupted = previous
            stale = stale_runs(self.home)
            self.swept = bool(stale) or (previous is not None and previous.get("state") == "running")
            _write_journal(
                fd,
                {"state": "running", "repo": self.repo, "pid": os.getpid(),
                 "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            )
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def _acquire(self, fd: int) -> None:
        wait = REPO_LOCK_WAIT_SECONDS.value()
        started = time.monotonic()
        deadline = started + wait
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                holder = _read_journal(fd) or {}
                if now >= deadline:
                    raise REPO_LOCK_WAIT_SECONDS.exceeded(
                        f"repo {self.repo!r} is being written by {_who(holder)}"
                    ) from None
                named = "pid" in holder or now - started >= _NAMELESS_SECONDS
                if not told and self.on_wait is not None and named:
                    told = True
                    self.on_wait(
                        f"repo {self.repo!r} is being written by {_who(holder)}; "
                        f"waiting for it to finish (at most {wait:g} s)"
                    )
                time.sleep(_POLL_SECONDS)
        self.waited_s = time.monotonic() - started
        if told and self.on_wait is not None:
            self.on_wait(None)

    def carry(self, journal: dict[str, Any] | None) -> None:
        """Leave ``journal`` (another repo's interrupted run, e.g. the old name of a renamed repo)
        as this repo's mark at the normal end of the run, in place of clearing it."""
        self._carried = None if journal is None else {**journal, "repo": self.repo, "state": "interrupted"}

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fd < 0:
            return
        try:
            # Ended (an error is reported by the caller). After Ctrl-C or a cancelled call the
            # journal stays "running": the run stopped mid-way like a killed one, and is treated so.
            # A run that does not complete the repo leaves an interrupted run's mark as it was.
            if exc_type is None or not issubclass(exc_type, (KeyboardInterrupt, RunCancelled)):
                kept = self._carried
                if not self.completes and self.interrupted is not None:
                    kept = {**self.interrupted, "state": "interrupted"}
                with contextlib.suppress(OSError):
                    _write_journal(self._fd, kept)
        finally:
            os.close(self._fd)
            self._fd = -1
