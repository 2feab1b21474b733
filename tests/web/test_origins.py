"""Two sites on two ports of 127.0.0.1: one origin's data never stands in for the other's.

Both sites answer ``/`` with the same strong ``ETag`` (as two copies of one static-site build
do) but different pages, so a validator sent to the wrong origin would get a 304 and keep the
wrong page: the bug of issue 14.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from docmunch.cli import main
from docmunch.fetch import Fetcher, origin_of
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from docmunch.sources.refresh import refresh_repo
from docmunch.sources.web import index_url
from tests.crawl.routes import page, serve, text
from tests.web.siteserver import SiteServer

ETAG = '"build-2026-11-02"'


@pytest.fixture
def two_sites() -> Iterator[tuple[SiteServer, SiteServer]]:
    a = serve({"/": page("Alpha home", ["/a-only"], etag=ETAG), "/a-only": page("Alpha only", etag='"a1"')})
    b = serve({"/": page("Bravo home", etag=ETAG)})
    yield a, b
    a.close()
    b.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def test_default_repos_of_two_ports_are_two_repos(two_sites, docmunch_home, capsys):
    a, b = two_sites
    code_a, report_a = run(capsys, "index", a.url("/"), "--crawl", "--allow-private", "--json")
    code_b, report_b = run(capsys, "index", b.url("/"), "--allow-private", "--json")
    assert (code_a, code_b) == (0, 0)
    assert report_a["repo"] == f"127.0.0.1:{a.port}" and report_b["repo"] == f"127.0.0.1:{b.port}"
    assert report_b["docs_indexed"] == 1
    assert "if-none-match" not in b.hits[0].headers  # nothing of site A was sent to site B
    with Index.open() as index:
        for server, repo, title in ((a, report_a["repo"], "Alpha home"), (b, report_b["repo"], "Bravo home")):
            sections = index.toc(repo, "index.md")
            assert sections[0].title == title
            assert index.locate(repo, sections[0].id)["locator"]["url"] == server.url("/")


def test_one_repo_for_two_origins_never_reuses_the_other_origins_validators(two_sites, docmunch_home):
    a, b = two_sites
    with Index.open() as index:
        index_url(index, a.url("/"), repo="shared", allow_private=True)
        second = index_url(index, b.url("/"), repo="shared", allow_private=True)
        sections = index.toc("shared", "index.md")
        located = index.locate("shared", sections[0].id)
    assert "if-none-match" not in b.hits[0].headers and b.hits[0].status == 200
    assert second.docs_indexed == 1 and second.docs_unchanged == 0
    assert sections[0].title == "Bravo home" and located["locator"]["url"] == b.url("/")
    assert [(w.path, w.error) for w in second.warnings] == [
        (b.url("/"), f"replaced index.md, stored from {a.url('/')} (another origin)")
    ]
    # refresh re-checks the page at the origin it now comes from, with that origin's validators.
    before_a = len(a.hits)
    with Index.open() as index:
        again = refresh_repo(index, "shared", allow_private=True)
    assert again.docs_unchanged == 1 and again.docs_indexed == 0
    assert b.hits[-1].headers.get("if-none-match") == ETAG and b.hits[-1].status == 304
    assert len(a.hits) == before_a


def test_a_full_crawl_of_one_origin_removes_nothing_of_another(two_sites, docmunch_home):
    a, b = two_sites
    fetcher = Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False)
    with fetcher, Index.open() as index:
        crawl_site(index, a.url("/"), repo="shared", fetcher=fetcher)
        report = crawl_site(index, b.url("/"), repo="shared", fetcher=fetcher)
        docs = {d.doc_path for d in index.list_docs("shared")}
    assert report.docs_removed == 0
    assert "a-only.md" in docs  # site A's page, outside site B's scope, stays


def test_robots_and_crawl_delay_are_per_origin(docmunch_home):
    a = serve({"/robots.txt": text("User-agent: *\nDisallow: /\nCrawl-delay: 2\n"), "/": page("A")})
    b = serve({"/": page("B", ["/b2"]), "/b2": page("B2")})
    with Fetcher(allow_private=True, retries=0, rate_per_host=None, trust_env=False) as fetcher:
        try:
            with Index.open() as index:
                first = crawl_site(index, a.url("/"), repo="a", fetcher=fetcher)
                second = crawl_site(index, b.url("/"), repo="b", fetcher=fetcher)
        finally:
            a.close()
            b.close()
        key_a, key_b = (origin_of(s.url("/")).key for s in (a, b))  # type: ignore[union-attr]
        bucket_a = fetcher.limiter.rate_of(key_a)
        assert bucket_a is not None and bucket_a.rate == 0.5  # A's Crawl-delay: 2 s
        assert fetcher.limiter.rate_of(key_b) is None  # B keeps the fetcher's own (unlimited) rate
    assert first.docs_indexed == 0 and set(first.skipped_reasons) == {"robots"}
    assert a.url("/") in first.skipped_paths
    assert a.paths() == ["/robots.txt"]
    assert second.docs_indexed == 2  # A's "Disallow: /" did not stand in for B's absent robots.txt
    assert b.paths().count("/robots.txt") == 1
