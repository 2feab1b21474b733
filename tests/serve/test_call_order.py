"""Calls of one stdio session keep their per-repo order: a search sent right after an index sees it.

Driven by the official MCP client (``mcp`` SDK) and by raw frames written in one go, both against
a real ``docmunch serve`` process.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from docmunch.index import Index
from tests.serve.conftest import (
    INIT,
    INITIALIZED,
    REPO_ROOT,
    SERVE_CMD,
    line,
    run_raw,
    server_env,
    text_of,
)

pytestmark = pytest.mark.timeout(240)


def _call(request_id: Any, name: str, arguments: dict[str, Any]) -> bytes:
    params = {"name": name, "arguments": arguments}
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


@pytest.fixture
def corpus(fixtures_dir: Path) -> Path:
    return fixtures_dir / "corpora" / "rust-book"


@pytest.mark.parametrize(("mode", "named"), [("legacy", True), ("auto", False)])
def test_index_then_search_sent_back_to_back(tmp_path: Path, corpus: Path, mode: str, named: bool) -> None:
    """index_local and search_sections leave the client together; the search sees the new repo."""
    repo = "fresh" if named else corpus.name
    errlog = tmp_path / "stderr.log"
    params = StdioServerParameters(
        command=SERVE_CMD[0],
        args=SERVE_CMD[1:],
        env=server_env(tmp_path / "home", DOCMUNCH_LOG="debug"),
        cwd=str(REPO_ROOT),
    )
    results: dict[str, Any] = {}

    async def scenario() -> None:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err), mode=mode) as client:

                async def index() -> None:
                    args = {"path": str(corpus), **({"name": repo} if named else {})}
                    results["index"] = await client.call_tool("index_local", args)

                async def search() -> None:
                    results["search"] = await client.call_tool(
                        "search_sections", {"repo": repo, "query": "ownership borrowing"}
                    )

                async def outline() -> None:
                    results["docs"] = await client.call_tool("list_docs", {"repo": repo})

                async with anyio.create_task_group() as tg:  # started in this order, none awaited
                    tg.start_soon(index)
                    tg.start_soon(search)
                    tg.start_soon(outline)

    anyio.run(scenario)
    log = errlog.read_text("utf-8", "replace")
    arrivals = re.findall(r'<- .*"name":"(index_local|search_sections|list_docs)"', log)
    assert arrivals[:1] == ["index_local"], arrivals  # the index call really was read first
    assert not results["index"].is_error, text_of(results["index"])
    assert results["index"].structured_content["repo"] == repo
    assert not results["search"].is_error, text_of(results["search"])
    hits = results["search"].structured_content["results"]
    assert hits and all(h["doc_path"].endswith(".md") for h in hits)
    assert results["docs"].structured_content["total"] == results["index"].structured_content["docs_indexed"]


def test_raw_frames_in_one_write_keep_their_order(tmp_path: Path, corpus: Path) -> None:
    frames = [
        line(INIT),
        line(INITIALIZED),
        _call(10, "index_local", {"path": str(corpus), "name": "book"}),
        _call(11, "search_sections", {"repo": "book", "query": "ownership"}),
        _call(12, "list_repos", {}),
        _call(13, "delete_index", {"repo": "book"}),
        _call(14, "get_toc", {"repo": "book"}),
        line({"jsonrpc": "2.0", "id": "final", "method": "ping"}),
    ]
    messages, _ = run_raw(frames, server_env(tmp_path / "home"))
    answers = {m["id"]: m for m in messages if "id" in m and "method" not in m}
    assert answers[10]["result"]["structuredContent"]["repo"] == "book"
    assert answers[11]["result"]["structuredContent"]["results"]
    assert [r["repo"] for r in answers[12]["result"]["structuredContent"]["repos"]] == ["book"]
    assert answers[13]["result"]["structuredContent"]["deleted"] is True
    assert answers[14]["result"]["isError"] is True  # read after the delete: the repo is gone
    assert "book" in answers[14]["result"]["content"][0]["text"]


@pytest.fixture
def two_repos(tmp_path: Path, corpus: Path) -> Path:
    """A home where repo ``other`` is indexed already (rust-book is indexed later, over MCP)."""
    home = tmp_path / "home"
    other = tmp_path / "other"
    other.mkdir()
    notes = "# Notes\n\nThe lighthouse keeper logs every ship.\n\n## Ships\n\nMany.\n"
    (other / "notes.md").write_text(notes)
    with Index.open(home) as index:
        index.index_path(other, repo="other")
    return home


def test_reads_of_other_repos_do_not_wait_for_an_index_run(two_repos: Path, corpus: Path) -> None:
    order: list[str] = []

    async def scenario() -> None:
        params = StdioServerParameters(
            command=SERVE_CMD[0], args=SERVE_CMD[1:], env=server_env(two_repos), cwd=str(REPO_ROOT)
        )
        async with Client(params) as client:
            started = anyio.Event()

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                started.set()

            async def index() -> None:
                report = await client.call_tool(
                    "index_local", {"path": str(corpus), "name": "book"}, progress_callback=on_progress
                )
                assert not report.is_error, text_of(report)
                order.append("index")

            async def read_book() -> None:
                found = await client.call_tool("search_sections", {"repo": "book", "query": "ownership"})
                assert found.structured_content["results"], text_of(found)
                order.append("read book")

            async with anyio.create_task_group() as tg:
                tg.start_soon(index)
                await started.wait()  # the index run is under way
                tg.start_soon(read_book)  # arrives after the write of book: must wait for it
                found = await client.call_tool("search_sections", {"repo": "other", "query": "lighthouse"})
                assert found.structured_content["results"][0]["title"] == "Notes"
                order.append("read other")
                toc = await client.call_tool("get_toc", {"repo": "other"})
                assert not toc.is_error
                order.append("toc other")
                sid = toc.structured_content["sections"][0]["id"]
                section = await client.call_tool("get_section", {"section_id": sid})  # no repo
                assert not section.is_error, text_of(section)
                order.append("section other")

    anyio.run(scenario)
    assert order.index("read other") < order.index("index") < order.index("read book")
    assert order.index("toc other") < order.index("index")
    assert order.index("section other") < order.index("index")  # its id names its repo
