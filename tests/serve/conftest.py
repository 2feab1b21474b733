"""Helpers for the MCP server tests: the serve command, raw JSON-RPC over pipes, free ports."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parents[2]

SERVE_CMD = [sys.executable, "-m", "docmunch", "serve"]
"""How the tests start the server: exactly what a host runs (via ``python -m docmunch``)."""

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-pipe-test", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for a server subprocess with its own ``DOCMUNCH_HOME``."""
    env = dict(os.environ)
    env["DOCMUNCH_HOME"] = str(home)
    env.pop("DOCMUNCH_TOKEN", None)
    env.update(extra)
    return env


def line(obj: Any) -> bytes:
    """One JSON-RPC frame as a UTF-8 line."""
    return json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"


def run_raw(
    frames: list[bytes], env: dict[str, str], *, timeout: float = 60
) -> tuple[list[dict[str, Any]], str]:
    """Send raw ``frames`` to a fresh ``serve`` process; close stdin once every request is answered.

    Requests run concurrently, so the exchange ends when every well-formed request among the
    frames (and the ``ping`` with id ``"final"``) has its answer. Returns (every stdout line
    parsed as JSON — a non-JSON line fails the test, stderr text).
    """
    waiting: set[Any] = {"final"}
    for frame in frames:
        try:
            obj = json.loads(frame.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(obj, dict) and "method" in obj and obj.get("id") is not None:
            waiting.add(obj["id"])
    proc = subprocess.Popen(
        SERVE_CMD,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO_ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    messages: list[dict[str, Any]] = []
    try:
        proc.stdin.write(b"".join(frames))
        proc.stdin.flush()
        while True:
            raw = proc.stdout.readline()
            if not raw:
                break
            try:
                msg = json.loads(raw.decode("utf-8"))
            except ValueError:
                pytest.fail(f"non-JSON line on stdout: {raw[:300]!r}")
            messages.append(msg)
            if "method" not in msg:
                waiting.discard(msg.get("id"))
            if not waiting:
                break
        proc.stdin.close()
        rest = proc.stdout.read()
        for raw in rest.splitlines():
            messages.append(json.loads(raw.decode("utf-8")))
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    proc.stdout.close()
    return messages, stderr


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def connect(home: Path, mode: str = "legacy", **env: str) -> AsyncIterator[Client]:
    """The SDK's stdio client connected to a fresh ``docmunch serve`` over ``home``."""
    params = StdioServerParameters(
        command=SERVE_CMD[0], args=SERVE_CMD[1:], env=server_env(home, **env), cwd=str(REPO_ROOT)
    )
    async with Client(params, mode=mode) as client:
        yield client


def text_of(result: Any) -> str:
    """The text blocks of a tool result, joined."""
    return "".join(block.text for block in result.content if block.type == "text")
