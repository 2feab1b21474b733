"""Helpers for the MCP server tests: the serve command, raw JSON-RPC over pipes, free ports."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
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
async def connect(
    home: Path, mode: str = "legacy", *, serve_args: tuple[str, ...] = (), **env: str
) -> AsyncIterator[Client]:
    """The SDK's stdio client connected to a fresh ``docmunch serve [serve_args]`` over ``home``."""
    params = StdioServerParameters(
        command=SERVE_CMD[0],
        args=[*SERVE_CMD[1:], *serve_args],
        env=server_env(home, **env),
        cwd=str(REPO_ROOT),
    )
    async with Client(params, mode=mode) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a tool result, joined."""
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def meta_of(result: types.CallToolResult) -> dict[str, Any]:
    """The ``_meta`` object of a tool result (fails the test when the server sent none)."""
    assert result.meta is not None, f"tool result without _meta: {text_of(result)[:300]}"
    return result.meta


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """Wait until ``proc`` listens on 127.0.0.1:``port`` (fails the test if it exits first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited early: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"server did not listen on {port}")


def start_serve(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A ``docmunch serve ARGS`` process (stdin closed, stdout/stderr piped)."""
    return subprocess.Popen(
        [*SERVE_CMD, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO_ROOT,
    )


def stop_serve(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Terminate a server started by :func:`start_serve`; its (stdout, stderr)."""
    proc.terminate()
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return out, err


@pytest.fixture
def loopback_server(tmp_path: Path) -> Iterator[str]:
    """URL of the MCP endpoint of a real ``serve --http 127.0.0.1:PORT`` process."""
    port = free_port()
    proc = start_serve(["--http", f"127.0.0.1:{port}"], server_env(tmp_path / "home"))
    wait_for_port(port, proc)
    yield f"http://127.0.0.1:{port}/mcp"
    out, _ = stop_serve(proc)
    assert out == b""  # HTTP mode writes nothing to stdout either
