"""URL rules of web sources: normalisation, crawl scope, default repo names. Pure functions.

- URL normalisation follows RFC 3986 §6 (case of scheme and host, default ports, dot segments)
  plus crawler practice: fragments dropped, tracking queries (``utm_*``, ``gclid``, ``fbclid``,
  …) removed, remaining query parameters sorted, ``/index.html`` and a trailing slash folded.
- The scope of a crawl is a URL prefix on one origin (scheme, host and port).
- The default repo name of a URL is its host, plus ``:PORT`` when the port is not the scheme's
  default (``127.0.0.1:8732``), so two sites on two ports of one host land in two repos. An IPv6
  literal is written as its eight groups joined by ``-`` (``[::1]:8000`` →
  ``0-0-0-0-0-0-0-1:8000``): no ``::`` (the section id separator), no brackets (shell globs).
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from docmunch.fetch import origin_of

__all__ = ["default_repo_name", "in_scope", "normalize_url", "scope_prefix"]

_TRACKING = re.compile(r"^(utm_\w+|gclid|fbclid|msclkid|mc_cid|mc_eid|_ga|ref_src|yclid)$", re.I)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str, *, base: str | None = None) -> str | None:
    """Canonical form of an http(s) URL, or ``None`` for other schemes / unparsable input.

    Args:
        url: absolute URL, or relative to ``base``.
        base: the URL of the page the link was found on.

    Returns:
        e.g. ``normalize_url("HTTP://Ex.com:80/a/./b/index.html?utm_source=x#top")`` →
        ``"http://ex.com/a/b/"``.
    """
    try:
        absolute = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(absolute)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return None
        host = parts.hostname.lower().rstrip(".")
        port = parts.port
    except ValueError:
        return None
    if not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = parts.path or "/"
    trailing = path.endswith("/")
    path = posixpath.normpath(path) if path not in ("", "/") else "/"
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if trailing and not path.endswith("/"):
        path += "/"
    for index_name in ("index.html", "index.htm"):
        if path.endswith("/" + index_name):
            path = path[: -len(index_name)]
    query = urlencode(
        sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k))
    )
    return urlunsplit((scheme, netloc, path, query, ""))


def scope_prefix(start_url: str) -> str:
    """Default crawl scope of a start URL: its origin and folder (``…/docs/`` of ``…/docs/x``)."""
    norm = normalize_url(start_url) or start_url
    parts = urlsplit(norm)
    folder = parts.path if parts.path.endswith("/") else posixpath.dirname(parts.path) + "/"
    folder = folder.replace("//", "/")
    return urlunsplit((parts.scheme, parts.netloc, folder, "", ""))


def in_scope(url: str, scope: str) -> bool:
    """True when normalised ``url`` starts with the normalised ``scope`` prefix (same origin)."""
    return url.startswith(scope) or url + "/" == scope


def default_repo_name(url: str) -> str:
    """The repo a URL is indexed into when no name is given (see the module docstring).

    >>> default_repo_name("https://docs.example.com/guide/"), default_repo_name("http://127.0.0.1:8732/")
    ('docs.example.com', '127.0.0.1:8732')
    """
    origin = origin_of(url)
    if origin is None:
        return "web"
    host = origin.host
    if ":" in host:  # IPv6 literal
        groups = ipaddress.IPv6Address(host.split("%", 1)[0]).exploded.split(":")
        host = "-".join(f"{int(group, 16):x}" for group in groups)
    return host if origin.default_port else f"{host}:{origin.port}"
