"""Site crawl throughput: pages/s at concurrency 1 and 4 against a local static server.

The server (``tests/web/siteserver.py``) serves every ``docs-sites/`` fixture (62 real pages of
MkDocs-Material, Sphinx, Docusaurus and VitePress sites) under one origin with a generated
``sitemap.xml``; links to pages outside the fixtures answer 404 (counted, as a real crawl would
meet them). Each run crawls into a fresh index, so every page is fetched, extracted, converted
and stored. Two network conditions: loopback as is (CPU-bound: extraction dominates, threads
share one GIL) and a simulated 50 ms round trip per request (where concurrency pays off).

Beside it, robots.txt matching: docmunch's RFC 9309 matcher against the standard library's
first-match ``urllib.robotparser`` (the parser it replaced) on one 60-rule robots.txt and 2,000
URLs — the cost every discovered URL pays.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
import urllib.robotparser
from pathlib import Path
from typing import Any

from rich.table import Table

from docmunch.fetch import Fetcher
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from docmunch.sources.robots import Robots

_ROOT = Path(__file__).resolve().parent.parent
LATENCIES_MS = (0, 50)
CONCURRENCY = (1, 4)


def _siteserver() -> Any:
    name = "docmunch_test_siteserver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _ROOT / "tests" / "web" / "siteserver.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _pages(root: Path) -> list[str]:
    """URL paths of every fixture page (``…/index.html`` served as its folder)."""
    paths = []
    for page in sorted(root.rglob("*.html")):
        rel = page.relative_to(root).as_posix()
        paths.append("/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel))
    return paths


def _crawl(server: Any, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="docmunch-bench-") as home, Index.open(Path(home)) as index:
        fetcher = Fetcher(
            allow_private=True,
            rate_per_host=None,
            retries=0,
            trust_env=False,
            concurrency_per_host=concurrency,
        )
        with fetcher:
            started = time.perf_counter()
            report = crawl_site(
                index, server.url("/"), repo="bench", concurrency=concurrency, max_pages=2000, fetcher=fetcher
            )
            seconds = time.perf_counter() - started
    return {
        "concurrency": concurrency,
        "pages": report.docs_indexed,
        "failed": len(report.errors),
        "skipped": report.docs_skipped,
        "seconds": round(seconds, 3),
        "pages_per_s": round(report.docs_indexed / seconds, 2),
        "requests_per_s": round((report.docs_indexed + len(report.errors)) / seconds, 2),
    }


def run(fixtures: Path) -> dict[str, Any]:
    """Crawl the docs-sites fixtures at each latency × concurrency; returns the measured rows."""
    module = _siteserver()
    root = fixtures / "docs-sites"
    pages = _pages(root)
    server = module.SiteServer(root)
    try:
        urls = "".join(f"<url><loc>{server.url(p)}</loc></url>" for p in pages)
        sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        server.routes["/sitemap.xml"] = module.Reply(
            200, {"Content-Type": "application/xml"}, sitemap.encode()
        )
        rows = []
        for latency in LATENCIES_MS:
            server.latency = latency / 1000
            for concurrency in CONCURRENCY:
                rows.append({"latency_ms": latency, **_crawl(server, concurrency)})
    finally:
        server.close()
    return {"fixture_pages": len(pages), "rows": rows, "robots_match": _robots_match()}


def _robots_match() -> dict[str, Any]:
    """Microseconds per ``allowed(url)``: docmunch's matcher vs ``urllib.robotparser``."""
    lines = ["User-agent: *", "Disallow: /", "Allow: /docs/"]
    lines += [f"Disallow: /docs/private-{i}/" for i in range(30)]
    lines += ["Allow: /docs/*.html$" if i == 0 else f"Disallow: /*.tmp{i}$" for i in range(27)]
    text = "\n".join(lines) + "\n"
    urls = [f"https://ex.org/docs/section-{i % 40}/page-{i}.html?x={i % 7}" for i in range(2000)]
    ours = Robots.parse(text)
    stdlib = urllib.robotparser.RobotFileParser()
    stdlib.parse(text.splitlines())
    timings = {}
    for name, check in (("docmunch", ours.allowed), ("stdlib", lambda u: stdlib.can_fetch("docmunch", u))):
        started = time.perf_counter()
        for _ in range(5):
            for url in urls:
                check(url)
        timings[name] = round((time.perf_counter() - started) / (5 * len(urls)) * 1e6, 2)
    return {"rules": len(ours.rules), "urls": len(urls), "us_per_url": timings}


def table(result: dict[str, Any]) -> Table:
    """One row per (latency, concurrency)."""
    out = Table(title=f"site crawl throughput ({result['fixture_pages']} fixture pages, loopback server)")
    for column in (
        "latency", "concurrency", "pages", "404/failed", "skipped", "seconds", "pages/s", "requests/s"
    ):
        out.add_column(column, justify="right")
    for row in result["rows"]:
        out.add_row(
            f"{row['latency_ms']} ms",
            str(row["concurrency"]),
            str(row["pages"]),
            str(row["failed"]),
            str(row.get("skipped", "")),
            f"{row['seconds']:.2f}",
            f"{row['pages_per_s']:.1f}",
            f"{row['requests_per_s']:.1f}",
        )
    match = result.get("robots_match")
    if match:
        timing = match["us_per_url"]
        out.caption = (
            f"robots.txt matching ({match['rules']} rules): docmunch RFC 9309 {timing['docmunch']} µs/URL, "
            f"urllib.robotparser (first match) {timing['stdlib']} µs/URL"
        )
    return out
