"""Origins (RFC 6454 §4): the ``(scheme, host, port)`` triple every cache and limit is keyed by.

Two URLs share an origin only when all three parts are equal, the port filled in from the
scheme's default (``http`` 80, ``https`` 443). ``http://127.0.0.1:8731/`` and
``http://127.0.0.1:8732/`` are two origins: their robots.txt, validators (ETag/Last-Modified),
rate limits and stored pages never stand in for each other.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

__all__ = ["DEFAULT_PORTS", "Origin", "origin_of", "same_origin"]

DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443}
"""Default TCP port of each scheme docmunch fetches (RFC 9110 §4.2)."""


@dataclass(frozen=True, slots=True, order=True)
class Origin:
    """One web origin; build it with :func:`origin_of`."""

    scheme: str
    """``"http"`` or ``"https"`` (lower-case)."""
    host: str
    """Host name lower-case without a trailing dot, or an IP literal (IPv6 without brackets)."""
    port: int
    """TCP port, the scheme's default filled in."""

    @property
    def key(self) -> str:
        """``scheme://host:port`` with the port always written: the key of every per-origin cache."""
        return f"{self.scheme}://{self._netloc_host()}:{self.port}"

    @property
    def default_port(self) -> bool:
        """True when ``port`` is the scheme's default."""
        return DEFAULT_PORTS.get(self.scheme) == self.port

    def _netloc_host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host

    def __str__(self) -> str:
        """RFC 6454 serialisation: ``scheme://host`` plus ``:port`` only when not the default."""
        port = "" if self.default_port else f":{self.port}"
        return f"{self.scheme}://{self._netloc_host()}{port}"


def origin_of(url: str) -> Origin | None:
    """The origin of an absolute ``http(s)`` URL, or ``None`` (other scheme, no host, unparsable).

    >>> origin_of("HTTP://Example.COM./a").key
    'http://example.com:80'
    """
    try:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").rstrip(".")
        port = parts.port
    except ValueError:  # a bad port ("x:99999", "x:abc") or an unclosed IPv6 bracket
        return None
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return Origin(scheme, host.lower(), port if port is not None else DEFAULT_PORTS[scheme])


def same_origin(a: str | None, b: str | None) -> bool:
    """True when both URLs parse and have the same origin (``None`` never matches)."""
    if a is None or b is None:
        return False
    first, second = origin_of(a), origin_of(b)
    return first is not None and first == second
