"""stdio transport with wire hygiene: nothing but JSON-RPC ever reaches the client's stdout.

How it works (POSIX; Windows takes the same path through the CRT descriptors):

1. :func:`claim_stdio` runs first, before the server touches the index. It duplicates fd 1 to a
   private close-on-exec descriptor (the *wire*), then points fd 1 at stderr and fd 0 at the
   null device, and replaces ``sys.stdout``/``sys.stdin``. A ``print`` in a library, a C
   extension writing to fd 1, or a child process inheriting fd 1 all land on stderr; only the
   transport holds the wire.
2. :func:`stdio_transport` reads the private stdin duplicate as **bytes** and decodes each line
   as strict UTF-8 itself, so the locale and ``PYTHONIOENCODING`` never matter; replies are
   encoded as UTF-8 bytes and written to the wire under one lock (one ``write`` per line, so
   frames never interleave).
3. Every line goes through :func:`docmunch.serve._jsonrpc.decode_message` (size, depth,
   UTF-8, surrogates, JSON-RPC shape). A line it rejects gets a JSON-RPC ``-32700 Parse
   error`` or ``-32600 Invalid Request`` (``id`` null unless a usable one could be read, per
   JSON-RPC 2.0 §5.1; a message refused only for its size or depth answers the ``id`` found at
   its ends, :func:`~docmunch.serve._jsonrpc.scan_id`, so the SDK call waiting on it ends);
   blank lines are ignored; the session goes on in every case. A line longer than the message
   limit is discarded up to its newline, never buffered whole (its first and last 64 KiB kept).
4. Each request is admitted to the :class:`~docmunch.serve._order.CallOrder` as it is read,
   and released when its reply is written, so calls on one repo keep their arrival order.
5. A reply the SDK cannot serialise (a lone surrogate from an undecodable file name) is sent
   with those characters replaced by U+FFFD rather than lost.

The SDK's own ``mcp.server.stdio.stdio_server`` does step 1 too, but it decodes with
``errors="replace"`` and drops unparsable lines with a debug log only, so a client never
learns its frame was lost; hence this module.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from docmunch.serve._jsonrpc import (
    ID_SCAN_BYTES,
    INTERNAL_ERROR,
    Rejection,
    decode_message,
    json_max_depth,
    max_message_bytes,
    scan_id,
    too_large,
)
from docmunch.serve._order import CallOrder

__all__ = ["StdioClaim", "claim_stdio", "stdio_transport"]

logger = logging.getLogger("docmunch.serve")

_CANCELLED = "notifications/cancelled"

EOF_GRACE_S = 120.0
"""After stdin EOF, how long (seconds) requests already read may still run and be answered."""

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class StdioClaim:
    """The private descriptors that carry the wire while fd 0/1 are diverted."""

    wire_in: int
    """Private duplicate of the original fd 0 (client → server bytes)."""
    wire_out: int
    """Private duplicate of the original fd 1 (server → client bytes)."""
    saved_stdout: IO[str]
    """``sys.stdout`` before the claim, put back by :meth:`release`."""
    saved_stdin: IO[str]
    """``sys.stdin`` before the claim, put back by :meth:`release`."""

    def release(self) -> None:
        """Point fd 0/1 back at the wire and restore ``sys.stdin``/``sys.stdout``."""
        sys.stdout.flush()
        for fd in (self.wire_in, self.wire_out):  # the transport made them non-blocking;
            with suppress(OSError):  # a terminal shared with the shell must not stay so
                os.set_blocking(fd, True)
        os.dup2(self.wire_out, 1)
        os.dup2(self.wire_in, 0)
        sys.stdout, sys.stdin = self.saved_stdout, self.saved_stdin
        for fd in (self.wire_in, self.wire_out):
            with suppress(OSError):
                os.close(fd)


def _dup_private(fd: int) -> int:
    """Duplicate ``fd`` onto a non-inheritable descriptor above the standard three."""
    if sys.platform == "win32":  # pragma: no cover - not exercised here
        new = os.dup(fd)
        os.set_inheritable(new, False)
        return new
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def claim_stdio() -> StdioClaim:
    """Take fd 0/1 for the transport; afterwards fd 1 is stderr and fd 0 is the null device.

    Returns the :class:`StdioClaim` whose descriptors the transport must use. ``sys.stdout``
    becomes ``sys.stderr`` and ``sys.stderr`` is set to ``errors="backslashreplace"`` so a log
    line with CJK text cannot crash under a cp1252 locale.
    """
    saved_stdout, saved_stdin = sys.stdout, sys.stdin
    with suppress(OSError, ValueError):
        saved_stdout.flush()
    wire_out = _dup_private(1)
    wire_in = _dup_private(0)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    if isinstance(sys.stderr, io.TextIOWrapper):
        sys.stderr.reconfigure(errors="backslashreplace", line_buffering=True)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return StdioClaim(wire_in=wire_in, wire_out=wire_out, saved_stdout=saved_stdout, saved_stdin=saved_stdin)


def _frame(message: types.JSONRPCMessage) -> bytes:
    """One outgoing message as a UTF-8 line; lone surrogates become U+FFFD instead of failing."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except (ValueError, UnicodeError):  # pydantic's serialisation error is a ValueError
        logger.warning("outgoing message holds text that is not Unicode; sent with U+FFFD replacements")
        data = message.model_dump(mode="python", by_alias=True, exclude_unset=True)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
        return _SURROGATE.sub("\ufffd", text).encode("utf-8") + b"\n"


@dataclass(frozen=True, slots=True)
class _Oversize:
    """A stdin line longer than the message limit: only its ends are kept, for its ``id``."""

    head: bytes
    """The line's first :data:`~docmunch.serve._jsonrpc.ID_SCAN_BYTES` bytes."""
    tail: bytes
    """Its last bytes before the newline (at most as many)."""


class _Wire:
    """Line-framed byte I/O on the private descriptors.

    POSIX: both descriptors are switched to non-blocking mode and driven by the event loop
    (``anyio.wait_readable``/``wait_writable``), so a request costs no thread hop. Windows
    pipes cannot be polled, so there each read and write runs in a worker thread.
    """

    def __init__(self, claim: StdioClaim, max_line_bytes: int) -> None:
        self._max = max_line_bytes
        self._in_fd = claim.wire_in
        self._out_fd = claim.wire_out
        self._lock = anyio.Lock()
        self._buffer = bytearray()
        self._eof = False
        self._polled = sys.platform != "win32"
        if self._polled:
            try:
                os.set_blocking(self._in_fd, False)
                os.set_blocking(self._out_fd, False)
            except OSError:
                self._polled = False

    async def _fill(self) -> None:
        """Read more bytes into the buffer (sets ``_eof`` at end of input)."""
        while True:
            try:
                chunk = os.read(self._in_fd, 1 << 16)
            except BlockingIOError:
                await anyio.wait_readable(self._in_fd)
                continue
            except InterruptedError:
                continue
            break
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True

    async def _fill_threaded(self) -> None:
        chunk = await anyio.to_thread.run_sync(os.read, self._in_fd, 1 << 16, abandon_on_cancel=True)
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True

    async def read_line(self) -> bytes | _Oversize | None:
        """Next line including its newline; ``None`` at EOF; an :class:`_Oversize` (the line's
        two ends) for a line longer than the limit, which is dropped up to its newline."""
        fill = self._fill if self._polled else self._fill_threaded
        scanned = 0
        while True:
            newline = self._buffer.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(self._buffer[: newline + 1])
                del self._buffer[: newline + 1]
                if len(line) <= self._max:
                    return line
                return _Oversize(line[:ID_SCAN_BYTES], line[-ID_SCAN_BYTES:])
            if len(self._buffer) > self._max:  # drop the oversize line up to its newline
                head, tail = bytes(self._buffer[:ID_SCAN_BYTES]), bytes(self._buffer[-ID_SCAN_BYTES:])
                self._buffer.clear()
                while not self._eof:
                    await fill()
                    newline = self._buffer.find(b"\n")
                    if newline >= 0:
                        tail = (tail + self._buffer[:newline])[-ID_SCAN_BYTES:]
                        del self._buffer[: newline + 1]
                        return _Oversize(head, tail)
                    tail = (tail + self._buffer)[-ID_SCAN_BYTES:]
                    self._buffer.clear()
                return _Oversize(head, tail)
            if self._eof:
                if self._buffer:  # a last line without its newline still counts
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            scanned = len(self._buffer)
            await fill()

    async def _write_polled(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._out_fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._out_fd)
                continue
            except InterruptedError:
                continue
            view = view[written:]

    def _write_sync(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._out_fd, view) :]

    async def write_line(self, data: bytes) -> None:
        """Write one whole frame; frames never interleave."""
        async with self._lock:
            if self._polled:
                await self._write_polled(data)
            else:
                await anyio.to_thread.run_sync(self._write_sync, data)


@asynccontextmanager
async def stdio_transport(
    claim: StdioClaim,
    order: CallOrder | None = None,
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """Yield ``(read_stream, write_stream)`` for ``Server.run`` over the claimed descriptors.

    The read stream ends at stdin EOF, once the requests already read are answered (at most
    :data:`EOF_GRACE_S` later), which ends the server loop. ``order`` (the server's
    :class:`CallOrder`) is told of each request as it is read and of each reply as it is sent.
    """
    limit, max_depth = max_message_bytes(), json_max_depth()
    wire = _Wire(claim, limit + 2)  # the line ending (CRLF at most) does not count
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)
    # Requests read but not yet answered: at stdin EOF the read stream stays open until they are
    # answered (or EOF_GRACE_S passes), because the server loop cancels in-flight handlers when
    # its input ends; a client that pipes requests and closes stdin still gets every reply.
    pending: set[Any] = set()
    answered = anyio.Event()

    async def reader() -> None:
        nonlocal answered
        async with read_send:
            while True:
                try:
                    raw = await wire.read_line()
                except OSError as err:
                    logger.error("stdin read failed: %s", err)
                    return
                if raw is None:
                    logger.debug("stdin: EOF (%d request(s) still being answered)", len(pending))
                    with anyio.move_on_after(EOF_GRACE_S):
                        while pending:
                            await answered.wait()
                    return
                if isinstance(raw, _Oversize):
                    logger.warning("stdin: line longer than %d bytes discarded", limit)
                    await wire.write_line(too_large(None, limit, scan_id(raw.head, raw.tail)).to_line())
                    continue
                try:
                    parsed = decode_message(raw, limit=limit, max_depth=max_depth)
                except Exception:  # decode_message never raises by contract; keep serving if it does
                    logger.exception("stdin: could not check a line")
                    parsed = Rejection(INTERNAL_ERROR, "Internal error: the message could not be read")
                if isinstance(parsed, Rejection):
                    logger.warning("stdin: %s (answered with %d)", parsed.message, parsed.code)
                    await wire.write_line(parsed.to_line())
                elif parsed is not None:
                    if logger.isEnabledFor(logging.DEBUG):
                        logger.debug("<- %s", raw[:500].decode("utf-8", "replace").rstrip())
                    if isinstance(parsed, types.JSONRPCRequest):
                        pending.add(parsed.id)
                        if order is not None:
                            order.admit(parsed.id, parsed.method, parsed.params)
                    elif isinstance(parsed, types.JSONRPCNotification) and parsed.method == _CANCELLED:
                        # a cancelled request is never answered (the SDK drops its reply, as the
                        # specification asks): EOF must not wait for it
                        cancelled = (parsed.params or {}).get("requestId")
                        if cancelled in pending:
                            pending.discard(cancelled)
                            answered.set()
                            answered = anyio.Event()
                    await read_send.send(SessionMessage(parsed))

    writer_done = anyio.Event()

    async def writer() -> None:
        try:
            await _drain(write_recv)
        finally:
            writer_done.set()

    async def _drain(write_recv: MemoryObjectReceiveStream[SessionMessage]) -> None:
        nonlocal answered
        async with write_recv:
            async for session_message in write_recv:
                message = session_message.message
                data = _frame(message)
                if logger.isEnabledFor(logging.DEBUG):
                    logger.debug("-> %s", data[:500].decode("utf-8", "replace").rstrip())
                try:
                    await wire.write_line(data)
                except OSError as err:  # client went away (EPIPE)
                    logger.info("stdout write failed (%s); stopping", err)
                    return
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    if order is not None:
                        order.finish(message.id)
                    if message.id in pending:
                        pending.discard(message.id)
                        answered.set()
                        answered = anyio.Event()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_recv, write_send
        finally:
            # The server closes write_send when its loop ends; let queued replies reach the wire.
            write_send.close()
            with anyio.move_on_after(5):
                await writer_done.wait()
            tg.cancel_scope.cancel()
