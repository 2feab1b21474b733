"""The whole-fetch deadline holds whatever the server's pace (user trial: a page dripping 8 bytes
every 0.5 s kept ``docmunch index`` busy for over 300 s although the deadline is 120 s).

Servers are real threaded HTTP servers on 127.0.0.1; the deadline is lowered to 2 s through
``DOCMUNCH_FETCH_TOTAL_SECONDS`` so each test takes a few seconds. ``pytest-timeout`` turns a
regression (a hang) into a failure.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest

from docmunch.cli import main
from docmunch.errors import ConfigError, NetworkError
from docmunch.fetch import Fetcher
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from tests.crawl.routes import html

pytestmark = pytest.mark.timeout(60)

ENV = "DOCMUNCH_FETCH_TOTAL_SECONDS"
"""The whole-fetch deadline's setting (seconds)."""
DEADLINE = 2
"""Seconds: the whole-fetch deadline the tests set through the environment."""
SLACK = 6.0
"""Seconds a failing fetch may take past the deadline (slow CI machines) — far below a hang."""


class DripServer:
    """``/drip``: headers at once, then 8 bytes every 0.2 s for up to 10 minutes (never a silence
    long enough for the 30 s read timeout); ``/stall``: headers, 8 bytes, then silence for up to
    10 minutes; ``/headers``: the status line, then a header line every 0.2 s; ``/``: a page
    linking to ``/drip``, ``/p1`` and ``/p2``; ``/p1``, ``/p2``: pages."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner.serve(self)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        path = handler.path
        if path in ("/", "/p1", "/p2"):
            links = ["/drip", "/p1", "/p2"] if path == "/" else []
            body = html("Home" if path == "/" else f"Page {path}", links)
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        if path == "/headers":  # the status line, then one header line every 0.2 s
            try:
                handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
                handler.wfile.flush()
                for _ in range(3000):
                    if self.stop.wait(0.2):
                        return
                    handler.wfile.write(b"X-Slow: b\r\n")
                    handler.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            handler.close_connection = True
            return
        if path not in ("/drip", "/stall"):
            handler.send_error(404)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Connection", "close")  # no Content-Length: the body ends at close
        handler.close_connection = True
        handler.end_headers()
        try:
            handler.wfile.write(b"<p>")
            handler.wfile.flush()
            for _ in range(3000):  # 10 minutes at 0.2 s
                if self.stop.wait(0.2 if path == "/drip" else 600):
                    return
                handler.wfile.write(b"xxxxxxxx")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: what the tests want

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def drip_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[DripServer]:
    monkeypatch.setenv(ENV, str(DEADLINE))
    server = DripServer()
    yield server
    server.close()


def test_a_dripping_page_fails_at_the_whole_fetch_deadline(drip_server):
    url = drip_server.url("/drip")
    with Fetcher(allow_private=True, trust_env=False) as fetcher:
        started = time.monotonic()
        with pytest.raises(NetworkError) as info:
            fetcher.fetch(url)
        took = time.monotonic() - started
    assert DEADLINE - 0.1 <= took < DEADLINE + SLACK, took
    message = str(info.value)
    assert info.value.url == url and "\n" not in message
    assert message.startswith(f"timed out after {DEADLINE} s reading {url}")
    assert "DOCMUNCH_FETCH_TOTAL_SECONDS" in message


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/headers", "every read of the response head returns a header line, so no read times out"),
        ("/stall", "a silence longer than the time left, shorter than the 30 s read timeout"),
    ],
)
def test_a_slow_head_or_a_silence_fails_at_the_deadline(drip_server, path, why):
    """The deadline bounds the response head and a silence too, not only a dripping body (a
    second user trial: headers dripped a line at a time ran ``index`` past 60 s on a 5 s
    deadline)."""
    url = drip_server.url(path)
    with Fetcher(allow_private=True, trust_env=False, timeout=(10.0, 30.0)) as fetcher:
        started = time.monotonic()
        with pytest.raises(NetworkError, match=rf"timed out after {DEADLINE} s reading "):
            fetcher.fetch(url)
        took = time.monotonic() - started
    assert took < DEADLINE + SLACK, (why, took)


def test_an_explicit_total_timeout_wins_over_the_environment(drip_server):
    url = drip_server.url("/drip")
    with Fetcher(allow_private=True, trust_env=False, total_timeout=0.5) as fetcher:
        started = time.monotonic()
        with pytest.raises(NetworkError, match=r"timed out after 0\.5 s reading ") as info:
            fetcher.fetch(url)
        took = time.monotonic() - started
    assert took < 0.5 + SLACK, took
    assert "DOCMUNCH_FETCH_TOTAL_SECONDS" not in str(info.value)  # the variable would not change it


def test_cli_index_of_a_dripping_page_is_one_clear_line(drip_server, capsys, docmunch_home):
    url = drip_server.url("/drip")
    started = time.monotonic()
    code = main(["index", url, "--repo", "x", "--allow-private"])
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code != 0 and took < DEADLINE + SLACK, (code, took)
    assert "Traceback" not in err and "internal error" not in err, err
    assert f"timed out after {DEADLINE} s reading {url}" in err, err


def test_a_crawl_goes_on_past_a_dripping_page(drip_server, docmunch_home):
    fetcher = Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False)
    with fetcher, Index.open() as index:
        started = time.monotonic()
        report = crawl_site(index, drip_server.url("/"), repo="r", fetcher=fetcher, concurrency=1)
        took = time.monotonic() - started
    assert report.docs_indexed == 3  # the home page, /p1 and /p2
    assert [e.path for e in report.errors] == [drip_server.url("/drip")]
    assert "timed out after" in report.errors[0].error and "\n" not in report.errors[0].error
    assert took < DEADLINE + SLACK, took


def test_an_invalid_deadline_setting_is_a_config_error(monkeypatch):
    monkeypatch.setenv(ENV, "soon")
    fetcher = Fetcher(allow_private=True, trust_env=False)
    with fetcher, pytest.raises(ConfigError, match="DOCMUNCH_FETCH_TOTAL_SECONDS"):
        fetcher.fetch("http://127.0.0.1:9/")
