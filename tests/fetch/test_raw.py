"""``raw=True`` (any content type, any status, undecoded body) and extra request headers."""

from __future__ import annotations

import gzip

import pytest

from docmunch.errors import TooLarge, UnsupportedContentType


def test_raw_fetch_returns_gzip_bytes_unchanged(server, fetcher):
    payload = gzip.compress(b"tar bytes" * 100)
    url = server.route("/t.tar.gz", server.Reply(headers={"Content-Type": "application/gzip"}, body=payload))
    with pytest.raises(UnsupportedContentType):
        fetcher.fetch(url)
    page = fetcher.fetch(url, raw=True)
    assert page.body == payload
    assert (page.kind, page.text, page.content_type) == (None, "", "application/gzip")


def test_raw_fetch_returns_error_statuses_with_headers(server, fetcher):
    url = server.route(
        "/limited", server.Reply(403, headers={"X-RateLimit-Reset": "1700000000"}, body=b'{"m": 1}')
    )
    page = fetcher.fetch(url, raw=True)
    assert page.status == 403
    assert page.headers["x-ratelimit-reset"] == "1700000000"
    assert page.body == b'{"m": 1}'


def test_raw_fetch_still_caps_size(server, fetcher):
    fetcher.max_bytes = 1000
    url = server.route("/big", server.Reply(headers={"Content-Type": "application/gzip"}, body=b"x" * 5000))
    with pytest.raises(TooLarge):
        fetcher.fetch(url, raw=True)


def test_authorization_is_dropped_on_redirect_to_another_origin(server, start_server, fetcher):
    other = start_server()
    target = other.route("/file", server.Reply(body=b"<p>ok</p>"))
    same = server.route("/same", server.Reply(302, headers={"Location": "/away"}, body=b""))
    server.route("/away", server.Reply(302, headers={"Location": target}, body=b""))
    fetcher.fetch(same, headers={"Authorization": "Bearer s3cret", "X-Extra": "1"})
    by_path = {s.path: s.headers for s in server.seen}
    assert by_path["/same"]["authorization"] == "Bearer s3cret"
    assert by_path["/away"]["authorization"] == "Bearer s3cret"  # same origin: kept
    assert "authorization" not in other.seen[0].headers  # other port = other origin
    assert other.seen[0].headers["x-extra"] == "1"


def test_sink_receives_the_streamed_body(server, fetcher, tmp_path):
    payload = bytes(range(256)) * 4096  # 1 MiB
    url = server.route(
        "/big.tar.gz", server.Reply(headers={"Content-Type": "application/gzip"}, body=payload)
    )
    with (tmp_path / "out").open("wb") as sink:
        page = fetcher.fetch(url, raw=True, sink=sink)
    assert page.body == b"" and page.status == 200
    assert (tmp_path / "out").read_bytes() == payload
    fetcher.max_bytes = 1000
    with (tmp_path / "cut").open("wb") as sink, pytest.raises(TooLarge):
        fetcher.fetch(url, raw=True, sink=sink)
    assert (tmp_path / "cut").stat().st_size <= 64 * 1024 + 1000  # stopped within one chunk
    with pytest.raises(ValueError):
        fetcher.fetch(url, sink=sink)
