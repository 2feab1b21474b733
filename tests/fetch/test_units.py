"""Units without a server: bounded decoders, token bucket, host limiter, public surface."""

from __future__ import annotations

import gzip
import threading
import zlib

import brotli
import pytest

import docmunch.fetch
from docmunch.errors import DecodeError
from docmunch.fetch import HostLimiter, TokenBucket
from docmunch.fetch.decoders import PIECE_BYTES, make_decoder
from docmunch.fetch.mime import kind_for, parse_content_type, sniff_mime

TEXT = b"The quick brown fox jumps over the lazy dog. " * 30_000  # ~1.3 MB


@pytest.mark.parametrize(
    ("coding", "data"),
    [
        ("gzip", gzip.compress(TEXT)),
        ("x-gzip", gzip.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)[2:-4]),  # raw RFC 1951 data, as some servers send
        ("br", brotli.compress(TEXT)),
        ("gzip", gzip.compress(TEXT[:500_000]) + gzip.compress(TEXT[500_000:])),  # two members
        ("gzip, br", brotli.compress(gzip.compress(TEXT))),
        ("identity", TEXT),
        (None, TEXT),
    ],
)
def test_decoders_round_trip_in_bounded_pieces(coding, data):
    decoder = make_decoder(coding)
    out = bytearray()
    largest = 0
    for start in range(0, len(data), 7_000):
        for piece in decoder.feed(data[start : start + 7_000]):
            largest = max(largest, len(piece))
            out += piece
    for piece in decoder.flush():
        out += piece
    assert out == TEXT
    assert largest <= 2 * PIECE_BYTES


def test_bomb_chunk_yields_lazily():
    bomb = gzip.compress(b"\0" * 50_000_000)
    pieces = make_decoder("gzip").feed(bomb)
    assert len(next(pieces)) == PIECE_BYTES  # one piece at a time, not 50 MB at once


def test_truncated_and_corrupt_streams():
    decoder = make_decoder("br")
    data = brotli.compress(bytes(range(256)) * 3 + TEXT)
    list(decoder.feed(data[: len(data) // 2]))
    with pytest.raises(DecodeError, match="truncated brotli"):
        list(decoder.flush())
    with pytest.raises(DecodeError, match="invalid brotli"):
        list(make_decoder("br").feed(b"\xff" * 100))
    with pytest.raises(DecodeError, match="unsupported Content-Encoding 'compress'"):
        make_decoder("compress")


def test_token_bucket_spacing_with_a_fake_clock():
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]  # the burst
    assert bucket.reserve() == pytest.approx(0.5)
    assert bucket.reserve() == pytest.approx(1.0)  # queued behind the previous waiter
    now[0] = 10.0
    assert bucket.reserve() == 0.0  # refilled (capped at burst)
    with pytest.raises(ValueError):
        TokenBucket(rate=0, burst=1)


def test_host_limiter_threads_share_one_bucket_per_host():
    slept: list[float] = []
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            slept.append(seconds)

    limiter = HostLimiter(rate=(1.0, 1.0), concurrency=8, sleep=sleep)
    limiter.set_rate("other.example", None)

    def work(host: str) -> None:
        with limiter.slot(host):
            pass

    threads = [threading.Thread(target=work, args=("Docs.Example",)) for _ in range(5)]
    threads += [threading.Thread(target=work, args=("other.example",)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # One token free, then four waiters queued 1 s, 2 s, 3 s, 4 s behind (within clock slack).
    assert len(slept) == 4 and sorted(round(s) for s in slept) == [1, 2, 3, 4]


def test_content_type_helpers():
    assert parse_content_type('text/html; Charset="GB2312"') == ("text/html", "GB2312")
    assert parse_content_type(None) == ("", None)
    assert sniff_mime(b"\xef\xbb\xbf<!DOCTYPE HTML>") == "text/html"
    assert sniff_mime(b"<ph>not a known tag") == "text/plain"
    assert kind_for("text/x-markdown") == "markdown"


def test_public_surface_matches_all():
    exported = {name for name in dir(docmunch.fetch) if not name.startswith("_")}
    modules = {
        "charset", "client", "decoders", "encodings", "failures", "mime", "origin", "ratelimit",
        "redirects", "result", "ssrf", "transport",
    }
    assert exported - modules == set(docmunch.fetch.__all__)
