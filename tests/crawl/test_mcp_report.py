"""The MCP ``index_url`` result lists skipped URLs with their reasons (real server, real client)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.crawl.routes import page, redirect, serve, text
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(120)


def test_index_url_result_lists_skips_and_warnings(tmp_path: Path) -> None:
    server = serve(
        {
            "/robots.txt": text("User-agent: *\nDisallow: /private/\nSitemap: /missing-sitemap.xml\n"),
            "/": page("Home", ["/private/x", "/a", "/b", "/logo.svg"]),
            "/a": redirect("/b"),
            "/b": redirect("/a"),
        }
    )

    async def scenario() -> dict:
        async with connect(tmp_path / "home", DOCMUNCH_ALLOW_PRIVATE="1") as client:
            result = await client.call_tool("index_url", {"url": server.url("/"), "crawl": True})
            assert not result.is_error, text_of(result)
            return dict(result.structured_content)

    try:
        report = anyio.run(scenario)
    finally:
        server.close()
    assert report["repo"] == f"127.0.0.1:{server.port}"
    reasons = {s["path"]: s["reason"] for s in report["skipped"]}
    assert reasons[server.url("/private/x")] == "robots"
    assert reasons[server.url("/a")] == reasons[server.url("/b")] == "redirect-loop"
    assert reasons[server.url("/logo.svg")] == "asset"
    assert report["docs_skipped"] == len(report["skipped"])
    assert [w["path"] for w in report["warnings"]] == [server.url("/missing-sitemap.xml")]
