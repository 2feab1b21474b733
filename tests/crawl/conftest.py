"""A docs site (httpx MkDocs-Material pages under ``/docs/``) on a real loopback server.

Built per test in a temp folder from ``$DOCMUNCH_FIXTURES/docs-sites/httpx-mkdocs-material``
plus: a generated ``sitemap.xml``, a ``robots.txt`` that disallows one folder and sets a
Crawl-delay, an ``llms.txt`` (with a Markdown page and an off-scope link), a redirect loop, a
404, a slow page, and a copy of a page whose ``rel=canonical`` names the original.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from docmunch.fetch import Fetcher
from tests.web import siteserver  # shared loopback server helper

CRAWL_DELAY = 0.1
PAGES = [
    "",
    "advanced/authentication/",
    "advanced/extensions/",
    "advanced/ssl/",
    "advanced/transports/",
    "code_of_conduct/",
    "environment_variables/",
    "third_party_packages/",
]
DISALLOWED = "code_of_conduct/"


@dataclass
class Site:
    server: object
    root: Path
    """Folder served at ``/`` (the pages live in ``root/docs``)."""
    pages: tuple[str, ...] = tuple(PAGES)
    disallowed: str = DISALLOWED
    crawl_delay: float = CRAWL_DELAY

    def url(self, path: str) -> str:
        return self.server.url(path)  # type: ignore[attr-defined]


def build_site(fixtures_dir: Path, root: Path, base: str) -> None:
    """Write the site's files under ``root`` for a server at ``base`` (``http://127.0.0.1:PORT``)."""
    shutil.copytree(fixtures_dir / "docs-sites" / "httpx-mkdocs-material", root / "docs")
    (root / "blog").mkdir()
    (root / "blog" / "index.html").write_text("<html><body><h1>Blog</h1><p>Off scope.</p></body></html>")
    (root / "docs" / "extra.md").write_text("# Extra\n\nA Markdown page.\n\n## Details\n\nMore.\n")
    listed = [*PAGES, "missing/", "loop/a", "slow/", "dup/"]
    urls = "".join(f"<url><loc>{base}/docs/{p}</loc></url>" for p in listed)
    (root / "docs" / "sitemap.xml").write_text(
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    (root / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /docs/{DISALLOWED}\nCrawl-delay: {CRAWL_DELAY}\n"
        f"Sitemap: {base}/docs/sitemap.xml\n"
    )
    (root / "docs" / "llms.txt").write_text(
        "# HTTPX\n\n> Docs.\n\n## Pages\n\n"
        f"- [Extra](extra.md): a Markdown page\n- [Auth]({base}/docs/advanced/authentication/)\n"
        f"- [Blog]({base}/blog/): off scope\n"
    )


@pytest.fixture
def site(fixtures_dir: Path, tmp_path: Path) -> Iterator[Site]:
    root = tmp_path / "site"
    root.mkdir()
    server = siteserver.SiteServer(root)
    build_site(fixtures_dir, root, server.base)
    reply = siteserver.Reply
    server.routes["/docs/loop/a"] = reply(302, {"Location": "/docs/loop/b"})
    server.routes["/docs/loop/b"] = reply(302, {"Location": "/docs/loop/a"})
    server.routes["/docs/slow/"] = reply(200, body=b"<html><body><p>late</p></body></html>", delay=2.0)
    ssl_page = (root / "docs" / "advanced" / "ssl" / "index.html").read_text()
    dup = re.sub(
        r'<link rel="canonical" href="[^"]*">',
        f'<link rel="canonical" href="{server.base}/docs/advanced/ssl/">',
        ssl_page,
    )
    server.routes["/docs/dup/"] = reply(200, body=dup.encode())
    yield Site(server, root)
    server.close()


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    """Loopback allowed, short read timeout (the slow page must fail), no retries, no default rate."""
    with Fetcher(allow_private=True, timeout=(1.0, 0.5), retries=0, rate_per_host=None, trust_env=False) as f:
        yield f
