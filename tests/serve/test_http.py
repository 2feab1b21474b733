"""Streamable HTTP: the SDK's HTTP client against a real ``serve --http`` process on 127.0.0.1."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.serve.conftest import (
    REPO_ROOT,
    SERVE_CMD,
    free_port,
    server_env,
    start_serve,
    stop_serve,
    wait_for_port,
)

pytestmark = pytest.mark.timeout(120)

INIT_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_http_client_lists_and_calls_tools(loopback_server: str, mode: str) -> None:
    async def scenario() -> None:
        async with Client(loopback_server, mode=mode) as client:
            assert client.instructions and "search_sections" in client.instructions
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} >= {"search_sections", "get_section", "index_local"}
            bad = await client.call_tool("get_section", {"repo": "x"})
            assert bad.is_error
            first = bad.content[0]
            assert isinstance(first, types.TextContent) and "section_id" in first.text
            assert bad.meta is not None and "latency_ms" in bad.meta

    anyio.run(scenario)


def test_foreign_origin_and_host_are_refused(loopback_server: str) -> None:
    with httpx.Client(timeout=10) as http:
        foreign = http.post(
            loopback_server, json=INIT_BODY, headers={**MCP_HEADERS, "Origin": "http://evil.example"}
        )
        assert foreign.status_code == 403
        rebinding = http.post(
            loopback_server, json=INIT_BODY, headers={**MCP_HEADERS, "Host": "evil.example:80"}
        )
        assert rebinding.status_code == 421
        local = http.post(
            loopback_server, json=INIT_BODY, headers={**MCP_HEADERS, "Origin": "http://localhost:6274"}
        )
        assert local.status_code == 200
        no_origin = http.post(loopback_server, json=INIT_BODY, headers=MCP_HEADERS)
        assert no_origin.status_code == 200


def test_non_loopback_bind_needs_allow_remote_and_token(tmp_path: Path) -> None:
    env = server_env(tmp_path / "home")
    plain = subprocess.run(
        [*SERVE_CMD, "--http", "0.0.0.0:0"], capture_output=True, env=env, timeout=60, cwd=REPO_ROOT
    )
    assert plain.returncode == 1
    assert b"--allow-remote" in plain.stderr
    no_token = subprocess.run(
        [*SERVE_CMD, "--http", "0.0.0.0:0", "--allow-remote"],
        capture_output=True,
        env=env,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert no_token.returncode == 1
    assert b"DOCMUNCH_TOKEN" in no_token.stderr
    assert no_token.stdout == b""


def test_remote_bind_with_token_requires_bearer(tmp_path: Path) -> None:
    port = free_port()
    token = "s3cret-token-for-tests"
    proc = start_serve(
        ["--http", f"0.0.0.0:{port}", "--allow-remote"], server_env(tmp_path / "home", DOCMUNCH_TOKEN=token)
    )
    try:
        wait_for_port(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx.Client(timeout=10) as http:
            assert http.post(url, json=INIT_BODY, headers=MCP_HEADERS).status_code == 401
            wrong = http.post(url, json=INIT_BODY, headers={**MCP_HEADERS, "Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            assert wrong.headers["www-authenticate"].startswith("Bearer")

        async def scenario() -> None:
            auth = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            async with auth, Client(streamable_http_client(url, http_client=auth), mode="legacy") as client:
                tools = await client.list_tools()
                assert len(tools.tools) == 15

        anyio.run(scenario)
    finally:
        stop_serve(proc)
