"""What a fetch returns: :class:`FetchResult`, plus the response helpers that build it.

Split from :mod:`docmunch.fetch.client` (the request loop) so each stays small:
``parse_retry_after`` reads ``Retry-After`` (RFC 9110 §10.2.3), ``joined_headers`` folds repeated
headers, ``remote_address`` names the peer a response came from.
"""

from __future__ import annotations

import email.utils
import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from docmunch.fetch.mime import Kind

__all__ = ["FetchResult", "joined_headers", "parse_retry_after", "remote_address"]


@dataclass(frozen=True, slots=True)
class FetchResult:
    """One fetched document (or a 304 answer to a conditional request)."""

    url: str
    """Final URL, after redirects."""
    status: int
    """HTTP status of the final response (200, 203, …, or 304)."""
    headers: dict[str, str]
    """Final response headers, names lower-case (repeated headers joined with ``", "``)."""
    content_type: str
    """Media type, lower-case, without parameters (``"text/html"``); sniffed when absent."""
    kind: Kind | None
    """``"html"``, ``"markdown"`` or ``"text"``; ``None`` only when ``not_modified``."""
    charset: str
    """WHATWG name of the encoding used for ``text`` (``"UTF-8"``, ``"GBK"``); ``""`` if not modified."""
    body: bytes
    """Body after ``Content-Encoding`` decoding (bytes, at most ``max_bytes``); empty on 304."""
    text: str
    """``body`` decoded to text (BOM removed); empty on 304."""
    etag: str | None
    """``ETag`` of the final response (pass back as ``etag=`` next time)."""
    last_modified: str | None
    """``Last-Modified`` of the final response (pass back as ``last_modified=``)."""
    not_modified: bool
    """True when the server answered 304 to ``etag``/``last_modified``: keep your cached copy."""
    redirects: tuple[str, ...]
    """URLs that answered with a redirect, in order (empty without redirects)."""
    elapsed_ms: float
    """Wall time of the whole fetch, redirects and retry waits included (milliseconds)."""
    remote_address: str | None
    """IP address the final response came from (``None`` through a proxy or if unknown)."""


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date, RFC 9110 §10.2.3).

    Returns ``None`` for a missing or unparsable value; a date in the past gives ``0.0``.
    """
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def joined_headers(response: httpx.Response) -> dict[str, str]:
    joined: dict[str, str] = {}
    for name, value in response.headers.multi_items():
        key = name.lower()
        joined[key] = f"{joined[key]}, {value}" if key in joined else value
    return joined


def remote_address(response: httpx.Response) -> str | None:
    stream: Any = response.extensions.get("network_stream")
    if stream is None:
        return None
    try:
        peer = stream.get_extra_info("server_addr")
    except Exception:  # a stream type without this info
        return None
    if not peer:
        return None
    try:
        return str(ipaddress.ip_address(peer[0]))
    except ValueError:
        return None
