"""The Readability.js oracle in real Chromium: starts, stays offline, resolves links, caches."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle.pages import load_pages
from oracle.runner import DOCUMENT_URL, OracleRunner, oracle_version, readability_version, run_oracle
from oracle.selfcheck import EXCEPTIONS, THRESHOLD, failing_pages, similarities

pytestmark = pytest.mark.browser

ARTICLE = (
    "<html><head><title>Test page title</title><script>document.title = 'changed'</script></head><body>"
    "<nav><a href='/home'>Home</a></nav><article><h1>Test page title</h1>"
    + "".join(
        f"<p>Paragraph {i} of a real enough article, with commas, sentences and a "
        f"<a href='rel/link{i}.html'>relative link</a> so Readability keeps it.</p>"
        for i in range(8)
    )
    + "<img src='http://127.0.0.1:{port}/pixel.png'></article></body></html>"
)


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012 - shared across handler instances on purpose

    def do_GET(self) -> None:
        _Recorder.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[int]:
    _Recorder.hits = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_browser_starts_and_evaluates() -> None:
    with OracleRunner() as runner:
        assert runner.evaluate("1+1") == 2
        assert runner.evaluate("location.href") == DOCUMENT_URL
        assert runner.evaluate("typeof Readability") == "function"
    assert readability_version() == "0.6.0"


def test_extract_is_offline_and_resolves_relative_links(local_server: int) -> None:
    html = ARTICLE.replace("{port}", str(local_server))
    with OracleRunner() as runner:
        result = runner.extract(html.encode())
        # even a fetch issued from the page itself to a live local server never leaves the browser
        blocked = runner.evaluate(
            f"() => fetch('http://127.0.0.1:{local_server}/probe').then(() => 'ok', () => 'blocked')"
        )
    assert blocked == "blocked"
    assert _Recorder.hits == []
    assert result.ok
    assert result.title == "Test page title"
    assert 'href="http://fakehost/test/rel/link0.html"' in result.content
    assert "Paragraph 7" in result.text_content
    assert result.length == len(result.text_content)


def test_readability_null_result_is_not_ok() -> None:
    with OracleRunner() as runner:
        result = runner.extract(b"<html><body></body></html>")
    assert not result.ok
    assert result.content == ""


def test_cache_skips_the_browser_until_refresh(tmp_path: Path) -> None:
    pages = [("a", ARTICLE.replace("{port}", "9").encode())]
    first, stats1 = run_oracle(pages, cache_dir=tmp_path)
    second, stats2 = run_oracle(pages, cache_dir=tmp_path)
    third, stats3 = run_oracle(pages, cache_dir=tmp_path, refresh=True)
    assert (stats1.computed, stats1.browser_started) == (1, True)
    assert (stats2.cached, stats2.computed, stats2.browser_started) == (1, 0, False)
    assert stats3.browser_started
    assert first["a"].content == second["a"].content == third["a"].content
    assert len(list((tmp_path / oracle_version()).glob("*.json"))) == 1


def test_self_check_exceptions_are_exactly_the_failing_dev_pages() -> None:
    pages = [p for p in load_pages("wide") if p.kind == "readability"]
    results, _ = run_oracle([(p.name, p.source()) for p in pages])
    scores = similarities(pages, results)
    assert len(scores) == 60
    assert set(failing_pages(pages, results)) == set(EXCEPTIONS)
    assert all(score >= THRESHOLD for name, score in scores.items() if name not in EXCEPTIONS)
