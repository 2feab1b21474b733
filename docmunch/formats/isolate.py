"""Rendering in a separate, memory-capped worker process (for pdfium; issue 12).

Some renderer work happens in C++ that docmunch cannot count from outside: pdfium parses a
PDF page's whole content stream when the page is loaded and builds its text page before any
limit of :mod:`docmunch.formats.pdf_limits` can look (a 51 KB page of 2 million paths took
676 MB inside pdfium; a file near the 5 MiB cap could need a hundred times that). So
:func:`call` runs such a renderer in a worker process whose address space is capped with
``RLIMIT_AS`` (set from the parent with ``prlimit`` right after the worker starts, before it
is sent any data) and whose run time is capped per call. An input that exhausts the cap makes
the worker fail (``MemoryError``, or pdfium aborting); the caller gets a
:class:`~docmunch.errors.LimitExceeded` naming the limit, the worker is restarted for the
next document, and the indexing process itself never grows.

The worker is a fresh interpreter (``python -m docmunch.formats.isolate``), started on first
use and reused (about 0.15 s to start), one per process (a forked parser worker starts its own)
and one call at a time. Requests and replies are length-prefixed JSON, never pickle, so a
worker compromised by a hostile file cannot make the parent run code. It dies with its parent
(``PR_SET_PDEATHSIG``) or when its stdin closes.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import dataclasses
import importlib
import json
import os
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any

from docmunch import errors
from docmunch.errors import ConvertError, DocmunchError, LimitExceeded
from docmunch.formats.base import Rendition
from docmunch.formats.blocks import Block
from docmunch.limits import Limit
from docmunch.section.model import HeadingSpec

__all__ = ["call", "rendition_from_json", "rendition_to_json"]

_HEADER = struct.Struct(">Q")
_MAX_REPLY_BYTES = 1 << 31
"""A reply longer than this (2 GiB) is refused as corrupt."""


def rendition_to_json(rendition: Rendition) -> dict[str, Any]:
    """A JSON-safe form of a rendition (Markdown as base64; blocks as lists, headings as
    dicts)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rendition):
        value = getattr(rendition, f.name)
        if f.name == "markdown":
            value = base64.b64encode(value).decode("ascii")
        elif f.name == "blocks":
            value = [[getattr(b, g.name) for g in dataclasses.fields(b)] for b in value]
        elif f.name == "headings" and value is not None:
            value = [dataclasses.asdict(h) for h in value]
        out[f.name] = value
    return out


def rendition_from_json(data: dict[str, Any]) -> Rendition:
    """The rendition :func:`rendition_to_json` described."""
    names = [g.name for g in dataclasses.fields(Block)]
    fields = dict(data)
    fields["markdown"] = base64.b64decode(fields["markdown"])
    fields["blocks"] = tuple(
        Block(**{**dict(zip(names, row, strict=True)), "positions": tuple(row[names.index("positions")])})
        for row in fields["blocks"]
    )
    if fields.get("headings") is not None:
        fields["headings"] = tuple(HeadingSpec(**h) for h in fields["headings"])
    return Rendition(**fields)


# --- parent side ---------------------------------------------------------------------------
class _Worker:
    def __init__(self, memory_bytes: int) -> None:
        self.memory_bytes = memory_bytes
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "docmunch.formats.isolate"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        try:
            resource.prlimit(self.proc.pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        except (OSError, AttributeError):
            self.close()
            raise

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def request(self, payload: bytes, timeout: float) -> bytes | str:
        """Send one request; the reply bytes, or ``"timeout"`` / ``"died"``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(_HEADER.pack(len(payload)) + payload)
            self.proc.stdin.flush()
        except OSError:
            return "died"
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        want = _HEADER.size
        have_header = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, max(1 << 16, want - len(buf)))
            if not chunk:
                return "died"
            buf += chunk
            if not have_header and len(buf) >= _HEADER.size:
                (size,) = _HEADER.unpack(bytes(buf[: _HEADER.size]))
                if size > _MAX_REPLY_BYTES:
                    return "died"
                del buf[: _HEADER.size]
                want, have_header = size, True
            if have_header and len(buf) >= want:
                return bytes(buf[:want])


_lock = threading.Lock()
_worker: _Worker | None = None


def _forget_after_fork() -> None:
    """In a forked child: the parent's worker is not ours (its pipes are closed here)."""
    global _worker, _lock
    if _worker is not None:
        for stream in (_worker.proc.stdin, _worker.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
    _worker = None
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def call(
    target: str,
    kwargs: dict[str, Any],
    *,
    memory: Limit,
    seconds: Limit,
    what: str,
    path: str | None = None,
) -> Rendition:
    """Run ``target`` (``"module:function"`` returning a :class:`Rendition`) in the worker.

    Args:
        target: the renderer, called as ``function(**kwargs)``; ``bytes`` values are sent
            as base64, ``pathlib.Path`` values as strings (the function gets ``str``).
        kwargs: JSON-safe keyword arguments (plus bytes).
        memory: the worker's address-space limit (bytes).
        seconds: the wall-clock limit of this call.
        what: what is rendered, for messages (``"PDF"``).
        path: the file concerned (for errors).

    Raises:
        LimitExceeded: the worker ran out of memory, crashed, or took too long.
        DocmunchError: whatever the renderer raised (same class and message).
    """
    global _worker
    args = {k: ({"__bytes__": base64.b64encode(v).decode("ascii")} if isinstance(v, bytes) else
                (str(v) if isinstance(v, os.PathLike) else v)) for k, v in kwargs.items()}
    payload = json.dumps({"target": target, "kwargs": args}).encode("utf-8")
    memory_bytes = memory.value()
    timeout = seconds.value()
    with _lock:
        if _worker is None or not _worker.alive() or _worker.memory_bytes != memory_bytes:
            if _worker is not None:
                _worker.close()
            _worker = _Worker(memory_bytes)
        worker = _worker
        reply = worker.request(payload, timeout)
        if isinstance(reply, str):
            worker.close()
            _worker = None
            if reply == "timeout":
                raise seconds.exceeded(f"{what} rendering took too long", path=path)
            raise memory.exceeded(f"{what} rendering ran out of memory or crashed", path=path)
    return _answer(json.loads(reply), memory, what, path)


def _answer(message: dict[str, Any], memory: Limit, what: str, path: str | None) -> Rendition:
    if message.get("ok"):
        return rendition_from_json(message["rendition"])
    kind = message.get("error", "")
    text = str(message.get("message", ""))
    if kind == "MemoryError":
        raise memory.exceeded(f"{what} rendering ran out of memory", path=path)
    if kind == "LimitExceeded":
        attrs = message.get("attrs", {})
        raise LimitExceeded(text, limit=str(attrs.get("limit", "")), value=int(attrs.get("value", 0)),
                            env=str(attrs.get("env", "")), path=path)
    cls = getattr(errors, kind, None)
    if isinstance(cls, type) and issubclass(cls, ConvertError):
        raise cls(text, path=path)
    if isinstance(cls, type) and issubclass(cls, DocmunchError):
        raise ConvertError(text, path=path)
    raise ConvertError(f"{what} renderer failed: {kind}: {text}", path=path)


# --- worker side ---------------------------------------------------------------------------
def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _read_exact(fd: int, size: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < size:
        chunk = os.read(fd, size - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _serve() -> None:
    """The worker loop: one request in, one reply out, until stdin closes."""
    _die_with_parent()
    stdin = sys.stdin.fileno()
    stdout = os.dup(sys.stdout.fileno())  # replies only: anything else printed goes to stderr
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        header = _read_exact(stdin, _HEADER.size)
        if header is None:
            return
        (size,) = _HEADER.unpack(header)
        raw = _read_exact(stdin, size)
        if raw is None:
            return
        reply = _handle(raw)
        del raw
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8")
        os.write(stdout, _HEADER.pack(len(data)))
        view = memoryview(data)
        while view:
            view = view[os.write(stdout, view):]


def _handle(raw: bytes) -> dict[str, Any]:
    try:
        request = json.loads(raw)
        module_name, func_name = request["target"].split(":", 1)
        func = getattr(importlib.import_module(module_name), func_name)
        kwargs = {k: (base64.b64decode(v["__bytes__"]) if isinstance(v, dict) and "__bytes__" in v else v)
                  for k, v in request["kwargs"].items()}
        return {"ok": True, "rendition": rendition_to_json(func(**kwargs))}
    except MemoryError:
        return {"ok": False, "error": "MemoryError", "message": ""}
    except LimitExceeded as exc:
        return {"ok": False, "error": "LimitExceeded", "message": str(exc),
                "attrs": {"limit": exc.limit, "value": exc.value, "env": exc.env}}
    except Exception as exc:  # reported to the parent, which maps it to a docmunch error
        return {"ok": False, "error": type(exc).__name__, "message": " ".join(str(exc).split())}


if __name__ == "__main__":
    _serve()
