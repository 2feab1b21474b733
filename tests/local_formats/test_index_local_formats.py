"""rst, MDX and notebooks go through the real index: ids, verify against the originals."""

from __future__ import annotations

import shutil
from pathlib import Path

from docmunch.index import Index

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "local-formats"


def test_local_formats_index_and_verify(tmp_path: Path, docmunch_home: Path) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(HERE, folder)
    with Index.open() as index:
        report = index.index_path(folder, repo="lf")
        assert report.errors == () or list(report.errors) == []
        assert report.docs_indexed == 4
        ids = {s.id for s in index.toc("lf")}
        assert "lf::configuration.rst::configuration/loading-order/environment-variables#3" in ids
        assert "lf::tabs.mdx::install/macos#2" in ids
        assert "lf::loading-data.ipynb::loading-data/cleaning#2" in ids
        verify = index.verify_repo("lf")
        assert verify.ok and verify.originals_checked == 3  # rst x2 and mdx are the user's bytes
        read = index.get_section("lf", "lf::crlf.rst::title-a/title-b#2", verify=True)
        assert read.verified is True
        assert read.to_json()["content"] == "Title B\r\n-------\r\n\r\nBody B.\r\n"
        hits = index.search("package manager", repo="lf")
        assert hits and hits[0].id == "lf::tabs.mdx::install/linux#2"
        located = index.locate("lf", "lf::loading-data.ipynb::loading-data/cleaning#2")
        cells = [p["index"] for p in located["locator"]["positions"]]
        assert cells == [3, 4]
        # tamper with the user's rst: verify names the original as the mismatch
        (folder / "crlf.rst").write_bytes((folder / "crlf.rst").read_bytes().replace(b"Body B", b"Body X"))
        verify = index.verify_repo("lf")
        assert not verify.ok
        assert {(m.doc_path, m.where) for m in verify.mismatches} == {("crlf.rst", "original")}
