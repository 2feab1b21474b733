"""URL discovery for site crawls: normalisation, scope, llms.txt, sitemaps, robots.txt.

Pure functions over bytes and strings (no I/O) so the crawler's policy is testable on its own.

- URL normalisation follows RFC 3986 §6 (case of scheme and host, default ports, dot segments)
  plus crawler practice: fragments dropped, tracking queries (``utm_*``, ``gclid``, ``fbclid``,
  …) removed, remaining query parameters sorted, ``/index.html`` and a trailing slash folded.
- ``llms.txt`` is the llmstxt.org proposal: a Markdown file whose list items link to pages
  (``- [Title](url): notes``); every Markdown link in it is taken, in order.
- Sitemaps follow sitemaps.org 0.9: ``<urlset><url><loc>`` and ``<sitemapindex><sitemap><loc>``,
  optionally gzip-compressed.
- robots.txt uses the standard library's parser (RFC 9309 group matching for our user agent
  ``docmunch``, falling back to ``*``; ``Crawl-delay`` as extended by common practice).
"""

from __future__ import annotations

import gzip
import io
import posixpath
import re
import urllib.robotparser
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml import etree

__all__ = [
    "Robots",
    "in_scope",
    "normalize_url",
    "parse_llms_txt",
    "parse_sitemap",
    "scope_prefix",
]

USER_AGENT_TOKEN = "docmunch"
_TRACKING = re.compile(r"^(utm_\w+|gclid|fbclid|msclkid|mc_cid|mc_eid|_ga|ref_src|yclid)$", re.I)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_MD_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_MAX_SITEMAP_BYTES = 50 * 2**20  # sitemaps.org: 50 MB uncompressed per sitemap


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
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                             if not _TRACKING.match(k)))
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


def parse_llms_txt(text: str, *, base: str) -> list[str]:
    """Link targets of an ``llms.txt`` / ``llms-full.txt`` file, normalised, in order, unique."""
    seen: dict[str, None] = {}
    for match in _MD_LINK.finditer(text):
        url = normalize_url(match.group(1), base=base)
        if url:
            seen.setdefault(url, None)
    return list(seen)


def parse_sitemap(data: bytes) -> tuple[list[str], list[str]]:
    """Parse a sitemap or sitemap index (gzip detected by magic bytes).

    Returns:
        ``(page_urls, child_sitemap_urls)``; both empty for unparsable input (a broken sitemap
        only means less discovery, never a failed crawl).
    """
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
                data = fh.read(_MAX_SITEMAP_BYTES + 1)[:_MAX_SITEMAP_BYTES]
        except (OSError, EOFError):
            return [], []
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=True)
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError:
        return [], []
    if root is None:
        return [], []
    pages: list[str] = []
    children: list[str] = []
    kind = etree.QName(root).localname if isinstance(root.tag, str) else ""
    for loc in root.iter("{*}loc", "loc"):
        if loc.text and loc.text.strip():
            (children if kind == "sitemapindex" else pages).append(loc.text.strip())
    return pages, children


@dataclass(frozen=True, slots=True)
class Robots:
    """robots.txt rules for docmunch on one origin."""

    parser: urllib.robotparser.RobotFileParser
    """The parsed Allow/Disallow rules."""
    delays: tuple[tuple[str, float], ...] = ()
    """``(user-agent token, Crawl-delay seconds)`` per group, fractions kept."""

    @classmethod
    def parse(cls, text: str) -> Robots:
        """Parse robots.txt text (an empty text allows everything)."""
        lines = text.splitlines()
        parser = urllib.robotparser.RobotFileParser()
        parser.parse(lines)
        # The standard library reads only integer Crawl-delay values; read them here.
        delays: list[tuple[str, float]] = []
        agents: list[str] = []
        in_rules = False
        for raw in lines:
            line = raw.split("#", 1)[0].strip()
            if ":" not in line:
                continue
            key, value = (part.strip() for part in line.split(":", 1))
            key = key.lower()
            if key == "user-agent":
                if in_rules:
                    agents, in_rules = [], False
                agents.append(value.lower())
            elif key == "crawl-delay":
                in_rules = True
                try:
                    seconds = float(value)
                except ValueError:
                    continue
                delays.extend((agent, seconds) for agent in agents)
            elif key in ("allow", "disallow"):
                in_rules = True
        return cls(parser, tuple(delays))

    def allowed(self, url: str) -> bool:
        """May docmunch fetch ``url``?"""
        return self.parser.can_fetch(USER_AGENT_TOKEN, url)

    def crawl_delay(self) -> float | None:
        """``Crawl-delay`` for docmunch (or ``*``) in seconds, if any."""
        for agent, seconds in self.delays:
            if agent not in ("", "*") and (agent in USER_AGENT_TOKEN or USER_AGENT_TOKEN in agent):
                return seconds
        for agent, seconds in self.delays:
            if agent == "*":
                return seconds
        return None

    def sitemaps(self) -> list[str]:
        """``Sitemap:`` lines."""
        return list(self.parser.site_maps() or [])
