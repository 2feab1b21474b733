"""Sitemaps per sitemaps.org 0.9: ``<urlset>`` and ``<sitemapindex>`` files, gzip or not. Pure.

- gzip is recognised by its magic bytes (``1f 8b``), whatever the ``Content-Type`` says (servers
  send ``.xml.gz`` as ``application/xml``, ``application/octet-stream`` or nothing), and is
  decompressed incrementally up to :data:`MAX_SITEMAP_BYTES`.
- Limits from the protocol: at most :data:`MAX_SITEMAP_BYTES` uncompressed and
  :data:`MAX_SITEMAP_URLS` ``<loc>`` entries per file; beyond them the rest of the file is
  ignored and a warning says so.
- The XML is read as a stream (lxml ``iterparse``, elements cleared as read): a 50 MiB sitemap
  never becomes a 50 MiB tree. Entities are not expanded, no network access, no huge-tree mode;
  malformed XML is read as far as it parses.
- Which file kind it is comes from the root element (``urlset`` / ``sitemapindex``, any
  namespace). Anything else is "not a sitemap" (a soft-404 HTML page, say).

Following indexes, loops and per-crawl caps is :mod:`docmunch.sources.discover`'s job.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

from lxml import etree

__all__ = ["MAX_SITEMAP_BYTES", "MAX_SITEMAP_URLS", "SitemapFile", "parse_sitemap"]

MAX_SITEMAP_BYTES = 50 * 2**20
"""Uncompressed bytes read per sitemap file (sitemaps.org: 50 MiB, 52,428,800 bytes)."""
MAX_SITEMAP_URLS = 50_000
"""``<loc>`` entries read per sitemap file or index (sitemaps.org: 50,000)."""
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """What one sitemap file says."""

    kind: str
    """``"urlset"``, ``"sitemapindex"``, or ``""`` when it is not a sitemap."""
    pages: tuple[str, ...] = ()
    """``<url><loc>`` values of a urlset, in order, stripped (not yet resolved or normalised)."""
    children: tuple[str, ...] = ()
    """``<sitemap><loc>`` values of an index."""
    warnings: tuple[str, ...] = ()
    """Limits hit or damage found ("truncated at 50000 URLs (sitemaps.org limit)")."""


def _gunzip(data: bytes, limit: int) -> tuple[bytes, str | None]:
    """Decompress gzip (concatenated members too) up to ``limit`` bytes; ``(bytes, warning)``."""
    out = bytearray()
    decoder = zlib.decompressobj(wbits=31)
    pending = data
    try:
        while pending:
            out += decoder.decompress(pending, limit + 1 - len(out))
            if len(out) > limit:
                return bytes(out[:limit]), f"truncated at {limit} bytes uncompressed (sitemaps.org limit)"
            pending = decoder.unconsumed_tail
            if decoder.eof:
                pending = decoder.unused_data
                if pending[:2] != _GZIP_MAGIC:
                    break
                decoder = zlib.decompressobj(wbits=31)
    except zlib.error as exc:
        return bytes(out), f"damaged gzip data ({exc}); read {len(out)} bytes"
    if not decoder.eof and not out:
        return b"", "truncated gzip data"
    return bytes(out), None


def parse_sitemap(
    data: bytes, *, max_bytes: int = MAX_SITEMAP_BYTES, max_urls: int = MAX_SITEMAP_URLS
) -> SitemapFile:
    """Parse one sitemap or sitemap index (gzip detected by magic bytes).

    Args:
        data: the file's bytes as served (after HTTP ``Content-Encoding`` decoding).
        max_bytes: uncompressed bytes read (default :data:`MAX_SITEMAP_BYTES`).
        max_urls: ``<loc>`` entries read (default :data:`MAX_SITEMAP_URLS`).

    Returns:
        A :class:`SitemapFile`; never raises for bad input (``kind=""`` and a warning instead).
    """
    warnings: list[str] = []
    if data[:2] == _GZIP_MAGIC:
        data, problem = _gunzip(data, max_bytes)
        if problem:
            warnings.append(problem)
    elif len(data) > max_bytes:
        data = data[:max_bytes]
        warnings.append(f"truncated at {max_bytes} bytes (sitemaps.org limit)")
    kind = ""
    locs: list[str] = []
    events = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        recover=True,
        load_dtd=False,
    )
    try:
        for event, element in events:
            if not isinstance(element.tag, str):
                continue
            name = etree.QName(element).localname
            if event == "start":
                if not kind:
                    kind = name if name in ("urlset", "sitemapindex") else "other"
                continue
            if name == "loc" and kind != "other":
                text = (element.text or "").strip()
                if text:
                    if len(locs) >= max_urls:
                        warnings.append(f"truncated at {max_urls} URLs (sitemaps.org limit)")
                        break
                    locs.append(text)
            if name in ("url", "sitemap"):
                element.clear(keep_tail=False)
    except etree.XMLSyntaxError as exc:
        if not kind:
            return SitemapFile("", warnings=(*warnings, f"not XML: {exc}"))
        warnings.append(f"malformed XML, read up to: {exc}")
    if kind in ("", "other"):
        return SitemapFile("", warnings=(*warnings, "not a sitemap (no <urlset> or <sitemapindex> root)"))
    if kind == "sitemapindex":
        return SitemapFile(kind, children=tuple(locs), warnings=tuple(warnings))
    return SitemapFile(kind, pages=tuple(locs), warnings=tuple(warnings))
