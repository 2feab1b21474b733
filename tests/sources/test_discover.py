"""Crawl discovery rules: URL normalisation, scope, llms.txt, sitemaps, robots.txt."""

from __future__ import annotations

import gzip

import pytest

from docmunch.sources.discover import (
    Robots,
    in_scope,
    normalize_url,
    parse_llms_txt,
    parse_sitemap,
    scope_prefix,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Ex.COM:80/a/./b/index.html?utm_source=x#top", "http://ex.com/a/b/"),
        ("https://ex.com:443/docs/", "https://ex.com/docs/"),
        ("https://ex.com:8443/docs", "https://ex.com:8443/docs"),
        ("https://ex.com/a/../b?z=1&a=2&gclid=9", "https://ex.com/b?a=2&z=1"),
        ("https://ex.com", "https://ex.com/"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
        ("mailto:a@b.c", None),
        ("javascript:alert(1)", None),
        ("ftp://ex.com/x", None),
    ],
)
def test_normalize_url(url: str, expected: str | None) -> None:
    assert normalize_url(url) == expected


def test_relative_links_resolve_against_the_page() -> None:
    assert normalize_url("../api/#x", base="https://ex.com/docs/guide/page.html") == "https://ex.com/docs/api/"


def test_scope() -> None:
    scope = scope_prefix("https://ex.com/docs/intro.html")
    assert scope == "https://ex.com/docs/"
    assert in_scope("https://ex.com/docs/a/b", scope)
    assert in_scope("https://ex.com/docs", scope)
    assert not in_scope("https://ex.com/blog/a", scope)
    assert not in_scope("https://ex.com.evil.org/docs/a", scope)
    assert not in_scope("http://ex.com/docs/a", scope)


def test_llms_txt_links_in_order_unique() -> None:
    text = """# Project

> Summary line with a [link](https://ex.com/docs/about.md).

## Docs

- [Quickstart](/docs/quickstart.md): start here
- [API [v2]](api/index.md "API")
- [Quickstart again](https://ex.com/docs/quickstart.md)
- [Mail](mailto:x@y.z)
"""
    assert parse_llms_txt(text, base="https://ex.com/docs/llms.txt") == [
        "https://ex.com/docs/about.md",
        "https://ex.com/docs/quickstart.md",
        "https://ex.com/docs/api/index.md",
    ]


URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://ex.com/docs/a</loc><lastmod>2025-01-01</lastmod></url>
  <url><loc> https://ex.com/docs/b </loc></url>
</urlset>"""
INDEX = b"""<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://ex.com/sitemap-1.xml.gz</loc></sitemap></sitemapindex>"""


def test_sitemaps_plain_gzip_index_and_garbage() -> None:
    assert parse_sitemap(URLSET) == (["https://ex.com/docs/a", "https://ex.com/docs/b"], [])
    assert parse_sitemap(gzip.compress(URLSET))[0] == ["https://ex.com/docs/a", "https://ex.com/docs/b"]
    assert parse_sitemap(INDEX) == ([], ["https://ex.com/sitemap-1.xml.gz"])
    assert parse_sitemap(b"<html>not a sitemap") == ([], [])
    assert parse_sitemap(b"\x1f\x8bbroken") == ([], [])
    bomb = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
            b"<urlset><url><loc>&b;</loc></url></urlset>")
    pages, _ = parse_sitemap(bomb)
    assert all("aaaa" not in p for p in pages)  # entities are not expanded


def test_robots_agent_group_and_delay() -> None:
    robots = Robots.parse("""User-agent: *
Disallow: /private/

User-agent: docmunch
Disallow: /docs/internal/
Crawl-delay: 0.5

Sitemap: https://ex.com/sitemap.xml
""")
    assert not robots.allowed("https://ex.com/docs/internal/x")
    assert robots.allowed("https://ex.com/private/x")  # the docmunch group replaces '*'
    assert robots.crawl_delay() == 0.5
    assert robots.sitemaps() == ["https://ex.com/sitemap.xml"]
    star = Robots.parse("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
    assert not star.allowed("https://ex.com/private/x") and star.crawl_delay() == 2.0
    assert Robots.parse("").allowed("https://ex.com/anything")
