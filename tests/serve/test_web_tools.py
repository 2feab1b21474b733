"""index_url and extract_url through MCP against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from tests.serve.conftest import connect, meta_of, text_of

pytestmark = pytest.mark.timeout(120)

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Widget Guide — Example Docs</title></head>
<body>
<nav><a href="/">Home</a> <a href="/other">Other</a></nav>
<main><article>
<h1 id="widget-guide">Widget Guide</h1>
<p>Widgets are small reusable parts. This guide explains how to install and configure widgets
for production use, with enough detail that the main content is clearly the article.</p>
<h2 id="install">Installing widgets</h2>
<p>Run the installer with the <code>--frobnicate</code> flag to install the widget toolkit on
every node of the cluster. The installer verifies checksums before it writes anything.</p>
<h2 id="configure">Configuring widgets</h2>
<p>Widget configuration lives in <code>widget.toml</code>; the <code>colour</code> key picks the
theme and the <code>size</code> key the default dimensions of every new widget.</p>
</article></main>
<footer>Copyright Example Corp.</footer>
</body></html>
"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path not in ("/guide", "/guide/"):
            self.send_error(404)
            return
        body = PAGE.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ssrf_guard_holds_without_operator_opt_in(tmp_path: Path, site: str) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "home") as client:
            refused = await client.call_tool("extract_url", {"url": f"{site}/guide"})
            assert refused.is_error and "Traceback" not in text_of(refused)
            message = text_of(refused)
            # the hint names the server setting, not a CLI flag the agent cannot pass
            assert "DOCMUNCH_ALLOW_PRIVATE=1" in message and "docmunch serve --allow-private" in message
            assert "use --allow-private" not in message
            report = await client.call_tool("index_url", {"url": f"{site}/guide", "name": "w"})
            assert report.is_error or report.structured_content["errors"], text_of(report)
            assert "DOCMUNCH_ALLOW_PRIVATE=1" in text_of(report)

    anyio.run(scenario)


def test_serve_allow_private_lifts_the_guard(tmp_path: Path, site: str) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "home", serve_args=("--allow-private",)) as client:
            extracted = await client.call_tool("extract_url", {"url": f"{site}/guide"})
            assert not extracted.is_error, text_of(extracted)
            assert "Installing widgets" in extracted.structured_content["markdown"]

    anyio.run(scenario)


def test_extract_and_index_url(tmp_path: Path, site: str) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "home", DOCMUNCH_ALLOW_PRIVATE="1") as client:
            extracted = await client.call_tool("extract_url", {"url": f"{site}/guide"})
            assert not extracted.is_error, text_of(extracted)
            assert "Installing widgets" in extracted.structured_content["markdown"]
            assert "Copyright Example" not in extracted.structured_content["markdown"]

            report = await client.call_tool("index_url", {"url": f"{site}/guide", "name": "widgets"})
            assert not report.is_error, text_of(report)
            assert report.structured_content["repo"] == "widgets"
            found = await client.call_tool(
                "search_sections", {"repo": "widgets", "query": "frobnicate installer"}
            )
            hit = found.structured_content["results"][0]
            assert hit["title"] == "Installing widgets"
            read = await client.call_tool(
                "get_section", {"repo": "widgets", "section_id": hit["id"], "verify": True}
            )
            assert read.structured_content["verified"] is True
            assert "--frobnicate" in read.structured_content["content"]
            assert meta_of(read)["citation"]["locator"] is not None  # converted source: points into the page

    anyio.run(scenario)
