"""A pack does not carry the leave to fetch private addresses to the machine that imports it.

``index --allow-private`` records the leave in each page's meta so that ``refresh`` needs no flag
again (docs/cli.md). A pack is data from elsewhere: imported, its pages must ask for the leave
again, or a shared or crafted pack could make ``refresh`` request loopback or intranet addresses
the importing user never allowed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docmunch.cli import main
from docmunch.index import Index


def _meta(repo: str) -> list[dict[str, object]]:
    with Index.open() as index:
        states = [index.document_state(repo, doc.doc_path) for doc in index.list_docs(repo)]
    return [state.meta for state in states if state is not None]


def test_an_imported_pack_needs_allow_private_again(
    site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "exporter"))
    monkeypatch.delenv("DOCMUNCH_ALLOW_PRIVATE", raising=False)
    del site.server.routes["/docs/slow/"]  # the CLI's default read timeout is 30 s
    url = site.url("/docs/advanced/ssl/")
    args = ["--crawl", "--scope", site.url("/docs/advanced/"), "--max-pages", "3"]
    assert main(["index", url, *args, "--allow-private", "--repo", "intranet", "--json"]) == 0
    assert all(meta.get("allow_private") for meta in _meta("intranet"))
    pack = tmp_path / "intranet.dmpack"
    assert main(["export", "intranet", "-o", str(pack)]) == 0
    capsys.readouterr()

    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "importer"))
    assert main(["import", str(pack), "--json"]) == 0
    capsys.readouterr()
    metas = _meta("intranet")
    assert metas and not any("allow_private" in meta for meta in metas)
    assert all(meta.get("url") for meta in metas)  # the rest of the meta is kept

    before = len(site.server.paths())
    assert main(["refresh", "intranet", "--json"]) == 1  # refused: no leave on this machine
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] and report["docs_removed"] == 0
    assert len(site.server.paths()) == before  # nothing was requested
    with Index.open() as index:
        assert len(index.list_docs("intranet")) == len(metas)  # the stored pages are kept

    assert main(["refresh", "intranet", "--allow-private", "--json"]) == 0  # given here: fetched
    assert len(site.server.paths()) > before
