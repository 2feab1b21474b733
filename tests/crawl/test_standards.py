"""Crawling by the standards (issue 14), each point against real loopback servers.

RFC 9309 robots.txt (longest match, status codes, discovery files), sitemaps.org (indexes, gzip
without a gzip type, failing children, loops), the skip list of the run's report, redirect loops
and once-per-run fetching, and discovery files never stored as pages.
"""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.errors import SourceError
from docmunch.fetch import Fetcher
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from tests.crawl.routes import page, redirect, serve, text


def skips(report) -> dict[str, tuple[str, str]]:
    return {
        path: (reason, detail)
        for path, reason, detail in zip(
            report.skipped_paths, report.skipped_reasons, report.skipped_details, strict=True
        )
    }


def docs_of(repo: str) -> set[str]:
    with Index.open() as index:
        return {d.doc_path for d in index.list_docs(repo)}


def crawl(fetcher: Fetcher, start: str, **kwargs):
    with Index.open() as index:
        return crawl_site(index, start, repo=kwargs.pop("repo", "site"), fetcher=fetcher, **kwargs)


# --- robots.txt (RFC 9309) ------------------------------------------------------------------------


def test_disallow_all_but_allow_docs_crawls_the_docs(fetcher, docmunch_home):
    server = serve(
        {
            "/robots.txt": text("User-agent: *\nDisallow: /\nAllow: /docs/\nDisallow: /docs/drafts/\n"),
            "/docs/": page("Docs home", ["guide/", "drafts/x", "/blog/", "/docs/llms.txt", "/robots.txt"]),
            "/docs/drafts/x": page("Draft"),
            "/docs/guide/": page("Guide", ["/docs/", "/private/x"]),
            "/docs/llms.txt": text("# Docs\n\n- [API](api/)\n"),
            "/docs/api/": page("API"),
            "/llms.txt": text("- [Secret](/secret/)\n"),
            "/blog/": page("Blog"),
        }
    )
    try:
        report = crawl(fetcher, server.url("/docs/"))
        paths = server.paths()
    finally:
        server.close()
    assert docs_of("site") == {"docs/index.md", "docs/guide/index.md", "docs/api/index.md"}
    # Disallowed URLs are never requested: pages and discovery files alike (llms.txt, sitemap.xml).
    assert not {"/docs/drafts/x", "/llms.txt", "/sitemap.xml", "/secret/"} & set(paths)
    assert {"/docs/llms.txt", "/docs/sitemap.xml"} <= set(paths)  # allowed discovery files: read…
    skipped = skips(report)
    assert skipped[server.url("/docs/drafts/x")] == (
        "robots", "robots.txt: Disallow: /docs/drafts/ (line 4)"
    )
    assert skipped[server.url("/blog/")][0] == "scope"
    assert skipped[server.url("/llms.txt")][0] == "robots"
    assert skipped[server.url("/docs/llms.txt")][0] == "discovery-file"  # …never a page
    assert skipped[server.url("/robots.txt")][0] == "scope"  # outside /docs/ (decided first)
    assert paths.count("/robots.txt") == 1


@pytest.mark.parametrize("status", [404, 410, 401, 403])
def test_robots_4xx_is_unavailable_and_allows_everything(fetcher, docmunch_home, status):
    robots = text("User-agent: *\nDisallow: /", status=status)
    server = serve({"/robots.txt": robots, "/": page("Home", ["a"]), "/a": page("A")})
    try:
        report = crawl(fetcher, server.url("/"))
    finally:
        server.close()
    assert report.docs_indexed == 2 and not report.errors


@pytest.mark.parametrize("status", [500, 503])
def test_robots_5xx_is_unreachable_and_nothing_is_crawled(docmunch_home, status):
    server = serve({"/robots.txt": text("oops", status=status), "/": page("Home")})
    with Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False) as fetcher:
        try:
            with pytest.raises(SourceError, match=rf"HTTP {status}.*complete disallow.*not crawling"):
                crawl(fetcher, server.url("/"))
            paths = server.paths()
        finally:
            server.close()
    assert paths == ["/robots.txt"]


def test_robots_redirect_loop_is_unavailable(fetcher, docmunch_home):
    server = serve(
        {"/robots.txt": redirect("/r2"), "/r2": redirect("/robots.txt"), "/": page("Home")}
    )
    try:
        report = crawl(fetcher, server.url("/"))
    finally:
        server.close()
    assert report.docs_indexed == 1


def test_a_redirect_never_fetches_a_disallowed_or_out_of_scope_url(fetcher, docmunch_home):
    server = serve(
        {
            "/robots.txt": text("User-agent: docmunch\nDisallow: /docs/private/\n"),
            "/docs/": page("Docs", ["go-private", "go-out", "go-elsewhere"]),
            "/docs/go-private": redirect("/docs/private/page"),
            "/docs/go-out": redirect("/blog/"),
            "/docs/private/page": page("Private"),
            "/blog/": page("Blog"),
        }
    )
    other = serve({"/x": page("Other origin")})
    server.routes["/docs/go-elsewhere"] = redirect(other.url("/x"))
    try:
        report = crawl(fetcher, server.url("/docs/"))
        paths = server.paths()
    finally:
        server.close()
        other.close()
    assert "/docs/private/page" not in paths and "/blog/" not in paths and other.hits == []
    skipped = skips(report)
    reason, detail = skipped[server.url("/docs/go-private")]
    assert reason == "robots" and detail.startswith(f"redirects to {server.url('/docs/private/page')}:")
    assert skipped[server.url("/docs/go-out")][0] == "scope"
    assert skipped[server.url("/docs/go-elsewhere")][0] == "scope"
    assert docs_of("site") == {"docs/index.md"}


# --- sitemaps (sitemaps.org) ----------------------------------------------------------------------


def urlset(*urls: str) -> bytes:
    locs = "".join(f"<url><loc>{u}</loc></url>" for u in urls)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode()


def sitemap_index(*urls: str) -> bytes:
    locs = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in urls)
    return f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</sitemapindex>'.encode()


def test_sitemap_index_with_404_child_headerless_gzip_child_and_loops(fetcher, docmunch_home):
    server = serve({"/": page("Home")})
    base = server.base
    server.routes.update(
        {
            "/robots.txt": text(f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap_index.xml\n"),
            # The index lists a 404 child, a gzip child served without any Content-Type, itself
            # (a loop) and a nested index that lists the first one again (a longer loop).
            "/sitemap_index.xml": text(
                sitemap_index(
                    f"{base}/missing.xml", "/pages.xml.gz", f"{base}/sitemap_index.xml", "/nested.xml"
                ),
                "application/xml",
            ),
            "/nested.xml": text(sitemap_index("/sitemap_index.xml", "/more.xml"), "text/xml"),
            "/pages.xml.gz": text(gzip.compress(urlset(f"{base}/a", f"{base}/b")), None),
            "/more.xml": text(gzip.compress(urlset("/c")), "application/octet-stream"),
            "/a": page("A"),
            "/b": page("B", ["/more.xml"]),
            "/c": page("C"),
        }
    )
    try:
        report = crawl(fetcher, server.url("/"))
        paths = server.paths()
    finally:
        server.close()
    assert docs_of("site") == {"index.md", "a.md", "b.md", "c.md"}
    for sitemap in ("/sitemap_index.xml", "/nested.xml", "/pages.xml.gz", "/more.xml", "/missing.xml"):
        assert paths.count(sitemap) == 1, sitemap
    warnings = {w.path: w.error for w in report.warnings}
    assert warnings == {f"{base}/missing.xml": "HTTP 404"}
    assert not report.errors
    # A page linking a sitemap does not make it a page.
    assert skips(report)[f"{base}/more.xml"][0] == "discovery-file"
    data = report.to_json()
    assert data["warnings"] == [{"path": f"{base}/missing.xml", "error": "HTTP 404"}]


def test_broken_declared_sitemaps_are_warnings_and_the_crawl_goes_on(fetcher, docmunch_home):
    server = serve({"/": page("Home")})
    base = server.base
    server.routes.update(
        {
            "/robots.txt": text(
                f"Sitemap: {base}/html.xml\nSitemap: {base}/broken.xml.gz\nSitemap: mailto:x\n"
            ),
            "/html.xml": page("Soft 404"),
            "/broken.xml.gz": text(b"\x1f\x8b\x08\x00garbage", None),
        }
    )
    try:
        report = crawl(fetcher, server.url("/"))
    finally:
        server.close()
    warnings: dict[str, str] = {}
    for w in report.warnings:
        warnings[w.path] = warnings.get(w.path, "") + w.error + "; "
    assert "not a sitemap" in warnings[f"{base}/html.xml"]
    assert "gzip" in warnings[f"{base}/broken.xml.gz"]
    assert report.docs_indexed == 1 and not report.errors


def test_guessed_sitemap_and_llms_txt_may_be_absent_silently(fetcher, docmunch_home):
    server = serve({"/": page("Home")})
    try:
        report = crawl(fetcher, server.url("/"))
        paths = server.paths()
    finally:
        server.close()
    assert {"/robots.txt", "/llms.txt", "/llms-full.txt", "/sitemap.xml"} <= set(paths)
    assert report.warnings == () and report.docs_indexed == 1


# --- redirects and once-per-run -------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 4])
def test_two_url_redirect_loop_is_named_and_each_url_requested_once(fetcher, docmunch_home, workers):
    server = serve(
        {
            "/": page("Home", ["/a", "/b"]),
            "/a": redirect("/b"),
            "/b": redirect("/a"),
        }
    )
    try:
        report = crawl(fetcher, server.url("/"), concurrency=workers)
        paths = server.paths()
    finally:
        server.close()
    assert paths.count("/a") == 1 and paths.count("/b") == 1
    # Whichever load met the loop (one load alone, or both at once, each stopping at the URL the
    # other had claimed), both URLs are named as a loop.
    skipped = skips(report)
    assert skipped[server.url("/a")] == ("redirect-loop", "redirect loop: /a → /b → /a")
    assert skipped[server.url("/b")] == ("redirect-loop", "redirect loop: /b → /a → /b")
    assert not report.errors


def test_trailing_slash_and_canonical_loop_stores_the_page_once(fetcher, docmunch_home):
    canonical = '<link rel="canonical" href="/guide">'
    server = serve(
        {
            "/": page("Home", ["/guide", "/guide/"]),
            "/guide": redirect("/guide/", 301),
            "/guide/": page("Guide", extra_head=canonical),
        }
    )
    try:
        report = crawl(fetcher, server.url("/"))
        paths = server.paths()
    finally:
        server.close()
    assert docs_of("site") == {"index.md", "guide/index.md"}
    assert paths.count("/guide/") == 1 and paths.count("/guide") <= 1
    assert not report.errors


def test_redirect_to_a_url_fetched_already_is_not_fetched_again(docmunch_home):
    server = serve(
        {
            "/": page("Home", ["/new", "/old"]),
            "/old": redirect("/new"),
            "/new": page("New"),
        }
    )
    with Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False) as fetcher:
        try:
            report = crawl(fetcher, server.url("/"), concurrency=1)
            paths = server.paths()
        finally:
            server.close()
    assert paths.count("/new") == 1
    assert skips(report)[server.url("/old")] == (
        "duplicate",
        f"redirects to {server.url('/new')}: {server.url('/new')} was already fetched in this run",
    )


def test_too_large_and_asset_links_are_skips(docmunch_home):
    server = serve(
        {
            "/": page("Home", ["/big", "/logo.png", "/style.css", "/guide.pdf"]),
            "/big": text("x" * 5000, "text/html"),
        }
    )
    fetcher = Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False, max_bytes=4000)
    with fetcher:
        try:
            report = crawl(fetcher, server.url("/"))
            paths = server.paths()
        finally:
            server.close()
    skipped = skips(report)
    assert skipped[server.url("/big")][0] == "too-large"
    assert {skipped[server.url(p)] for p in ("/logo.png", "/style.css")} == {
        ("asset", "a .png file"),
        ("asset", "a .css file"),
    }
    assert "/logo.png" not in paths


# --- discovery files are never pages --------------------------------------------------------------


@pytest.fixture
def listing_server(tmp_path: Path) -> Iterator[str]:
    """Python's own static file server (with its directory listing) over a small folder."""
    root = tmp_path / "files"
    root.mkdir()
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    (root / "llms.txt").write_text("# Files\n\n- [Guide](guide.html)\n")
    (root / "sitemap.xml").write_bytes(urlset())
    (root / "guide.html").write_bytes(page("Guide").body)
    (root / "notes.md").write_text("# Notes\n\nSome notes.\n")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_directory_listing_linking_robots_txt_does_not_store_it(listing_server, fetcher, docmunch_home):
    report = crawl(fetcher, listing_server + "/")
    docs = docs_of("site")
    assert {"guide.md", "notes.md"} <= docs
    assert not {"robots.md", "llms.md", "sitemap.md"} & docs
    skipped = skips(report)
    for name in ("robots.txt", "llms.txt", "sitemap.xml"):
        assert skipped[f"{listing_server}/{name}"][0] == "discovery-file", name


# --- the report through the CLI ---------------------------------------------------------------------


def test_cli_json_report_lists_every_skip_with_its_reason(docmunch_home, capsys):
    from docmunch.cli import main

    server = serve(
        {
            "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
            "/": page("Home", ["/private/a", "/img.png", "https://elsewhere.example/", "/a", "/b"]),
            "/a": redirect("/b"),
            "/b": redirect("/a"),
        }
    )
    try:
        code = main(["index", server.url("/"), "--crawl", "--allow-private", "--json", "--repo", "r"])
        out = json.loads(capsys.readouterr().out)
        human = main(["index", server.url("/"), "--crawl", "--allow-private", "--repo", "r"])
        err = capsys.readouterr().err
    finally:
        server.close()
    assert code == 0 and human == 0
    by_path = {s["path"]: s for s in out["skipped"]}
    assert by_path[server.url("/private/a")]["reason"] == "robots"
    assert by_path[server.url("/img.png")]["reason"] == "asset"
    assert by_path["https://elsewhere.example/"]["reason"] == "scope"
    assert by_path[server.url("/a")] == {
        "path": server.url("/a"),
        "reason": "redirect-loop",
        "detail": "redirect loop: /a → /b → /a",
    }
    assert out["docs_skipped"] == len(out["skipped"])
    assert f"docmunch: skipped {server.url('/a')}: redirect-loop (redirect loop: /a → /b → /a)" in err
