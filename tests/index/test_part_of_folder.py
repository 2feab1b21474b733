"""A file or sub-folder inside the folder a repo records is part of that repo (docs/decisions.md,
"A single file"): doc_paths relative to the recorded folder, the folder stays the source, and a
sub-folder removes only its own vanished documents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from docmunch.errors import RepoExists, RunCancelled
from docmunch.index import Index
from docmunch.index.runlock import run_state

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


def _cancel_after(files: int) -> Callable[[int, int, str], None]:
    def progress(done: int, total: int, _doc_path: str) -> None:
        if done >= files:
            raise RunCancelled("cancelled", done=done, total=total)

    return progress


def test_a_part_after_an_interrupted_run_keeps_the_mark(tmp_path: Path, fold: Path) -> None:
    """A file or sub-folder of the recorded folder completes no interrupted run of the folder:
    no interrupted_run (the CLI would say "this run completed the repo"), the mark stays, and a
    warning gives the command that completes the repo; a run of the whole folder completes it."""
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(fold, repo="fold")
        (fold / "sub" / "b.md").write_text("# B\n\nbeta, edited\n")
        (fold / "a.md").write_text("# A\n\nalpha, edited\n")
        with pytest.raises(RunCancelled):
            index.index_path(fold, repo="fold", progress=_cancel_after(1))
        assert run_state(home, "fold") == "interrupted"
        for part in (fold / "sub" / "b.md", fold / "sub"):
            report = index.index_path(part, repo="fold")
            assert report.interrupted_run is None and "interrupted_run" not in report.to_json()
            assert run_state(home, "fold") == "interrupted"  # list still says so
            (warning,) = report.warnings
            assert warning.path == str(fold)
            assert "so the repo stays incomplete" in warning.message
            assert warning.message.endswith(f"to complete it, run `docmunch index {fold} --repo fold`")
        whole = index.index_path(fold, repo="fold")
        assert whole.interrupted_run is not None and not whole.warnings
        assert run_state(home, "fold") is None


def test_going_back_after_replace_names_replace(tmp_path: Path, fold: Path) -> None:
    """The way back after --replace is a command that works: it needs --replace too."""
    other = write(tmp_path / "other", {"o.md": "# O\n\nomega\n"})
    with Index.open(tmp_path / "home") as index:
        index.index_path(fold, repo="same")
        report = index.index_path(other, repo="same", replace=True)
        assert report.source_changed is not None
        message = report.source_changed["message"]
        back_command = f"docmunch index {fold} --repo same --replace"
        assert message.endswith(f"; to refresh {fold} again, run `{back_command}`")
        with pytest.raises(RepoExists):  # what the old advice said to do
            index.index_path(fold, repo="same")
        back = index.index_path(fold, repo="same", replace=True)  # what it says now
        assert back.source_changed is not None and back.source_changed["source"] == str(fold)


def test_a_folder_holding_the_old_source_offers_no_way_back(tmp_path: Path, fold: Path) -> None:
    """``index A/sub``, then ``index A``: A/sub is now a part of A and can never be the source
    again, so the note says what refresh re-reads and offers no way back."""
    with Index.open(tmp_path / "home") as index:
        index.index_path(fold / "sub", repo="p")
        report = index.index_path(fold, repo="p")
        assert report.source_changed is not None
        message = report.source_changed["message"]
        assert message == (
            f"repo 'p' now records the folder {fold} as its source instead of the folder {fold / 'sub'}, "
            "so `docmunch refresh p` re-reads that folder"
        )
