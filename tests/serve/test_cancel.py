"""A cancelled index call stops, over a real stdio MCP session.

The SDK's client sends ``notifications/cancelled`` when the caller gives up on a call; the server
used to run the index to its end anyway (a new user's trial: a cancelled ``index_local`` of
k8s-en wrote all 1,434 documents, 6.9 s, and a crawl of 500 pages could not be stopped). Now the
run stops between two files: what was committed stays, the run counts as interrupted, and the
next ``index_local`` completes the repo and says so.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.serve.conftest import (
    INIT,
    INITIALIZED,
    REPO_ROOT,
    SERVE_CMD,
    connect,
    free_port,
    line,
    server_env,
    start_serve,
    stop_serve,
    text_of,
    wait_for_port,
)

pytestmark = pytest.mark.timeout(240)


@asynccontextmanager
async def _http_client(home: Path) -> AsyncIterator[Client]:
    port = free_port()
    proc = start_serve(["--http", f"127.0.0.1:{port}"], server_env(home))
    try:
        wait_for_port(port, proc)
        async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp"), mode="legacy") as client:
            yield client
    finally:
        stop_serve(proc)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cancelled_index_local_stops_and_the_next_run_completes_the_repo(
    fixtures_dir: Path, tmp_path: Path, transport: str
) -> None:
    corpus = fixtures_dir / "corpora" / "k8s-en"
    files = sum(1 for p in corpus.rglob("*.md"))
    opened = connect(tmp_path / "home") if transport == "stdio" else _http_client(tmp_path / "home")

    async def scenario() -> tuple[int, dict[str, Any], int]:
        async with opened as client:
            started = anyio.Event()

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                started.set()

            with anyio.CancelScope() as scope:

                async def give_up() -> None:
                    await started.wait()  # the run is under way: the caller gives up
                    scope.cancel()

                async with anyio.create_task_group() as tg:
                    tg.start_soon(give_up)
                    await client.call_tool(
                        "index_local", {"path": str(corpus), "name": "k8s"}, progress_callback=on_progress
                    )
            assert scope.cancelled_caught
            # a read of the repo waits for the stopped run's turn, then sees what it committed
            listed = await client.call_tool("list_repos", {})
            assert not listed.is_error, text_of(listed)
            repos = {r["repo"]: r for r in listed.structured_content["repos"]}
            stopped_at = int(repos["k8s"]["docs"]) if "k8s" in repos else 0
            again = await client.call_tool("index_local", {"path": str(corpus), "name": "k8s"})
            assert not again.is_error, text_of(again)
            listed = await client.call_tool("list_repos", {})
            repos = {r["repo"]: r for r in listed.structured_content["repos"]}
            return stopped_at, again.structured_content, int(repos["k8s"]["docs"])

    stopped_at, report, docs = anyio.run(scenario)
    assert stopped_at < files  # the cancelled run did not index the whole folder
    assert report.get("interrupted_run") is not None  # and the next run says it completes one
    assert docs == report["docs_indexed"] + report["docs_unchanged"] and docs >= files - 5


def test_stdin_closed_after_a_cancel_ends_the_server_at_once(fixtures_dir: Path, tmp_path: Path) -> None:
    """A cancelled request is never answered; the server used to wait for its answer at stdin EOF
    (120 s of grace for requests still running) before it exited (a new user's trial)."""
    call = {
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "index_local",
            "arguments": {"path": str(fixtures_dir / "corpora" / "k8s-en"), "name": "k8s"},
            "_meta": {"progressToken": "p7"},
        },
    }  # fmt: skip
    proc = subprocess.Popen(
        SERVE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=server_env(tmp_path / "home"), cwd=REPO_ROOT,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(line(INIT) + line(INITIALIZED) + line(call))
        proc.stdin.flush()
        while True:  # the run is under way once a progress notification comes
            message = json.loads(proc.stdout.readline())
            if message.get("method") == "notifications/progress":
                break
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        proc.stdin.write(line(cancel))
        proc.stdin.close()
        started = time.monotonic()
        proc.wait(timeout=60)
        assert time.monotonic() - started < 30
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
