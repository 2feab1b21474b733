"""Fetcher against a real loopback server: redirects, limits, retries, conditional requests, types."""

from __future__ import annotations

import gzip
import threading
import tracemalloc
import zlib
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from functools import cache

import brotli
import pytest

import docmunch
from docmunch.errors import (
    BlockedAddress,
    DecodeError,
    FetchError,
    HTTPStatusError,
    NetworkError,
    RedirectError,
    RedirectLoop,
    TooLarge,
    UnsupportedContentType,
)
from docmunch.fetch import Fetcher, fetch_url, parse_retry_after

MiB = 2**20


@cache
def zeros_100mb(coding: str) -> bytes:
    data = b"\0" * (100 * MiB)
    if coding == "gzip":
        return gzip.compress(data, 9)
    if coding == "deflate":
        return zlib.compress(data, 9)
    return brotli.compress(data, quality=5)


# --- basics -------------------------------------------------------------------------------------


def test_plain_fetch_sends_user_agent_and_accept_encoding(server, fetcher):
    url = server.route("/page", server.Reply(headers={"Content-Type": "text/html", "ETag": '"v1"'}))
    result = fetcher.fetch(url)
    assert (result.status, result.kind, result.content_type, result.charset) == (
        200,
        "html",
        "text/html",
        "UTF-8",
    )
    assert result.text.startswith("<!doctype html>")
    assert result.etag == '"v1"' and result.headers["etag"] == '"v1"'
    assert result.remote_address == "127.0.0.1" and result.redirects == () and result.url == url
    seen = server.seen[0].headers
    assert seen["user-agent"] == f"docmunch/{docmunch.__version__}"
    assert seen["accept-encoding"] == "gzip, deflate, br"


def test_default_guard_refuses_loopback_without_traffic(server):
    server.route("/", server.Reply())
    for host in ("127.0.0.1", "localhost", "[::1]", "2130706433", "0x7f.1", "127.1"):
        with pytest.raises(BlockedAddress, match="use --allow-private"):
            fetch_url(server.url("/", host=host), trust_env=False, allow_private=None)
    assert server.seen == []


def test_allow_private_and_env_lift_the_guard(server, monkeypatch):
    url = server.route("/", server.Reply())
    assert fetch_url(url, allow_private=True, trust_env=False).status == 200
    monkeypatch.setenv("DOCMUNCH_ALLOW_PRIVATE", "1")
    assert fetch_url(server.url("/", host="localhost"), trust_env=False).status == 200
    monkeypatch.setenv("DOCMUNCH_ALLOW_PRIVATE", "0")
    with pytest.raises(BlockedAddress):
        fetch_url(url, trust_env=False)


# --- redirects ----------------------------------------------------------------------------------


def test_redirect_chain_is_followed_and_recorded(server, fetcher):
    server.route("/a", server.Reply(302, {"Location": "/b"}, b""))
    server.route("/b", server.Reply(301, {"Location": server.url("/c")}, b""))
    server.route("/c", server.Reply(307, {"Location": "d"}, b""))
    server.route("/d", server.Reply(body=b"<p>final"))
    result = fetcher.fetch(server.url("/a"))
    assert result.url == server.url("/d")
    assert result.redirects == (server.url("/a"), server.url("/b"), server.url("/c"))
    assert result.text == "<p>final"


def test_redirect_loop_is_named_and_each_url_requested_once(server, fetcher):
    server.route("/loop", server.Reply(302, {"Location": "/loop"}, b""))
    with pytest.raises(RedirectLoop, match=r"^redirect loop: /loop → /loop$"):
        fetcher.fetch(server.url("/loop"))
    assert server.paths() == ["/loop"]
    server.route("/a", server.Reply(302, {"Location": "/b"}, b""))
    server.route("/b", server.Reply(301, {"Location": "/a#frag"}, b""))
    with pytest.raises(RedirectLoop, match=r"^redirect loop: /a → /b → /a$") as info:
        fetcher.fetch(server.url("/a"))
    assert server.paths() == ["/loop", "/a", "/b"]
    assert info.value.chain == (server.url("/a"), server.url("/b"), server.url("/a"))


def test_long_redirect_chain_stops_after_five(server, fetcher):
    for n in range(7):
        server.route(f"/r{n}", server.Reply(302, {"Location": f"/r{n + 1}"}, b""))
    with pytest.raises(RedirectError, match=r"too many redirects \(more than 5\): /r0 → .* → /r6$"):
        fetcher.fetch(server.url("/r0"))
    assert len(server.seen) == 6  # the first request + 5 followed redirects


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://10.0.0.1/admin", "private address"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[::1]:{port}/", "loopback"),
        ("http://127.0.0.2:{port}/", "loopback"),
        ("http://0x7f.0.0.2:{port}/", "loopback"),
        ("http://localhost:{port}/", "loopback"),
        ("http://[::ffff:10.0.0.1]/", "IPv4-mapped"),
        ("http://[64:ff9b::a9fe:a9fe]/", "embedding 169.254.169.254"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://127.0.0.1:{port}/", "scheme"),
    ],
)
def test_redirect_hop_to_forbidden_address_is_refused_without_connecting(server, fetcher, location, reason):
    target = location.format(port=server.port)
    server.route("/start", server.Reply(302, {"Location": target}, b""))
    with pytest.raises(BlockedAddress, match=reason) as info:
        fetcher.fetch(server.url("/start"))
    assert info.value.url == target
    assert server.paths() == ["/start"]  # nothing else reached any server we run


# --- statuses and retries -----------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 500, 403])
def test_error_status_raises_with_code(server, fetcher, status):
    url = server.route("/x", server.Reply(status, body=b"nope"))
    with pytest.raises(HTTPStatusError, match=f"HTTP {status}") as info:
        fetcher.fetch(url)
    assert info.value.status_code == status and info.value.url == url


def test_429_retry_after_seconds_is_honoured(server):
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        threading.Event().wait(seconds)

    url = server.route("/r", server.Reply(429, {"Retry-After": "1"}, b""), server.Reply(body=b"<p>ok"))
    with Fetcher(allowed_networks=["127.0.0.1/32"], rate_per_host=None, trust_env=False, sleep=sleep) as f:
        result = f.fetch(url)
    assert result.text == "<p>ok" and waits == [1.0]
    first, second = server.seen
    assert second.at - first.at >= 0.95  # the server really saw the pause


def test_503_with_http_date_then_success(server, fetcher):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=1), usegmt=True)
    url = server.route("/r", server.Reply(503, {"Retry-After": when}, b""), server.Reply(body=b"<p>ok"))
    assert fetcher.fetch(url).text == "<p>ok"
    assert len(server.seen) == 2


def test_retries_are_bounded(server, fetcher):
    url = server.route("/busy", server.Reply(503, {}, b""))
    with pytest.raises(HTTPStatusError, match="gave up after 4 attempts") as info:
        fetcher.fetch(url)
    assert info.value.status_code == 503 and len(server.seen) == 4  # 1 + retries=3


def test_retry_after_beyond_cap_gives_up_at_once(server, fetcher):
    url = server.route("/slow-down", server.Reply(429, {"Retry-After": "3600"}, b""))
    with pytest.raises(HTTPStatusError, match="3600 s, more than the 60 s cap"):
        fetcher.fetch(url)
    assert len(server.seen) == 1


def test_parse_retry_after():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 31 Dec 2025 00:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


# --- conditional requests -----------------------------------------------------------------------


def test_304_with_etag_and_last_modified(server, fetcher):
    lm = "Wed, 21 Oct 2015 07:28:00 GMT"
    url = server.route(
        "/doc",
        server.Reply(headers={"Content-Type": "text/html", "ETag": '"abc"', "Last-Modified": lm}),
        server.Reply(304, {"ETag": '"abc"'}, b""),
    )
    first = fetcher.fetch(url)
    again = fetcher.fetch(url, etag=first.etag, last_modified=first.last_modified)
    assert again.not_modified and again.status == 304 and again.body == b"" and again.kind is None
    assert again.etag == '"abc"'
    assert server.seen[1].headers["if-none-match"] == '"abc"'
    assert server.seen[1].headers["if-modified-since"] == lm
    assert "if-none-match" not in server.seen[0].headers


# --- content types ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "kind"),
    [
        ("text/markdown; charset=utf-8", "markdown"),
        ("text/x-markdown", "markdown"),
        ("text/plain", "text"),
        ("application/xhtml+xml", "html"),
        ("TEXT/HTML; Charset=UTF-8", "html"),
    ],
)
def test_accepted_content_types(server, fetcher, content_type, kind):
    url = server.route("/f", server.Reply(headers={"Content-Type": content_type}, body=b"# Title\n"))
    result = fetcher.fetch(url)
    assert result.kind == kind and result.text == "# Title\n"


def test_pdf_is_unsupported_before_reading_the_body(server, fetcher):
    url = server.route("/f.pdf", server.Reply(headers={"Content-Type": "application/pdf"}, body=b"%PDF" * 10))
    with pytest.raises(UnsupportedContentType, match="application/pdf") as info:
        fetcher.fetch(url)
    assert info.value.content_type == "application/pdf" and info.value.url == url


@pytest.mark.parametrize(
    ("body", "kind"),
    [(b"  <!DOCTYPE html><title>x</title>", "html"), (b"<p>para</p>", "html"), (b"just words\n", "text")],
)
def test_missing_content_type_is_sniffed(server, fetcher, body, kind):
    url = server.route("/n", server.Reply(headers={}, body=body))
    result = fetcher.fetch(url)
    assert result.kind == kind and result.content_type == f"text/{'html' if kind == 'html' else 'plain'}"


def test_missing_content_type_binary_is_unsupported(server, fetcher):
    url = server.route("/n", server.Reply(headers={}, body=b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"))
    with pytest.raises(UnsupportedContentType, match="application/octet-stream"):
        fetcher.fetch(url)


# --- size caps, bombs, timeouts -------------------------------------------------------------------


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br"])
def test_compression_bomb_stops_at_cap_while_streaming(server, fetcher, coding):
    bomb = zeros_100mb(coding)
    assert len(bomb) < 200_000  # 100 MiB of zeros
    url = server.route(
        "/bomb",
        server.Reply(
            headers={"Content-Type": "text/html", "Content-Encoding": coding}, body=bomb, chunk=16 * 1024
        ),
    )
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match="10485760 byte limit") as info:
            fetcher.fetch(url)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.limit_bytes == 10 * MiB
    assert peak < 3 * 10 * MiB  # the body buffer (~cap) plus small pieces, never 100 MiB


def test_small_compressed_bodies_decode(server, fetcher):
    page = "<p>" + "données compressées " * 500
    for coding, data in (("gzip", gzip.compress(page.encode())), ("br", brotli.compress(page.encode()))):
        url = server.route(
            f"/{coding}",
            server.Reply(
                headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": coding}, body=data
            ),
        )
        assert fetcher.fetch(url).text == page


def test_unknown_or_corrupt_content_encoding_is_a_decode_error(server, fetcher):
    url = server.route("/z", server.Reply(headers={"Content-Type": "text/html", "Content-Encoding": "zstd"}))
    with pytest.raises(DecodeError, match="zstd"):
        fetcher.fetch(url)
    url = server.route(
        "/bad",
        server.Reply(
            headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}, body=b"not gzip at all"
        ),
    )
    with pytest.raises(DecodeError, match="invalid gzip"):
        fetcher.fetch(url)


def test_oversize_plain_body(server):
    body = b"<p>" + b"x" * 2000
    with Fetcher(allowed_networks=["127.0.0.1/32"], max_bytes=1000, trust_env=False) as f:
        url = server.route("/big", server.Reply(body=body))  # Content-Length tells up front
        with pytest.raises(TooLarge, match="1000 byte limit"):
            f.fetch(url)
        url = server.route("/big-stream", server.Reply(body=body, content_length=False))  # read until close
        with pytest.raises(TooLarge):
            f.fetch(url)
        url = server.route("/fits", server.Reply(body=body[:1000]))
        assert len(f.fetch(url).body) == 1000


def test_slow_server_read_timeout(server):
    url = server.route("/slow", server.Reply(delay=2.0))
    f = Fetcher(allowed_networks=["127.0.0.1/32"], timeout=(1.0, 0.3), trust_env=False)
    with f, pytest.raises(FetchError, match=r"timed out after 0\.3 s") as info:
        f.fetch(url)
    assert type(info.value) is NetworkError and info.value.url == url


def test_dripping_server_hits_total_timeout(server):
    url = server.route("/drip", server.Reply(body=b"<p>" + b"x" * 40, chunk=4, drip=0.1))
    f = Fetcher(allowed_networks=["127.0.0.1/32"], total_timeout=0.3, trust_env=False)
    with f, pytest.raises(FetchError, match=r"timed out after 0\.3 s reading"):
        f.fetch(url)


def test_connection_refused_is_a_fetch_error(fetcher):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connection refused
        with pytest.raises(FetchError, match="cannot connect"):
            fetcher.fetch(f"http://127.0.0.1:{port}/")


# --- politeness -----------------------------------------------------------------------------------


def test_concurrency_per_host_is_limited(server):
    url = server.route("/c", server.Reply(delay=0.15))
    with Fetcher(
        allowed_networks=["127.0.0.1/32"], concurrency_per_host=2, rate_per_host=None, trust_env=False
    ) as f:
        threads = [threading.Thread(target=f.fetch, args=(url,)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(server.seen) == 6 and server.max_in_flight == 2


def test_rate_limit_spaces_requests(server):
    url = server.route("/t", server.Reply())
    with Fetcher(allowed_networks=["127.0.0.1/32"], rate_per_host=(10.0, 1.0), trust_env=False) as f:
        for _ in range(4):
            f.fetch(url)
    times = [s.at for s in server.seen]
    assert times[-1] - times[0] >= 0.27  # 3 gaps of >= 0.1 s (minus timer slack)


def test_a_binary_body_served_as_text_is_refused(server):
    """Random bytes labelled text/html were decoded into a section of U+FFFD characters (a user
    trial); a NUL byte in the first 8 KiB refuses them, as a binary local file is skipped. UTF-16
    (a BOM, or the charset of the header) holds NUL bytes and is text."""
    html = {"Content-Type": "text/html"}
    with Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=False) as f:
        url = server.route("/noise", server.Reply(headers=html, body=bytes(range(256)) * 40))
        refused = r"binary content at .*/noise: it is served as text/html"
        with pytest.raises(UnsupportedContentType, match=refused):
            f.fetch(url)
        utf16 = "<!doctype html><p>wide text</p>".encode("utf-16")  # with its BOM
        assert "wide text" in f.fetch(server.route("/bom", server.Reply(headers=html, body=utf16))).text
        labelled = {"Content-Type": "text/plain; charset=utf-16le"}
        body = "plain wide text".encode("utf-16-le")
        wide = f.fetch(server.route("/le", server.Reply(headers=labelled, body=body)))
        assert wide.text == "plain wide text"
        late = b"<p>" + b"x" * 9000 + b"\x00"  # past the first 8000 bytes: text
        assert f.fetch(server.route("/late", server.Reply(headers=html, body=late))).kind == "html"
        no_nul = bytes(b for b in range(1, 256)) * 40  # random-like bytes without a NUL (second trial)
        with pytest.raises(UnsupportedContentType, match="binary content at"):
            f.fetch(server.route("/no-nul", server.Reply(headers=html, body=no_nul)))
        stray = (b"<p>" + b"words " * 150 + b"a stray \x0b vertical tab, an \x1b escape</p>") * 5
        assert f.fetch(server.route("/stray", server.Reply(headers=html, body=stray))).kind == "html"
