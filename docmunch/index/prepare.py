"""Rendering and sectioning of changed files — in worker processes when there are many.

Parsing Markdown is the CPU-bound part of indexing (the database writes are not), so when a
run has at least :data:`PARALLEL_MIN_DOCS` files to (re)parse and the machine has more than
one CPU, the files are rendered and sectioned in a ``ProcessPoolExecutor``. Workers are
*forked* — no re-import of the caller's ``__main__`` (which ``spawn``/``forkserver`` need, and
which breaks unguarded scripts) — and only when the calling process has a single thread
(forking a threaded process can deadlock); otherwise, e.g. inside the MCP server, parsing
runs in this process. Workers never touch the parent's SQLite connections and leave with
``os._exit`` (multiprocessing's rule), so those are never closed or checkpointed by a child.
Each worker reads the file itself, hashes the bytes it read, writes them to the raw cache
(not yet fsynced) and returns a :class:`~docmunch.index.document.PreparedDoc`; the parent
commits them in order.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from docmunch.errors import DocmunchError
from docmunch.formats import render_file
from docmunch.index.document import PreparedDoc, prepare_document
from docmunch.index.rawcache import RawCache
from docmunch.index.walk import read_regular

__all__ = ["MAX_WORKERS", "PARALLEL_MIN_DOCS", "WORKER_GC_THRESHOLD", "Prepared", "one_line", "prepare_files"]

PARALLEL_MIN_DOCS = 48
"""Below this many files to parse, worker start-up (~0.3 s) costs more than it saves."""
MAX_WORKERS = 4
"""Upper bound on worker processes (also bounded by the CPUs this process may use)."""

WORKER_GC_THRESHOLD = 10_000
"""A worker's first-generation garbage-collection threshold (net new container objects;
Python's default is 700): parsing a document allocates hundreds of thousands of short-lived
objects (markdown-it tokens), freed by reference counting, so the default collects a
thousand times per k8s-en run to find almost no cycles."""

Prepared = PreparedDoc | str
"""A prepared document, or the one-line error message of a file that failed."""


def one_line(exc: BaseException) -> str:
    """An exception as a one-line message (type name added for non-docmunch errors)."""
    kind = type(exc).__qualname__
    if type(exc).__module__ != "builtins":
        kind = f"{type(exc).__module__}.{kind}"  # zlib.error, not "error"
    text = " ".join(str(exc).split()) or kind
    return text if isinstance(exc, DocmunchError) else f"{kind}: {text}"


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _init_worker(parent: int) -> None:
    """Worker initializer: leave Ctrl-C to the parent, exit when the parent dies, and keep the
    garbage collector off the objects inherited from the parent.

    Forked workers inherit the task queue's write end, so after a ``kill -9`` of the parent
    they would otherwise wait forever. ``gc.freeze()`` moves every inherited object to the
    permanent generation (the use Python's ``gc`` documentation gives it for forked workers):
    collections no longer traverse them, nor write to their pages (which would copy them);
    :data:`WORKER_GC_THRESHOLD` makes collections of the worker's own objects rarer.
    """
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(max(WORKER_GC_THRESHOLD, threshold[0]), *threshold[1:])
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="docmunch-parent-watch", daemon=True).start()


def prepare_file(
    raw_root: Path, repo: str, password: str | None, max_file_bytes: int, path: Path, doc_path: str
) -> Prepared:
    """Read (a regular file of at most ``max_file_bytes`` bytes), hash, render and section one
    file (runs in a worker or inline).

    Returns:
        The :class:`PreparedDoc` (raw file written, not fsynced) or a one-line error message
        for a file that cannot be read, rendered or sectioned — whatever the renderer raised
        (an unexpected exception is named by its type; ``DOCMUNCH_DEBUG=1`` prints its
        traceback on stderr), so one bad file never ends the run.
    """
    try:
        data = read_regular(path, max_file_bytes)
    except DocmunchError as exc:
        return one_line(exc)
    digest = hashlib.sha256(data).hexdigest()
    try:
        rendition = render_file(path, data, password=password)
        return prepare_document(RawCache(raw_root), repo, doc_path, rendition, source_hash=digest, sync=False)
    except DocmunchError as exc:
        return one_line(exc)
    except Exception as exc:  # a renderer choked on malformed input: that file's error, the run goes on
        if os.environ.get("DOCMUNCH_DEBUG"):
            traceback.print_exc()
        return one_line(exc)


def prepare_files(
    raw_root: Path,
    repo: str,
    files: Sequence[tuple[Path, str]],
    *,
    password: str | None = None,
    workers: int | None = None,
    max_file_bytes: int = 5 * 2**20,
) -> Generator[tuple[str, Prepared], None, None]:
    """Prepare ``files`` (``(path, doc_path)`` pairs); yields ``(doc_path, result)`` in order.

    Args:
        raw_root: the raw cache folder.
        repo: repo name (first part of section ids).
        files: the files to parse.
        password: for encrypted PDF (encrypted DOCX is refused whatever the password).
        workers: number of processes; default ``min(CPUs, MAX_WORKERS)`` when there are at
            least :data:`PARALLEL_MIN_DOCS` files, else 1 (in this process). Forced to 1 when
            the caller has more than one thread.
        max_file_bytes: a file larger than this (it grew since the walk) is an error.
    """
    job: Callable[[Path, str], Prepared] = partial(prepare_file, raw_root, repo, password, max_file_bytes)
    if workers is None:
        workers = min(_cpus(), MAX_WORKERS) if len(files) >= PARALLEL_MIN_DOCS else 1
    can_fork = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if workers <= 1 or not can_fork:
        for path, doc_path in files:
            yield doc_path, job(path, doc_path)
        return
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_init_worker, initargs=(os.getpid(),)
    )
    try:
        paths = [p for p, _ in files]
        doc_paths = [d for _, d in files]
        yield from zip(doc_paths, pool.map(job, paths, doc_paths, chunksize=4), strict=True)
    finally:
        # On Ctrl-C or an error in the caller, drop the queued files instead of parsing them all.
        pool.shutdown(wait=True, cancel_futures=True)
