"""Run the real ``docmunch`` CLI on hostile input and measure what it cost.

:func:`run_cli` starts ``python -m docmunch ARGS`` with its own ``DOCMUNCH_HOME``, under an
address-space cap (``RLIMIT_AS``, a guard so that a regression fails the test instead of
exhausting the shared machine), and reports its exit status, output, wall time and the peak
resident set size of the process *tree*: the largest ``VmHWM`` (the kernel's high-water mark
of a process's RSS) of the CLI process and each of its descendants (the parser workers),
sampled every :data:`SAMPLE_SECONDS`. (``ru_maxrss`` from ``wait4`` would be simpler but is
wrong here: Linux carries a process's high-water mark across ``fork`` + ``execve``, so the
child would report the test runner's own RSS.) :func:`peak_rss_of_children` reads ``VmHWM``
of live child processes (the MCP server started by the SDK's stdio client).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

REPO_ROOT = Path(__file__).resolve().parents[2]

SAMPLE_SECONDS = 0.02
"""Interval between two reads of the process tree's ``VmHWM``."""

ADDRESS_SPACE_CAP = 3 * 2**30
"""Virtual-memory cap of every CLI run (bytes): far above any bound asserted, so hitting it
means a test failure, never a thrashing machine."""


@dataclass(frozen=True, slots=True)
class Run:
    """One finished CLI run."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    """Wall-clock time of the whole process."""
    peak_rss_mb: float
    """Peak RSS of the process tree in MiB (largest sampled ``VmHWM``)."""

    def lines(self, kind: str) -> list[str]:
        """stderr lines that start with ``docmunch: {kind} `` (``error`` or ``skipped``)."""
        return [ln for ln in self.stderr.splitlines() if ln.startswith(f"docmunch: {kind} ")]


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run: the caller's, with its own ``DOCMUNCH_HOME``."""
    env = dict(os.environ)
    env["DOCMUNCH_HOME"] = str(home)
    env.pop("DOCMUNCH_DEBUG", None)
    env.update(extra)
    return env


def run_cli(args: list[str], home: Path, *, timeout: float = 120, **env: str) -> Run:
    """Run ``python -m docmunch *args`` and measure it (see the module docstring).

    Raises:
        AssertionError: the run did not finish within ``timeout`` seconds (it is killed).
    """

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))

    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "docmunch", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(home, **env),
        cwd=REPO_ROOT,
        preexec_fn=limit,
    )
    assert proc.stdout is not None and proc.stderr is not None
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: IO[bytes]) -> None:
        chunks[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
    for reader in readers:
        reader.start()
    peak = [0.0]
    finished = threading.Event()

    def sample() -> None:
        while not finished.is_set():
            peak[0] = max(peak[0], tree_hwm_mb(proc.pid))
            finished.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    finally:
        finished.set()
        sampler.join()
    seconds = time.perf_counter() - started
    for reader in readers:
        reader.join()
    proc.stdout.close()
    proc.stderr.close()
    if seconds >= timeout:
        raise AssertionError(f"docmunch {' '.join(args)} did not finish in {timeout} s")
    return Run(
        proc.returncode,
        chunks["out"].decode("utf-8", "replace"),
        chunks["err"].decode("utf-8", "replace"),
        seconds,
        peak[0],
    )


def _hwm_mb(pid: int) -> float:
    try:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            if row.startswith("VmHWM:"):
                return int(row.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                kids = [int(p) for p in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            found.extend(kids)
            todo.extend(kids)
    return found


def tree_hwm_mb(pid: int) -> float:
    """Largest ``VmHWM`` (MiB) among ``pid`` and its live descendants."""
    return max([_hwm_mb(pid), *(_hwm_mb(p) for p in _descendants(pid))])


def peak_rss_of_children(name: str) -> float:
    """Largest ``VmHWM`` (peak RSS, MiB) of live children of this process whose command line
    contains ``name``; 0.0 when there is none."""
    best = 0.0
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != me or name not in (entry / "cmdline").read_bytes().decode("utf-8", "replace"):
                continue
            for row in (entry / "status").read_text().splitlines():
                if row.startswith("VmHWM:"):
                    best = max(best, int(row.split()[1]) / 1024)
        except (OSError, ValueError, IndexError):
            continue
    return best
