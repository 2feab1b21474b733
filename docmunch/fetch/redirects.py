"""Following redirects: where a ``Location`` points, and the chain of one fetch.

A ``Location`` (RFC 9110 §10.2.2) is resolved against the URL that sent it (RFC 3986 §5). The
result must be an ``http(s)`` URL with a host: another scheme (``mailto:``, ``data:``,
``file:``) is refused like any non-http(s) URL (:class:`BlockedAddress`, reason ``"scheme"``);
an http(s) URL without a host (``https:``) or an unparsable value is a :class:`RedirectError`.
Both name the ``Location`` and are raised before any request: docmunch never hands such a value
to the HTTP client, whose own redirect code raises foreign exceptions for them.

:class:`RedirectChain` records every URL one fetch requested. A hop back to a URL already in
the chain is a :class:`RedirectLoop` whose message spells the loop (``/a → /b → /a``), raised
before that URL is requested a second time; a chain longer than the fetcher's
``max_redirects`` is a :class:`RedirectError`.
"""

from __future__ import annotations

import urllib.parse

from docmunch.errors import BlockedAddress, RedirectError, RedirectLoop
from docmunch.fetch.origin import DEFAULT_PORTS, origin_of

__all__ = ["RedirectChain", "describe", "resolve_location"]

MAX_LOCATION_CHARS = 8192
"""Longest ``Location`` value followed (characters); RFC 9110 §4.1 recommends supporting
request targets of at least 8000 octets."""


def resolve_location(url: str, location: str) -> str:
    """The absolute URL (without fragment) a redirect from ``url`` with ``Location: location`` points to.

    Raises:
        BlockedAddress: the target's scheme is not http(s) (``reason="scheme"``).
        RedirectError: the value is too long, unparsable, or an http(s) URL without a host.
    """
    value = location.strip()
    shown = value if len(value) <= 80 else value[:77] + "..."
    if len(value) > MAX_LOCATION_CHARS:
        raise RedirectError(
            f"{url} redirects to a Location longer than {MAX_LOCATION_CHARS} characters", url=url
        )
    try:
        target = urllib.parse.urldefrag(urllib.parse.urljoin(url, value)).url  # fragments are not sent
        parts = urllib.parse.urlsplit(target)
        parts.port  # noqa: B018 — validates the port ("x:99999" raises ValueError)
    except ValueError as exc:
        raise RedirectError(f"{url} redirects to an invalid Location {shown!r}: {exc}", url=url) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BlockedAddress(
            f"{url} redirects to {shown!r}: URL scheme {scheme!r} is not allowed; only http and https",
            url=target,
            reason="scheme",
        )
    if origin_of(target) is None:
        raise RedirectError(f"{url} redirects to {shown!r}, a URL without a host", url=url)
    return target


class RedirectChain:
    """The URLs one fetch has requested, in order; :meth:`add` refuses loops and long chains."""

    __slots__ = ("_seen", "max_redirects", "urls")

    def __init__(self, first: str, *, max_redirects: int) -> None:
        self.urls: list[str] = [first]
        self.max_redirects = max_redirects
        self._seen = {_identity(first)}

    @property
    def redirects(self) -> tuple[str, ...]:
        """URLs that answered with a redirect (every URL but the last)."""
        return tuple(self.urls[:-1])

    def add(self, target: str) -> None:
        """Record the next hop; raises before ``target`` is requested when it cannot be.

        Raises:
            RedirectLoop: ``target`` was already requested in this chain.
            RedirectError: following it would exceed ``max_redirects``.
        """
        if _identity(target) in self._seen:
            loop = (*self.urls, target)
            raise RedirectLoop(f"redirect loop: {describe(loop)}", url=self.urls[0], chain=loop)
        if len(self.urls) > self.max_redirects:
            chain = (*self.urls, target)
            raise RedirectError(
                f"too many redirects (more than {self.max_redirects}): {describe(chain)}",
                url=self.urls[0],
                chain=chain,
            )
        self.urls.append(target)
        self._seen.add(_identity(target))


def _identity(url: str) -> str:
    """The URL as requested: fragment dropped (never sent), scheme and host lower-case."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # refused later by the SSRF check; compare it as written
        return url
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def describe(chain: tuple[str, ...] | list[str]) -> str:
    """``/a → /b → /a``: the chain as paths when every URL is on the first one's origin, else URLs."""
    first = origin_of(chain[0])
    if first is not None and all(origin_of(u) == first for u in chain):
        shown = []
        for url in chain:
            parts = urllib.parse.urlsplit(url)
            shown.append((parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        return " → ".join(shown)
    return " → ".join(chain)
