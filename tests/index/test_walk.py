"""Folder walking rules: what gets indexed, what is silently ignored, what is skipped."""

from __future__ import annotations

import os
from pathlib import Path

from docmunch.index import Index
from docmunch.index.walk import walk

from .conftest import write

SUFFIXES = {".md", ".markdown", ".txt"}


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(
        root,
        {
            "index.md": "# Home\n\nWelcome.\n",
            "guide/Install.md": "# Install\n\nSteps.\n",
            "guide/install.md": "# install lower\n\nOther file, same name but case.\n",
            "notes.txt": "plain text\n",
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00",
            ".hidden/secret.md": "# no\n",
            ".draft.md": "# dotfile\n",
            "node_modules/pkg/README.md": "# dep\n",
            "_build/html.md": "# built\n",
            "site/page.md": "# built site\n",
            "target/doc.md": "# rust target\n",
            "__pycache__/x.md": "# cache\n",
            ".gitignore": "ignored.md\ngen/\n*.tmp.md\n!keep.tmp.md\n",
            "ignored.md": "# ignored\n",
            "gen/api.md": "# generated\n",
            "a.tmp.md": "# tmp\n",
            "keep.tmp.md": "# kept\n",
            "sub/.gitignore": "/only-here.md\n",
            "sub/only-here.md": "# ignored in sub\n",
            "sub/deeper/only-here.md": "# not ignored (anchored to sub/)\n",
            "binary.md": b"# looks like md\n\x00\x01\x02",
            "id_rsa.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
            "server.pem": "-----BEGIN CERTIFICATE-----\n",
            ".env": "TOKEN=x\n",
            "big.md": "# big\n" + "x" * 5000 + "\n",
        },
    )
    outside = tmp_path / "outside.md"
    outside.write_text("# outside the root\n", encoding="utf-8")
    os.symlink(outside, root / "escape.md")
    os.symlink(root / "index.md", root / "alias.md")
    os.symlink(tmp_path, root / "loop")
    return root


def test_walk_rules(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = walk(root, suffixes=SUFFIXES, max_file_bytes=1000, exclude=["notes.txt"])
    assert [f.doc_path for f in result.files] == [
        "alias.md",
        "binary.md",  # NUL bytes are detected by the indexer once the bytes are read
        "guide/Install.md",
        "guide/install.md",
        "index.md",
        "keep.tmp.md",
        "sub/deeper/only-here.md",
    ]
    reasons = dict(result.skipped)
    assert set(reasons) == {"big.md", "escape.md", "id_rsa.txt", "server.pem", ".env"}
    assert "larger than 1000 bytes" in reasons["big.md"]
    assert "outside" in reasons["escape.md"]
    # 20 files in the folders entered (gen/, dot- and build folders are not), 9 of them of a
    # known suffix (indexed or skipped by a safety rule), one of a suffix nothing reads
    assert (result.seen, result.candidates, result.other_types) == (20, 9, ((".png", 1),))


def test_index_counts_skipped_files_and_keeps_case(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with Index.open(tmp_path / "home") as index:
        report = index.index_path(root, max_file_bytes=1000)
        docs = [d.doc_path for d in index.list_docs("docs")]
    assert report.errors == ()
    assert "guide/Install.md" in docs and "guide/install.md" in docs
    assert "notes.txt" in docs and "binary.md" not in docs
    assert sorted(report.skipped_paths) == sorted(
        ["big.md", "escape.md", "id_rsa.txt", "server.pem", ".env", "binary.md"]
    )
    assert report.docs_skipped == 6
    assert report.docs_indexed == len(docs) == 7


def test_max_file_bytes_is_configurable(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = walk(root, suffixes=SUFFIXES, max_file_bytes=10 * 2**20)
    assert "big.md" in [f.doc_path for f in result.files]


def test_single_file_uses_parent_folder_as_repo(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with Index.open(tmp_path / "home") as index:
        report = index.index_path(root / "guide" / "Install.md")
        assert report.repo == "guide"
        assert [d.doc_path for d in index.list_docs("guide")] == ["Install.md"]
        again = index.index_path(root / "guide" / "install.md")
        assert again.docs_removed == 0
        assert len(index.list_docs("guide")) == 2
