"""Safe HTTP(S) fetching for docmunch: SSRF guard with DNS pinning, size/time limits, redirects,
retries, per-host rate and concurrency limits, conditional requests, WHATWG charset decoding.

Typical use::

    with Fetcher() as fetcher:
        page = fetcher.fetch("https://docs.python.org/3/library/asyncio-task.html")
        page.kind, page.charset, page.text          # "html", "UTF-8", "<!DOCTYPE html>…"
        again = fetcher.fetch(page.url, etag=page.etag, last_modified=page.last_modified)
        again.not_modified                          # True when the server answered 304

Every failure is a :class:`docmunch.errors.FetchError` subclass carrying the URL: the HTTP
stack's own exceptions (httpx, httpcore, h11, ssl, socket, URL parsing) never leave the fetcher
(:mod:`docmunch.fetch.failures`). Caches and limits are keyed by origin
(:mod:`docmunch.fetch.origin`).
"""

from docmunch.fetch.charset import decode_html, decode_text
from docmunch.fetch.client import DEFAULT_MAX_BODY_BYTES, Fetcher, fetch_url
from docmunch.fetch.mime import Kind
from docmunch.fetch.origin import Origin, origin_of, same_origin
from docmunch.fetch.ratelimit import HostLimiter, TokenBucket
from docmunch.fetch.result import FetchResult, parse_retry_after
from docmunch.fetch.ssrf import AddressPolicy, check_url

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "AddressPolicy",
    "FetchResult",
    "Fetcher",
    "HostLimiter",
    "Kind",
    "Origin",
    "TokenBucket",
    "check_url",
    "decode_html",
    "decode_text",
    "fetch_url",
    "origin_of",
    "parse_retry_after",
    "same_origin",
]
