"""Site crawl and refresh against a real local docs site (see conftest.py for its traps)."""

from __future__ import annotations

import itertools
import shutil
import urllib.parse

from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from docmunch.sources.page import doc_path_for
from docmunch.sources.refresh import refresh_repo


def expected_docs(site) -> set[str]:
    allowed = [p for p in site.pages if p != site.disallowed]
    return {doc_path_for(site.url(f"/docs/{p}")) for p in allowed} | {"docs/extra.md"}


def skips(report) -> dict[str, tuple[str, str]]:
    """``{url: (reason, detail)}`` of a report's skipped URLs."""
    return {
        path: (reason, detail)
        for path, reason, detail in zip(
            report.skipped_paths, report.skipped_reasons, report.skipped_details, strict=True
        )
    }


def crawl(site, fetcher, **kwargs):
    with Index.open() as index:
        report = crawl_site(index, site.url("/docs/"), repo="site", fetcher=fetcher, **kwargs)
        docs = {d.doc_path for d in index.list_docs("site")}
    return report, docs


def test_crawl_indexes_exactly_the_allowed_in_scope_pages(site, fetcher, docmunch_home):
    report, docs = crawl(site, fetcher)
    assert docs == expected_docs(site)
    assert report.docs_indexed == len(docs)
    paths = site.server.paths()
    assert "/blog/" not in paths  # off scope: never fetched
    assert f"/docs/{site.disallowed}" not in paths  # robots.txt: never fetched
    assert paths.count("/docs/advanced/ssl/") == 1  # /docs/dup/ names it canonical: stored once
    assert paths[0] == "/robots.txt"
    failed = {e.path: e.error for e in report.errors}
    assert "404" in failed[site.url("/docs/missing/")]
    assert "timed out" in failed[site.url("/docs/slow/")]
    assert all(path.startswith(site.url("/docs/")) for path in failed)
    skipped = skips(report)
    assert skipped[site.url("/docs/loop/a")] == (
        "redirect-loop", "redirect loop: /docs/loop/a → /docs/loop/b → /docs/loop/a"
    )
    assert paths.count("/docs/loop/a") == paths.count("/docs/loop/b") == 1  # each URL once per run
    assert skipped[site.url(f"/docs/{site.disallowed}")][0] == "robots"
    original = site.url("/docs/advanced/ssl/")
    assert skipped[site.url("/docs/dup/")] == ("canonical", f"its canonical URL is {original}")
    assert skipped[site.url("/blog/")] == ("scope", f"outside the scope {site.url('/docs/')}")
    assert report.docs_skipped == len(report.skipped_paths) >= 4


def test_crawl_honours_crawl_delay(site, fetcher, docmunch_home):
    crawl(site, fetcher, concurrency=4)
    times = sorted(h.at for h in site.server.hits[1:])  # after robots.txt set the rate
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(gaps) > 10
    # The k-th request cannot leave before k delays have passed (timestamps taken at the server;
    # a thread woken late can shorten one gap, so single gaps get half a delay of slack).
    assert times[-1] - times[0] >= len(gaps) * site.crawl_delay * 0.98
    assert min(gaps) >= site.crawl_delay / 2, min(gaps)


def test_max_pages_stops_the_crawl_and_keeps_the_index(site, fetcher, docmunch_home):
    report, docs = crawl(site, fetcher, max_pages=3)
    assert report.docs_indexed + len(report.errors) <= 3
    assert 1 <= len(docs) <= 3
    not_fetched = [u for u, (reason, _d) in skips(report).items() if reason == "max-pages"]
    assert not_fetched and all(urllib.parse.urlsplit(u).path not in site.server.paths() for u in not_fetched)
    assert skips(report)[not_fetched[0]][1] == "the crawl stopped at 3 pages"


def test_markdown_page_from_llms_txt_is_stored_as_is(site, fetcher, docmunch_home):
    crawl(site, fetcher)
    with Index.open() as index:
        sections = index.toc("site", "docs/extra.md")
        read = index.get_section("site", sections[-1].id)
    assert [s.title for s in sections] == ["Extra", "Details"]
    assert read.content == "## Details\n\nMore.\n"
    assert sections[0].locator == {"url": site.url("/docs/extra.md")}


def test_refresh_costs_one_conditional_request_per_unchanged_page(site, fetcher, docmunch_home):
    _report, docs = crawl(site, fetcher)
    before = len(site.server.hits)
    with Index.open() as index:
        again = refresh_repo(index, "site", fetcher=fetcher)
    hits = site.server.hits[before:]
    assert again.docs_unchanged == len(docs) and again.docs_indexed == 0 and not again.errors
    assert len(hits) == len(docs)  # one request per page
    assert all(h.status == 304 and "if-none-match" in h.headers for h in hits)

    gone = site.root / "docs" / "environment_variables"
    shutil.rmtree(gone)
    with Index.open() as index:
        third = refresh_repo(index, "site", fetcher=fetcher)
        left = {d.doc_path for d in index.list_docs("site")}
    assert third.docs_removed == 1
    assert left == docs - {"docs/environment_variables/index.md"}


def test_full_recrawl_removes_pages_gone_from_the_site(site, fetcher, docmunch_home):
    crawl(site, fetcher)
    (site.root / "docs" / "extra.md").unlink()
    llms = site.root / "docs" / "llms.txt"
    llms.write_text(llms.read_text().replace("- [Extra](extra.md): a Markdown page\n", ""))
    report, docs = crawl(site, fetcher)
    assert "docs/extra.md" not in docs
    assert report.docs_removed == 1
    assert report.docs_unchanged == len(docs)  # everything else answered 304


def test_cli_crawl_and_refresh(site, docmunch_home, capsys):
    import json

    from docmunch.cli import main

    del site.server.routes["/docs/slow/"]  # the CLI's default read timeout is 30 s
    url = site.url("/docs/advanced/")
    code = main(
        [
            "index",
            url,
            "--crawl",
            "--allow-private",
            "--scope",
            site.url("/docs/"),
            "--json",
            "--repo",
            "cli",
            "--concurrency",
            "2",
            "--max-pages",
            "50",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["docs_indexed"] == len(expected_docs(site))  # --scope widened the start folder
    assert main(["refresh", "cli", "--allow-private", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["docs_unchanged"] == report["docs_indexed"] and again["docs_indexed"] == 0
    assert main(["refresh", "nope"]) == 1
    assert "unknown repo 'nope'" in capsys.readouterr().err


def test_byte_budget_stops_scheduling_and_keeps_stored_pages(site, fetcher, docmunch_home):
    report, docs = crawl(site, fetcher, max_total_bytes=1, concurrency=1)
    assert len(docs) == report.docs_indexed == 1  # the first page passes the budget
    assert any("byte budget" in w.error for w in report.warnings) and not report.errors
    assert "byte-budget" in set(report.skipped_reasons)
    again, docs_again = crawl(site, fetcher, max_total_bytes=1, concurrency=1)
    # A 304 downloads no body, so the re-crawl gets one page further; a cut-short crawl removes nothing.
    assert docs_again > docs and again.docs_removed == 0


def test_canonical_without_trailing_slash_that_redirects_back_is_still_stored(fetcher, docmunch_home):
    from tests.web.siteserver import Reply, SiteServer

    server = SiteServer()
    words = "<p>" + "Words of the page body, long enough to be its main content. " * 6 + "</p>"
    page = (
        f'<html><head><title>S</title><link rel="canonical" href="/s"></head><body><h1 id="s">S</h1>{words}'
    )
    server.routes["/s/"] = Reply(body=(page + "</body></html>").encode())
    server.routes["/s"] = Reply(301, {"Location": "/s/"})
    try:
        with Index.open() as index:
            report = crawl_site(index, server.url("/s/"), repo="s", scope=server.url("/"), fetcher=fetcher)
            docs = {d.doc_path for d in index.list_docs("s")}
    finally:
        server.close()
    assert docs == {"s/index.md"} and report.docs_indexed == 1
