"""A web run stopped mid-way (RunCancelled from the progress callback, as the MCP server raises
it; Ctrl-C and kill leave the same journal) is reported by the next index run of the repo, which
completes it; a refresh of the stored pages completes nothing and keeps the mark."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.errors import RunCancelled
from docmunch.index import Index, IndexReport
from docmunch.index.runlock import run_state
from docmunch.sources.page import Progress
from docmunch.sources.refresh import refresh_repo
from docmunch.sources.web import index_url
from tests.web.siteserver import SiteServer

PAGES = 8
WORDS = "Words of the page body, long enough to be its main content. " * 6


@pytest.fixture
def site(tmp_path: Path) -> Iterator[SiteServer]:
    """An index page linking to :data:`PAGES` pages."""
    root = tmp_path / "site"
    root.mkdir()
    links = "".join(f'<li><a href="/p{i}.html">Page {i}</a></li>' for i in range(PAGES))
    (root / "index.html").write_text(f"<html><body><h1>Home</h1><p>{WORDS}</p><ul>{links}</ul></body></html>")
    for i in range(PAGES):
        (root / f"p{i}.html").write_text(f"<html><body><h1>Page {i}</h1><p>{WORDS}</p></body></html>")
    server = SiteServer(root)
    yield server
    server.close()


def _stop_after(pages: int) -> Progress:
    def progress(done: int, total: int, _what: str) -> None:
        if done >= pages:
            raise RunCancelled("cancelled", done=done, total=total)

    return progress


def _crawl(index: Index, site: SiteServer, progress: Progress | None = None) -> IndexReport:
    return index_url(
        index, site.url("/"), repo="s", crawl=True, allow_private=True, concurrency=1, progress=progress
    )


def test_a_crawl_after_a_cancelled_crawl_reports_it_and_completes_the_repo(
    docmunch_home: Path, site: SiteServer
) -> None:
    with Index.open() as index:
        with pytest.raises(RunCancelled):
            _crawl(index, site, _stop_after(3))
        assert run_state(docmunch_home, "s") == "interrupted"
        assert len(index.list_docs("s")) == 3
        report = _crawl(index, site)
        assert report.interrupted_run is not None and report.interrupted_run["repo"] == "s"
        assert "interrupted_run" in report.to_json()
        assert run_state(docmunch_home, "s") is None
        assert len(index.list_docs("s")) == PAGES + 1
        assert _crawl(index, site).interrupted_run is None  # said once


def test_one_page_after_a_cancelled_one_reports_it(docmunch_home: Path, site: SiteServer) -> None:
    with Index.open() as index:
        with pytest.raises(RunCancelled):
            index_url(index, site.url("/p1.html"), repo="one", allow_private=True, progress=_stop_after(1))
        report = index_url(index, site.url("/p1.html"), repo="one", allow_private=True)
        assert report.interrupted_run is not None and run_state(docmunch_home, "one") is None


def test_refresh_after_a_cancelled_crawl_keeps_the_interrupted_mark(
    docmunch_home: Path, site: SiteServer
) -> None:
    with Index.open() as index:
        with pytest.raises(RunCancelled):
            _crawl(index, site, _stop_after(3))
        refreshed = refresh_repo(index, "s", allow_private=True)
        assert refreshed.docs_unchanged == 3 and refreshed.interrupted_run is None
        assert run_state(docmunch_home, "s") == "interrupted"  # still incomplete: list says so
        assert [v.last_run for v in index.list_repos() if v.repo == "s"] == ["interrupted"]
        assert any("refresh re-checks only the stored pages" in w.message for w in refreshed.warnings)
        completed = _crawl(index, site)
        assert completed.interrupted_run is not None and run_state(docmunch_home, "s") is None
        assert len(index.list_docs("s")) == PAGES + 1
        assert not refresh_repo(index, "s", allow_private=True).warnings  # nothing to say any more


def test_one_page_into_an_interrupted_crawl_keeps_the_mark(docmunch_home: Path, site: SiteServer) -> None:
    """One page of a repo that holds other pages completes no interrupted crawl: no
    interrupted_run, the mark stays, and a warning gives the whole command that completes it."""
    with Index.open() as index:
        with pytest.raises(RunCancelled):
            _crawl(index, site, _stop_after(3))
        report = index_url(index, site.url("/p5.html"), repo="s", allow_private=True)
        assert report.interrupted_run is None and "interrupted_run" not in report.to_json()
        assert run_state(docmunch_home, "s") == "interrupted"
        (warning,) = report.warnings
        command = f"docmunch index {site.url('/')} --repo s --crawl --allow-private"
        assert warning.message.endswith(f"so the repo stays incomplete: to complete it, run `{command}`")
        completed = _crawl(index, site)
        assert completed.interrupted_run is not None and run_state(docmunch_home, "s") is None


def test_refresh_of_an_interrupted_crawl_names_the_command_that_completes_it(
    docmunch_home: Path, site: SiteServer
) -> None:
    """The warning's command names the repo (without --repo it would make a new repo named
    after the host) and the private leave the pages were fetched with."""
    with Index.open() as index:
        with pytest.raises(RunCancelled):
            _crawl(index, site, _stop_after(3))
        refreshed = refresh_repo(index, "s")  # the leave comes from the stored pages
        (warning,) = refreshed.warnings
        command = f"docmunch index {site.url('/')} --repo s --crawl --allow-private"
        assert warning.message.endswith(
            "refresh re-checks only the stored pages, so the repo stays incomplete: "
            f"to complete it, run `{command}`"
        )
