"""Every exception the HTTP stack can raise for one request, as a :class:`FetchError` subclass.

httpx, httpcore, h11, ``ssl``, ``socket`` and URL parsing (``ValueError``, ``UnicodeError`` from
IDNA) each have their own exception types; a hostile server or link can trigger any of them.
:func:`as_fetch_error` maps them once, at the fetcher's boundary, so callers (the crawl, the
CLI, the MCP server) only ever see :mod:`docmunch.errors` and one bad page is one report entry:

- timeouts → :class:`NetworkError` "timed out after N s connecting to / waiting for URL";
- connection, proxy, TLS, DNS, reset, malformed response → :class:`NetworkError`;
- unparsable URLs (``httpx.InvalidURL``, ``ValueError``, IDNA ``UnicodeError``) → :class:`InvalidURL`;
- a :class:`docmunch.errors.FetchError` raised inside the transport keeps its class, gains the URL.
"""

from __future__ import annotations

import ssl

import h11
import httpcore
import httpx

from docmunch.errors import BlockedAddress, FetchError, InvalidURL, NetworkError

__all__ = ["STACK_ERRORS", "as_fetch_error"]

STACK_ERRORS: tuple[type[BaseException], ...] = (
    httpx.HTTPError,
    httpx.InvalidURL,
    httpx.StreamError,
    httpx.CookieConflict,
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
    h11.ProtocolError,
    ssl.SSLError,
    OSError,
    ValueError,  # includes UnicodeError (IDNA) and urllib.parse's errors
    LookupError,  # an unknown codec named by a header
    EOFError,
)
"""Exception types of the HTTP stack that a response or URL can cause (caught at the boundary)."""

_TIMEOUTS = (httpx.TimeoutException, httpcore.TimeoutException, TimeoutError)


def as_fetch_error(
    exc: BaseException, url: str, *, connect_timeout: float, read_timeout: float
) -> FetchError:
    """The :class:`FetchError` (subclass) that stands for ``exc`` raised while fetching ``url``."""
    if isinstance(exc, BlockedAddress):
        return BlockedAddress(str(exc), url=url, reason=exc.reason)
    if isinstance(exc, FetchError):
        if exc.url is None:  # raised below the fetcher (name resolution): name the URL
            exc.args = (f"{exc} ({url})",)
            exc.url = url
        return exc
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, (httpx.ConnectTimeout, httpcore.ConnectTimeout)):
        return NetworkError(f"timed out after {connect_timeout:g} s connecting to {url}", url=url)
    if isinstance(exc, _TIMEOUTS):
        return NetworkError(f"timed out after {read_timeout:g} s waiting for {url}", url=url)
    if isinstance(exc, ssl.SSLError) or "[SSL" in text:
        return NetworkError(f"TLS failed for {url}: {text}", url=url)
    if isinstance(exc, (httpx.ConnectError, httpcore.ConnectError, ConnectionRefusedError)):
        return NetworkError(f"cannot connect to {url}: {text}", url=url)
    if isinstance(exc, (httpx.InvalidURL, ValueError)) and not isinstance(exc, OSError):
        return InvalidURL(f"invalid URL {url!r}: {text}", url=url)
    return NetworkError(f"fetching {url} failed: {type(exc).__name__}: {text}", url=url)
