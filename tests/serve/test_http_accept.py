"""Streamable HTTP through raw HTTP against a real ``serve --http`` process: Accept, bodies, Host.

Every request goes over a real socket to ``docmunch serve --http 127.0.0.1:PORT`` (httpx, or a
raw socket where httpx cannot send the malformed request).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.serve.conftest import free_port, server_env, start_serve, stop_serve, wait_for_port

pytestmark = pytest.mark.timeout(120)

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "accept-test", "version": "0"},
    },
}
JSON_CT = {"Content-Type": "application/json"}
MCP = "/mcp"


def _sse_messages(text: str) -> list[dict[str, Any]]:
    """The JSON data of every SSE event in a response body."""
    messages = []
    for event in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
        if data:
            messages.append(json.loads(data))
    return messages


def _reply(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response carried by ``response``, whichever type it came in."""
    kind = response.headers["content-type"].split(";")[0]
    if kind == "application/json":
        return response.json()
    assert kind == "text/event-stream", kind
    replies = [m for m in _sse_messages(response.text) if "result" in m or "error" in m]
    assert len(replies) == 1, response.text
    return replies[0]


def _call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real ``serve --http`` process for the module (every test opens its own sessions)."""
    port = free_port()
    proc = start_serve(["--http", f"127.0.0.1:{port}"], server_env(tmp_path_factory.mktemp("home")))
    wait_for_port(port, proc)
    yield f"http://127.0.0.1:{port}/mcp"
    out, _ = stop_serve(proc)
    assert out == b""


@pytest.fixture
def http(server: str) -> Iterator[httpx.Client]:
    parts = urlsplit(server)
    with httpx.Client(base_url=f"{parts.scheme}://{parts.netloc}", timeout=30) as client:
        yield client


@pytest.mark.parametrize(
    ("accept", "status", "content_type"),
    [
        ("application/json, text/event-stream", 200, "text/event-stream"),
        ("application/json", 200, "application/json"),
        ("text/event-stream", 200, "text/event-stream"),
        ("*/*", 200, "text/event-stream"),
        (None, 200, "text/event-stream"),
        ("application/*", 200, "application/json"),
        ("text/*", 200, "text/event-stream"),
        ("application/json;q=0, text/event-stream", 200, "text/event-stream"),
        ("text/event-stream;q=0.1, application/json", 200, "application/json"),
        ("application/json; charset=utf-8", 200, "application/json"),
        ("text/html", 406, "text/plain"),
        ("application/json;q=0, text/event-stream;q=0", 406, "text/plain"),
        ("*/*;q=0", 406, "text/plain"),
    ],
)
def test_initialize_with_each_accept_value(
    http: httpx.Client, accept: str | None, status: int, content_type: str
) -> None:
    headers = dict(JSON_CT)
    if accept is not None:
        headers["Accept"] = accept
    response = http.post(MCP, json=INIT, headers=headers)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].split(";")[0] == content_type
    if status == 406:
        assert "application/json" in response.text and "text/event-stream" in response.text
        assert "mcp-session-id" not in response.headers
        return
    reply = _reply(response)
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "docmunch"
    assert response.headers["mcp-session-id"]


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"])
def test_a_whole_session_in_one_reply_type(http: httpx.Client, accept: str) -> None:
    headers = {**JSON_CT, "Accept": accept}
    init = http.post(MCP, json=INIT, headers=headers)
    session = {
        **headers,
        "Mcp-Session-Id": init.headers["mcp-session-id"],
        "MCP-Protocol-Version": "2025-06-18",
    }
    note = http.post(MCP, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    assert note.status_code == 202
    listed = http.post(MCP, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session)
    assert listed.headers["content-type"].split(";")[0] == accept
    assert len(_reply(listed)["result"]["tools"]) == 15
    called = http.post(MCP, json=_call(3, "list_repos", {}), headers=session)
    assert called.headers["content-type"].split(";")[0] == accept
    result = _reply(called)["result"]
    assert result["structuredContent"]["repos"] == [] and "latency_ms" in result["_meta"]
    error = _reply(http.post(MCP, json=_call(4, "get_section", {}), headers=session))["result"]
    assert error["isError"] is True and "section_id" in error["content"][0]["text"]


def test_get_stream_needs_event_stream(http: httpx.Client) -> None:
    init = http.post(MCP, json=INIT, headers={**JSON_CT, "Accept": "application/json"})
    session = {"Mcp-Session-Id": init.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-06-18"}
    refused = http.get(MCP, headers={**session, "Accept": "application/json"})
    assert refused.status_code == 406 and "text/event-stream" in refused.text
    refused = http.get(MCP, headers={**session, "Accept": "text/event-stream;q=0"})
    assert refused.status_code == 406
    with http.stream("GET", MCP, headers={**session, "Accept": "text/*"}) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")


def _rewrite_accept(value: str) -> Any:
    async def hook(request: Any) -> None:
        request.headers["Accept"] = value

    return hook


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"])
def test_sdk_client_whose_requests_accept_one_type(server: str, mode: str, accept: str) -> None:
    """The official client in both protocol eras, every request rewritten to accept one type only."""
    seen: list[str] = []

    async def record(response: Any) -> None:
        if response.request.method == "POST" and response.status_code == 200:
            seen.append(response.headers["content-type"].split(";")[0])

    async def scenario() -> None:
        hooks = {"request": [_rewrite_accept(accept)], "response": [record]}
        async with httpx2.AsyncClient(event_hooks=hooks, timeout=30) as raw:
            transport = streamable_http_client(server, http_client=raw)
            async with Client(transport, mode=mode) as client:
                tools = await client.list_tools()
                assert len(tools.tools) == 15
                repos = await client.call_tool("list_repos", {})
                assert not repos.is_error and repos.structured_content["repos"] == []

    anyio.run(scenario)
    assert seen and set(seen) == {accept}


# --- request bodies ------------------------------------------------------------------------------


def _post_raw(http: httpx.Client, body: bytes, **headers: str) -> httpx.Response:
    return http.post(MCP, content=body, headers={**JSON_CT, "Accept": "application/json", **headers})


def test_hostile_bodies_are_answered_and_the_server_goes_on(http: httpx.Client) -> None:
    deep = _post_raw(http, b"[" * 100_000 + b"]" * 100_000)
    assert deep.status_code == 400 and deep.json()["error"]["code"] == -32700
    assert "nested deeper" in deep.json()["error"]["message"]
    surrogate = _post_raw(http, b'{"jsonrpc":"2.0","id":"\\ud800","method":"initialize","params":{}}')
    assert surrogate.status_code == 400
    assert surrogate.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": surrogate.json()["error"]["message"]},
    }
    bad_id = _post_raw(http, json.dumps({**INIT, "id": [1]}).encode())
    assert bad_id.status_code == 400 and bad_id.json()["error"]["code"] == -32600
    not_utf8 = _post_raw(http, b'{"jsonrpc":"2.0","id":1,"method":"\xff"}')
    assert not_utf8.status_code == 400 and not_utf8.json()["error"]["code"] == -32700
    empty = _post_raw(http, b"")
    assert empty.status_code == 400 and empty.json()["error"]["code"] == -32700

    def chunks() -> Iterator[bytes]:
        for _ in range(80):
            yield b" " * 65536  # 5 MiB in chunks, no Content-Length: refused while reading

    chunked = http.post(MCP, content=chunks(), headers={**JSON_CT, "Accept": "application/json"})
    assert chunked.status_code == 413
    assert "DOCMUNCH_MCP_MESSAGE_MAX_BYTES" in chunked.json()["error"]["message"]
    after = _post_raw(http, json.dumps(INIT).encode())
    assert after.status_code == 200 and after.json()["result"]["serverInfo"]["name"] == "docmunch"


def test_oversize_body_with_its_length_is_refused_before_reading(server: str) -> None:
    response = _raw_request(
        server, ["Host: 127.0.0.1", "Content-Type: application/json", f"Content-Length: {5 * 2**20}"]
    )
    assert response.startswith(b"HTTP/1.1 413"), response[:200]


# --- Host ----------------------------------------------------------------------------------------


def _raw_request(url: str, header_lines: list[str], body: bytes = b"") -> bytes:
    """Send one HTTP/1.1 POST with exactly ``header_lines``; the raw response (status line first)."""
    parts = urlsplit(url)
    request = "\r\n".join([f"POST {parts.path} HTTP/1.1", *header_lines, "Connection: close", "", ""])
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request.encode("latin-1") + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
            if b"\r\n\r\n" in received and not body:
                break
    return received


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:abc", "[::1", "localhost@evil.example", "127.0.0.1:99999", "127.0.0.1/x", "user@127.0.0.1"],
)
def test_malformed_host_is_a_bad_request(http: httpx.Client, host: str) -> None:
    response = http.post(MCP, json=INIT, headers={**JSON_CT, "Accept": "application/json", "Host": host})
    assert response.status_code == 400 and "malformed Host" in response.text


def test_missing_or_repeated_host_is_a_bad_request(server: str) -> None:
    body = json.dumps(INIT).encode()
    common = ["Content-Type: application/json", "Accept: application/json", f"Content-Length: {len(body)}"]
    twice = _raw_request(server, ["Host: 127.0.0.1", "Host: localhost", *common], body)
    assert twice.startswith(b"HTTP/1.1 400"), twice[:200]
    rebinding = _raw_request(server, ["Host: evil.example", *common], body)
    assert rebinding.startswith(b"HTTP/1.1 421"), rebinding[:200]
    good = _raw_request(server, ["Host: [::1]:1", *common], body)
    assert good.startswith(b"HTTP/1.1 200"), good[:200]
