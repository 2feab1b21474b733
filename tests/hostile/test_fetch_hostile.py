"""Hostile servers and URLs against the fetcher, the crawl and the CLI (issue 12, items 6 and 7).

Every exception of the HTTP stack must arrive as a :class:`docmunch.errors.FetchError`
subclass: the CLI prints one clear line (never "internal error", never a traceback), a crawl
records the page and goes on. Servers are real sockets on 127.0.0.1; the unresolvable name is
a real ``.invalid`` name (RFC 6761: never resolves).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from docmunch.cli import main
from docmunch.errors import BlockedAddress, FetchError, InvalidURL, NetworkError, RedirectError
from docmunch.fetch import Fetcher
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from tests.crawl.routes import page, redirect, serve

pytestmark = pytest.mark.timeout(120)

ODD_LOCATIONS = [
    "mailto:someone@example.org",
    "data:text/html,<p>hi</p>",
    "javascript:alert(1)",
    "http:\\\\x",
    "https:",
    "http://",
    "http:",
    "http://[x",
    "http://x.invalid:99999/",
    "http://xn--/",
    "//",
    "file:///etc/passwd",
    "http://\u00e9\u00e9\u00e9.invalid:1/",
    "x" * 9000,
]


def one_line_error(err: str) -> None:
    assert err.count("\n") == 1 and err.startswith("docmunch: "), err
    assert "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("location", ODD_LOCATIONS)
def test_extract_with_an_odd_redirect_location_is_one_clear_line(location, capsys, docmunch_home):
    server = serve({"/start": redirect(location)})
    try:
        code = main(["extract", server.url("/start"), "--allow-private"])
    finally:
        server.close()
    _out, err = capsys.readouterr()
    assert code == 1
    one_line_error(err)


@pytest.mark.parametrize("location", ["mailto:x@y", "data:,x", "http:\\\\x", "https:", "http://[x"])
def test_fetcher_maps_odd_locations_to_fetch_errors(location):
    server = serve({"/start": redirect(location)})
    with Fetcher(allow_private=True, retries=0, trust_env=False) as fetcher:
        try:
            with pytest.raises(FetchError) as info:
                fetcher.fetch(server.url("/start"))
        finally:
            server.close()
    assert info.value.url is not None
    if location in ("https:", "http://[x"):
        assert isinstance(info.value, RedirectError) and location in str(info.value)
    if location.startswith(("mailto:", "data:")):
        assert isinstance(info.value, BlockedAddress) and info.value.reason == "scheme"


def test_a_crawl_goes_past_pages_redirecting_to_odd_locations(docmunch_home):
    good = [f"/p{i}" for i in range(4)]
    bad = {"/m": "mailto:x@y", "/d": "data:,x", "/h": "https:"}
    routes = {"/": page("Home", [*good[:2], *bad, *good[2:]])}
    routes.update({p: page(f"Page {p}") for p in good})
    routes.update({p: redirect(loc) for p, loc in bad.items()})
    server = serve(routes)
    with Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False) as fetcher:
        try:
            with Index.open() as index:
                report = crawl_site(index, server.url("/"), repo="r", fetcher=fetcher, concurrency=1)
        finally:
            server.close()
    assert report.docs_indexed == 5  # the home page and all four good pages, in order around the bad
    assert {e.path for e in report.errors} == {server.url(p) for p in bad}
    assert all("\n" not in e.error and "redirects to" in e.error for e in report.errors)


# --- servers that speak broken HTTP -------------------------------------------------------------------


@pytest.fixture
def raw_server() -> Iterator[Callable[[bytes], str]]:
    """``start(reply) -> base URL`` of a TCP server that answers every connection with ``reply``
    (after reading the request) and closes it."""
    sockets: list[socket.socket] = []

    def start(reply: bytes) -> str:
        listener = socket.create_server(("127.0.0.1", 0))
        sockets.append(listener)

        def loop() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    try:
                        conn.recv(65536)
                        conn.sendall(reply)
                    except OSError:
                        pass

        threading.Thread(target=loop, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    for listener in sockets:
        listener.close()


BROKEN_REPLIES = {
    "garbage status line": b"SPAM AND EGGS\r\n\r\n",
    "no reply at all": b"",
    "bad header line": b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n<p>x</p>",
    "NUL in a header": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\x00\r\n\r\n<p>x</p>",
    "body shorter than Content-Length": (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 999\r\n\r\n<p>x"
    ),
    "broken chunked encoding": (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx"
    ),
    "two Content-Length values": (
        b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 5\r\nContent-Type: text/html\r\n\r\nabcde"
    ),
    "status 999": b"HTTP/1.1 999 Whatever\r\nContent-Length: 0\r\n\r\n",
    "redirect without Location": b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",
    "huge header": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n",
}


@pytest.mark.parametrize("reply", BROKEN_REPLIES.values(), ids=BROKEN_REPLIES.keys())
def test_broken_http_is_a_fetch_error(raw_server, reply, capsys, docmunch_home):
    base = raw_server(reply)
    fetcher = Fetcher(allow_private=True, retries=0, trust_env=False, timeout=(2.0, 2.0))
    with fetcher, pytest.raises(FetchError) as info:
        fetcher.fetch(base + "/page")
    assert info.value.url == base + "/page"
    code = main(["extract", base + "/page", "--allow-private"])
    assert code == 1
    one_line_error(capsys.readouterr().err)


def test_tls_to_a_plain_http_server_is_a_network_error(raw_server):
    base = raw_server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    fetcher = Fetcher(allow_private=True, retries=0, trust_env=False, timeout=(2.0, 2.0))
    with fetcher, pytest.raises(NetworkError, match=r"TLS|SSL|failed"):
        fetcher.fetch(base.replace("http://", "https://") + "/")


@pytest.mark.parametrize(
    "url",
    [
        "http://xn--/",
        "http://[::zz]/",
        "http://x.invalid:99999/",
        "http://x.invalid:8o/",
        "http://1.2.3.999/",
        "https:///x",
    ],
)
def test_malformed_urls_are_invalid_url_errors(url, capsys, docmunch_home):
    with Fetcher(trust_env=False) as fetcher, pytest.raises(InvalidURL):
        fetcher.fetch(url)
    assert main(["extract", url]) == 1
    one_line_error(capsys.readouterr().err)


# --- proxies: a name that does not resolve here cannot be checked -------------------------------------


def _proxy_env(monkeypatch: pytest.MonkeyPatch, proxy_url: str) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy_url)


def test_behind_a_proxy_an_unresolvable_name_is_refused_before_the_proxy(monkeypatch):
    proxy = serve({})  # the loopback server plays the proxy: it would see the absolute URL
    target = "http://docmunch-test.invalid/docs/"
    proxy.routes[target] = page("Via proxy")
    _proxy_env(monkeypatch, proxy.url(""))
    try:
        guarded = Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=True, retries=0)
        with guarded, pytest.raises(BlockedAddress, match="does not resolve here") as info:
            guarded.fetch(target)
        refused_hits = list(proxy.hits)
        # With the guard lifted (an intranet whose names only the proxy knows) the proxy is used.
        with Fetcher(allow_private=True, trust_env=True, retries=0) as fetcher:
            result = fetcher.fetch(target)
    finally:
        proxy.close()
    assert info.value.reason == "unresolvable name behind a proxy"
    assert "DOCMUNCH_ALLOW_PRIVATE=1" in str(info.value)
    assert refused_hits == []
    assert "Via proxy" in result.text and [h.path for h in proxy.hits] == [target]


# --- source schemes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["ftp://example.org/docs", "ftp:docs", "file:///etc", "s3://bucket/docs"])
def test_unsupported_source_schemes_are_named(source, capsys, docmunch_home):
    for argv in (["index", source], ["extract", source]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        one_line_error(err)
        assert "unsupported source scheme" in err and "no such file" not in err


def test_url_schemes_are_case_insensitive(capsys, docmunch_home):
    server = serve({"/doc": page("Upper-case scheme")})
    url = server.url("/doc").replace("http://", "HTTP://")
    try:
        code = main(["index", url, "--allow-private", "--json", "--repo", "r"])
        report = json.loads(capsys.readouterr().out)
        extracted = main(["extract", url, "--allow-private"])
        out = capsys.readouterr().out
    finally:
        server.close()
    assert code == 0 and report["docs_indexed"] == 1
    assert extracted == 0 and "Upper-case scheme" in out
