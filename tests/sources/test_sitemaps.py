"""Sitemap files per sitemaps.org: urlset, index, gzip by magic bytes, caps, damage."""

from __future__ import annotations

import gzip

from docmunch.sources.sitemaps import MAX_SITEMAP_URLS, parse_sitemap

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://ex.com/docs/a</loc><lastmod>2025-01-01</lastmod></url>
  <url><loc> https://ex.com/docs/b </loc></url>
</urlset>"""
INDEX = b"""<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://ex.com/sitemap-1.xml.gz</loc></sitemap></sitemapindex>"""


def _urlset(n: int) -> bytes:
    entries = b"".join(b"<url><loc>https://e.com/%d</loc></url>" % i for i in range(n))
    return b"<urlset>" + entries + b"</urlset>"


def test_urlset_plain_and_gzip() -> None:
    plain = parse_sitemap(URLSET)
    assert plain.kind == "urlset" and plain.warnings == ()
    assert plain.pages == ("https://ex.com/docs/a", "https://ex.com/docs/b")
    assert parse_sitemap(gzip.compress(URLSET)).pages == plain.pages


def test_index_lists_children() -> None:
    parsed = parse_sitemap(INDEX)
    assert (parsed.kind, parsed.pages) == ("sitemapindex", ())
    assert parsed.children == ("https://ex.com/sitemap-1.xml.gz",)


def test_not_a_sitemap_and_damage_are_warnings_never_errors() -> None:
    html = parse_sitemap(b"<html><body><a href='x'>not a sitemap</a></body></html>")
    assert html.kind == "" and "not a sitemap" in html.warnings[-1]
    assert parse_sitemap(b"\x1f\x8bbroken").kind == ""
    assert parse_sitemap(b"").kind == ""
    truncated = parse_sitemap(gzip.compress(URLSET)[:-30])
    assert truncated.kind == "urlset" or truncated.warnings


def test_entities_are_not_expanded() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        b"<urlset><url><loc>&b;</loc></url><url><loc>https://e.com/ok</loc></url></urlset>"
    )
    assert parse_sitemap(bomb).pages == ("https://e.com/ok",)


def test_url_count_cap() -> None:
    parsed = parse_sitemap(_urlset(MAX_SITEMAP_URLS + 10))
    assert len(parsed.pages) == MAX_SITEMAP_URLS
    assert parsed.warnings == (f"truncated at {MAX_SITEMAP_URLS} URLs (sitemaps.org limit)",)


def test_uncompressed_size_cap_applies_to_gzip_too() -> None:
    data = _urlset(5000)
    parsed = parse_sitemap(gzip.compress(data), max_bytes=10_000)
    assert 0 < len(parsed.pages) < 5000
    assert any("10000 bytes uncompressed" in w for w in parsed.warnings)
    plain = parse_sitemap(data, max_bytes=10_000)
    assert 0 < len(plain.pages) < 5000 and any("10000 bytes" in w for w in plain.warnings)
