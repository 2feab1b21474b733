"""Results near the response ceiling read over streamable HTTP with the SDK's own client.

The ceiling bounds the whole message (the payload is sent twice: as the text block's JSON and as
``structuredContent``), so at the default 1 MiB every result fits in one server-sent event of the
MCP SDK's HTTP client, which refuses events over 1 MiB. A new user's trial: a 3 MB section failed
with "Server-sent event exceeded the 1048576 byte limit" on the first ``get_section``, when only
the payload was held to 1 MiB and the message was twice that.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from docmunch.index import Index
from tests.serve.conftest import free_port, server_env, start_serve, stop_serve, text_of, wait_for_port

pytestmark = pytest.mark.timeout(240)


def test_a_three_megabyte_section_reads_in_pieces_at_the_default_ceiling(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # JSON log lines: quotes, backslashes and newlines cost more once escaped, twice over
    lines = "".join(
        f'{{"level": "info", "path": "C:\\\\logs\\\\run-{i}.txt", "msg": "step {i} done — ✓"}}\n'
        for i in range(36_000)
    )
    (docs / "log.md").write_text(f"# Log\n\n```json\n{lines}```\n", encoding="utf-8")
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(docs, repo="log")
        section = index.toc("log", "log.md")[0]
        whole = index.get_section("log", section.id).content.encode("utf-8")
    assert len(whole) > 3_000_000

    port = free_port()
    proc = start_serve(["--http", f"127.0.0.1:{port}"], server_env(home))  # default ceiling
    try:
        wait_for_port(port, proc)

        async def scenario() -> list[dict[str, Any]]:
            pages: list[dict[str, Any]] = []
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp")  # replies as SSE events
            async with Client(transport, mode="legacy") as client:
                args: dict[str, Any] = {"section_id": section.id}
                while True:
                    result = await client.call_tool("get_section", args)
                    assert not result.is_error, text_of(result)
                    page = result.structured_content
                    assert page is not None and json.loads(text_of(result)) == page
                    pages.append(page)
                    if not page.get("truncated"):
                        return pages
                    args = {"section_id": section.id, "offset": page["next_offset"]}

        pages = anyio.run(scenario)
    finally:
        stop_serve(proc)
    joined = "".join(page["content"] for page in pages).encode("utf-8")
    assert joined == whole and hashlib.sha256(joined).hexdigest() == pages[0]["content_hash"]
    # each piece uses most of what the ceiling leaves it (about 1 MiB / 2 less the escapes)
    assert all(len(page["content"].encode("utf-8")) > 300_000 for page in pages[:-1])
