"""A file or sub-folder inside the folder a repo records is part of that repo (docs/decisions.md,
"A single file"): doc_paths relative to the recorded folder, the folder stays the source, and a
sub-folder removes only its own vanished documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.index import Index

from .conftest import write


@pytest.fixture
def fold(tmp_path: Path) -> Path:
    return write(
        tmp_path / "fold",
        {
            "a.md": "# A\n\nalpha\n",
            "sub/b.md": "# B\n\nbeta\n",
            "sub/deep/c.md": "# C\n\ngamma\n",
            ".gitignore": "sub/draft.md\n",
        },
    )


def _docs(index: Index) -> list[str]:
    return [doc.doc_path for doc in index.list_docs("fold")]


def test_a_nested_file_of_a_folder_repo_updates_its_own_document(tmp_path: Path, fold: Path) -> None:
    with Index.open(tmp_path / "home") as index:
        index.index_path(fold, repo="fold")
        (fold / "sub" / "b.md").write_text("# B\n\nbeta, edited\n")
        report = index.index_path(fold / "sub" / "b.md", repo="fold")
        assert (report.docs_indexed, report.docs_unchanged, report.docs_removed) == (1, 0, 0)
        assert report.source_changed is None
        assert _docs(index) == ["a.md", "sub/b.md", "sub/deep/c.md"]  # no second "b.md"
        assert [hit.doc_path for hit in index.search("beta edited", repo="fold")] == ["sub/b.md"]
        assert next(r for r in index.list_repos() if r.repo == "fold").source == str(fold)
        (fold / "sub" / "b.md").write_text("# B\n\nbeta, again\n")
        (fold / "a.md").write_text("# A\n\nalpha, again\n")
        refreshed = index.index_path(fold, repo="fold")  # what refresh runs: the whole folder
        assert (refreshed.docs_indexed, refreshed.docs_unchanged) == (2, 1)
        assert index.verify_repo("fold").ok


def test_a_sub_folder_of_a_folder_repo_removes_only_under_its_prefix(tmp_path: Path, fold: Path) -> None:
    with Index.open(tmp_path / "home") as index:
        index.index_path(fold, repo="fold")
        (fold / "sub" / "deep" / "c.md").unlink()
        (fold / "sub" / "new.md").write_text("# New\n\ndelta\n")
        (fold / "sub" / "draft.md").write_text("# Draft\n\nignored by the folder's .gitignore\n")
        report = index.index_path(fold / "sub", repo="fold")
        assert (report.docs_indexed, report.docs_unchanged, report.docs_removed) == (1, 1, 1)
        assert report.source_changed is None
        assert _docs(index) == ["a.md", "sub/b.md", "sub/new.md"]  # a.md kept, draft.md ignored
        for name in ("b.md", "new.md"):
            (fold / "sub" / name).unlink()
        emptied = index.index_path(fold / "sub", repo="fold")
        assert emptied.docs_removed == 2 and _docs(index) == ["a.md"]
        assert emptied.nothing_to_index is not None
        assert emptied.nothing_to_index.endswith(
            "removed its 2 documents under sub/; repo 'fold' keeps its other documents"
        )
        assert next(r for r in index.list_repos() if r.repo == "fold").source == str(fold)


def test_a_file_beside_a_recorded_file_still_becomes_the_source(tmp_path: Path, fold: Path) -> None:
    with Index.open(tmp_path / "home") as index:
        index.index_path(fold / "sub" / "b.md", repo="fold")
        report = index.index_path(fold / "sub" / "deep" / ".." / "b.md", repo="fold")  # the same file
        assert report.source_changed is None and _docs(index) == ["b.md"]
        (fold / "sub" / "e.md").write_text("# E\n\nepsilon\n")
        beside = index.index_path(fold / "sub" / "e.md", repo="fold")
        assert beside.source_changed is not None
        assert beside.source_changed["source"] == str(fold / "sub" / "e.md")
        assert _docs(index) == ["b.md", "e.md"]
