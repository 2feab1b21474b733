"""Safe HTTP(S) fetching for docmunch: SSRF guard with DNS pinning, size/time limits, redirects,
retries, per-host rate and concurrency limits, conditional requests, WHATWG charset decoding.

Typical use::

    with Fetcher() as fetcher:
        page = fetcher.fetch("https://docs.python.org/3/library/asyncio-task.html")
        page.kind, page.charset, page.text          # "html", "UTF-8", "<!DOCTYPE html>…"
        again = fetcher.fetch(page.url, etag=page.etag, last_modified=page.last_modified)
        again.not_modified                          # True when the server answered 304

Every failure is a :class:`docmunch.errors.FetchError` subclass carrying the URL.
"""

from docmunch.fetch.charset import decode_html, decode_text
from docmunch.fetch.client import Fetcher, FetchResult, fetch_url, parse_retry_after
from docmunch.fetch.mime import Kind
from docmunch.fetch.ratelimit import HostLimiter, TokenBucket
from docmunch.fetch.ssrf import AddressPolicy, check_url

__all__ = [
    "AddressPolicy",
    "FetchResult",
    "Fetcher",
    "HostLimiter",
    "Kind",
    "TokenBucket",
    "check_url",
    "decode_html",
    "decode_text",
    "fetch_url",
    "parse_retry_after",
]
