"""A long-lived ``docmunch serve`` process driven line by line, for hostile and fuzz tests.

:class:`StdioSession` writes raw bytes to the server's stdin and reads its stdout on a thread;
every stdout line is checked to be a JSON-RPC 2.0 message (the test fails on anything else),
and :meth:`StdioSession.ping` proves the server still answers, returning what it wrote before.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from tests.serve.conftest import INIT, INITIALIZED, REPO_ROOT, SERVE_CMD, line, server_env

REPLY_TIMEOUT_S = 60.0
"""Longest wait for one answer (generous: the machine is shared); a hang fails the test."""


def protocol_message(raw: bytes) -> dict[str, Any]:
    """``raw`` (one stdout line) as a JSON-RPC 2.0 message; fails the test for anything else."""
    try:
        msg = json.loads(raw.decode("utf-8"))
    except ValueError:
        pytest.fail(f"non-protocol line on stdout: {raw[:300]!r}")
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        pytest.fail(f"not a JSON-RPC 2.0 message on stdout: {raw[:300]!r}")
    is_reply = "id" in msg and (("result" in msg) != ("error" in msg))
    if not (is_reply or isinstance(msg.get("method"), str)):
        pytest.fail(f"neither a reply nor a request/notification: {raw[:300]!r}")
    if "error" in msg:
        assert isinstance(msg["error"].get("code"), int) and isinstance(msg["error"].get("message"), str)
    return msg


class StdioSession:
    """One initialized server process; use as a context manager (closes stdin, checks exit 0)."""

    def __init__(self, home: Path, **env: str) -> None:
        self._errfile: IO[bytes] = (home.parent / f"{home.name}-stderr.log").open("w+b")
        self.proc = subprocess.Popen(
            SERVE_CMD,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errfile,
            env=server_env(home, **env),
            cwd=REPO_ROOT,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._ids = itertools.count()
        self.raw_lines: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.send(line(INIT))
        self.expect_reply(INIT["id"])
        self.send(line(INITIALIZED))

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._lines.put(raw)
        self._lines.put(None)

    def send(self, data: bytes) -> None:
        """Write raw bytes to the server's stdin (no framing added)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_message(self) -> dict[str, Any]:
        """The next stdout line, checked and parsed; fails on EOF or after :data:`REPLY_TIMEOUT_S`."""
        try:
            raw = self._lines.get(timeout=REPLY_TIMEOUT_S)
        except queue.Empty:
            pytest.fail(f"no answer within {REPLY_TIMEOUT_S} s; stderr: {self.stderr()[-2000:]}")
        if raw is None:
            pytest.fail(f"server closed stdout (exit {self.proc.wait()}); stderr: {self.stderr()[-2000:]}")
        self.raw_lines.append(raw)
        return protocol_message(raw)

    def expect_reply(self, request_id: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read until the reply to ``request_id``: (that reply, every message before it)."""
        before: list[dict[str, Any]] = []
        while True:
            msg = self.next_message()
            if "method" not in msg and msg.get("id") == request_id:
                return msg, before
            before.append(msg)

    def ping(self) -> list[dict[str, Any]]:
        """Send a ping and wait for its answer; returns the messages that came before it."""
        request_id = f"ping-{next(self._ids)}"
        self.send(line({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
        reply, before = self.expect_reply(request_id)
        assert reply["result"] == {}
        return before

    def call(self, request_id: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A ``tools/call`` and its reply."""
        params = {"name": tool, "arguments": arguments}
        self.send(line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}))
        return self.expect_reply(request_id)[0]

    def stderr(self) -> str:
        self._errfile.flush()
        self._errfile.seek(0)
        return self._errfile.read().decode("utf-8", "replace")

    def close(self) -> int:
        """Close stdin; the exit status once the server has ended (every stdout line is checked)."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        while (raw := self._lines.get(timeout=REPLY_TIMEOUT_S)) is not None:
            self.raw_lines.append(raw)
            protocol_message(raw)
        return self.proc.wait(timeout=REPLY_TIMEOUT_S)

    def __enter__(self) -> StdioSession:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                assert self.close() == 0, self.stderr()[-2000:]
                assert "Traceback" not in self.stderr(), self.stderr()[-4000:]
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._errfile.close()
