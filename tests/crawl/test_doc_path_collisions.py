"""Several URLs of one site that map to one ``doc_path`` (user trial 17), on a real loopback server.

``/coll/page.html``, ``page.htm``, ``page.md`` and ``page/`` hold four *different* pages, and
``/coll/index.md`` is not ``/coll/``; every answer carries the same strong ``ETag`` (one per
static-site build), so validators sent to the wrong URL get a 304 and keep the wrong page.

- Validators are sent only to the URL they were stored from, never to another URL that maps to
  the same ``doc_path``, nor to a redirect target.
- A crawl lists every URL it does not store in ``skipped``: the spellings of a page it folds
  into one document (``x.md``, ``x.htm``, ``x/`` of ``x.html``) and pages whose ``doc_path``
  another URL of the run already holds, each naming that URL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from docmunch.cli import main
from docmunch.index import Index
from docmunch.sources.crawl import crawl_site
from docmunch.sources.web import index_url
from tests.crawl.routes import html, page, redirect, serve
from tests.web.siteserver import Reply, SiteServer

BUILD = '"build-2026-11-02"'
LINKS = ["page.html", "page.md", "page.htm", "page/", "index.md"]


def markdown(body: str) -> Reply:
    return Reply(200, {"Content-Type": "text/markdown; charset=utf-8", "ETag": BUILD}, body.encode())


@pytest.fixture
def coll() -> Iterator[SiteServer]:
    server = serve(
        {
            "/coll/": page("Coll Home", LINKS, etag=BUILD),
            "/coll/page.html": page("Title from page.html", etag=BUILD),
            "/coll/page.htm": page("Title from page.htm", etag=BUILD),
            "/coll/page/": page("Title from page index", etag=BUILD),
            "/coll/page.md": markdown("# Markdown page.md\n\nunique markdown content\n"),
            "/coll/index.md": markdown("# Markdown index.md\n\nunique index md content\n"),
        }
    )
    yield server
    server.close()


def conditional(server: SiteServer, path: str) -> list[tuple[str | None, str | None]]:
    """``(If-None-Match, If-Modified-Since)`` of every request for ``path``."""
    return [
        (h.headers.get("if-none-match"), h.headers.get("if-modified-since"))
        for h in server.hits
        if h.path == path
    ]


def test_validators_of_one_url_are_never_sent_to_another_url_of_the_same_doc_path(coll, docmunch_home):
    with Index.open() as index:
        first = index_url(index, coll.url("/coll/page.md"), repo="coll2", allow_private=True)
        second = index_url(index, coll.url("/coll/page.htm"), repo="coll2", allow_private=True)
        titles = [s.title for s in index.toc("coll2", "coll/page.md")]
    assert first.docs_indexed == 1
    assert conditional(coll, "/coll/page.htm") == [(None, None)]  # page.md's ETag stayed home
    assert (second.docs_indexed, second.docs_unchanged) == (1, 0)
    assert titles[0] == "Title from page.htm"
    assert [(w.path, w.error) for w in second.warnings] == [
        (
            coll.url("/coll/page.htm"),
            f"replaced coll/page.md, stored from {coll.url('/coll/page.md')} (another URL of this origin)",
        )
    ]
    # the page's own URL again: its own validators, a 304
    with Index.open() as index:
        third = index_url(index, coll.url("/coll/page.htm"), repo="coll2", allow_private=True)
    assert conditional(coll, "/coll/page.htm")[-1] == (BUILD, None)
    assert (third.docs_indexed, third.docs_unchanged) == (0, 1)


def test_validators_are_not_sent_on_to_a_redirect_target(docmunch_home):
    server = serve({"/a": page("Page A", etag=BUILD)})
    try:
        with Index.open() as index:
            index_url(index, server.url("/a"), repo="r", allow_private=True)
            server.routes["/a"] = redirect("/b")  # the page moved; its new home has the same ETag
            server.routes["/b"] = page("Page B", etag=BUILD)
            again = index_url(index, server.url("/a"), repo="r", allow_private=True)
            titles = [s.title for s in index.toc("r", "a.md")]
    finally:
        server.close()
    assert conditional(server, "/b") == [(None, None)]
    assert (again.docs_indexed, again.docs_unchanged) == (1, 0)
    assert titles[0] == "Page B"


def test_crawl_lists_every_url_of_a_shared_doc_path_in_skipped(coll, docmunch_home, capsys):
    argv = ["index", coll.url("/coll/"), "--crawl", "--allow-private", "--repo", "coll3", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    skipped = {s["path"]: (s["reason"], s["detail"]) for s in report["skipped"]}
    home, first = coll.url("/coll/"), coll.url("/coll/page.html")
    assert report["docs_indexed"] == 2
    for spelling in ("/coll/page.md", "/coll/page.htm", "/coll/page/"):
        assert skipped[coll.url(spelling)] == (
            "duplicate",
            f"not requested: another spelling of {first}, stored in this run as coll/page.md",
        ), spelling
        assert conditional(coll, spelling) == []
    # index.md is requested without /coll/'s validators, then not stored over /coll/
    assert conditional(coll, "/coll/index.md") == [(None, None)]
    assert skipped[coll.url("/coll/index.md")] == (
        "duplicate",
        f"same doc_path coll/index.md as {home}, stored already in this run",
    )
    assert report["docs_skipped"] == len(report["skipped"]) == 4
    with Index.open() as index:
        assert {d.doc_path for d in index.list_docs("coll3")} == {"coll/index.md", "coll/page.md"}
        assert index.toc("coll3", "coll/page.md")[0].title == "Title from page.html"
    # a second crawl: each stored page's own validators (304s), the same report
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["docs_indexed"], again["docs_unchanged"]) == (0, 2)
    assert conditional(coll, "/coll/page.html")[-1] == (BUILD, None)
    assert conditional(coll, "/coll/index.md")[-1] == (None, None)
    assert {s["path"]: (s["reason"], s["detail"]) for s in again["skipped"]} == skipped


def test_a_spelling_that_is_fetched_through_a_redirect_is_no_skip(docmunch_home):
    # "/x" (queued first) redirects to "/x/", which another page links too: "/x/" is stored, not skipped
    server = serve(
        {
            "/": page("Home", ["/x", "/other"]),
            "/other": page("Other", ["/x/"]),
            "/x": redirect("/x/"),
            "/x/": Reply(200, {"Content-Type": "text/html; charset=utf-8"}, html("Folder page")),
        }
    )
    try:
        with Index.open() as index:
            from docmunch.sources.crawl import crawl_site

            report = crawl_site(index, server.url("/"), repo="x", allow_private=True, concurrency=1)
            docs = {d.doc_path for d in index.list_docs("x")}
    finally:
        server.close()
    assert "x/index.md" in docs
    assert server.url("/x/") not in report.skipped_paths
    assert server.paths().count("/x/") == 1


def test_a_crawl_follows_the_links_of_a_markdown_page(docmunch_home):
    """A page served as ``text/markdown`` is crawled on through its links, inline, reference and
    autolinks alike, as an HTML page is (a second trial: only the start page was indexed)."""
    start = "# Start\n\nSee [one](one.md), [two][ref], <http://127.0.0.1:1/outside>.\n\n[ref]: sub/two.md\n"
    server = serve(
        {
            "/md/index.md": markdown(start),
            "/md/one.md": markdown("# One\n\nfirst page\n"),
            "/md/sub/two.md": markdown("# Two\n\nsecond page\n"),
        }
    )
    try:
        with Index.open() as index:
            report = crawl_site(index, server.url("/md/index.md"), repo="md", allow_private=True)
            docs = sorted(d.doc_path for d in index.list_docs("md"))
    finally:
        server.close()
    assert docs == ["md/index.md", "md/one.md", "md/sub/two.md"], report
