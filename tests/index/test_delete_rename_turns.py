"""``delete`` and ``rename`` take their turn with the index runs of a repo (docmunch.index.runlock):
a user trial's delete during a crawl answered at once, and the crawl then re-created part of the
repo with no mark. They also leave no stale "interrupted" mark behind: a delete clears it, a
rename moves it to the new name."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from docmunch.errors import RunCancelled
from docmunch.index import Index
from docmunch.index.runlock import RepoRun, run_state


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(3):
        (root / f"d{i}.md").write_text(f"# Doc {i}\n\nwords {i}\n")
    return root


def _interrupt(index: Index, root: Path, repo: str) -> None:
    def progress(done: int, total: int, _doc_path: str) -> None:
        raise RunCancelled("cancelled", done=done, total=total)

    with pytest.raises(RunCancelled):
        index.index_path(root, repo=repo, progress=progress)


@pytest.mark.parametrize("writer", ["delete", "rename"])
def test_delete_and_rename_wait_for_a_running_run(tmp_path: Path, writer: str) -> None:
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(_folder(tmp_path), repo="r")
        told: list[str | None] = []
        index.on_wait = told.append
        running = RepoRun(home, "r").__enter__()  # an index run of "r" holds the repo
        act = index.delete_repo if writer == "delete" else index.rename_repo
        done = threading.Thread(target=act, args=("r",) if writer == "delete" else ("r", "n"))
        done.start()
        time.sleep(0.5)
        assert done.is_alive() and [r.repo for r in index.list_repos()] == ["r"]  # it waits
        assert told and told[0] is not None and "is being written by another docmunch run" in told[0]
        running.__exit__(None, None, None)
        done.join(10)
        assert not done.is_alive() and told[-1] is None
        assert [r.repo for r in index.list_repos()] == ([] if writer == "delete" else ["n"])


def test_delete_clears_an_interrupted_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = _folder(tmp_path)
    with Index.open(home) as index:
        index.index_path(root, repo="r")
        (root / "d0.md").write_text("# Doc 0\n\nchanged\n")
        _interrupt(index, root, "r")
        assert run_state(home, "r") == "interrupted"
        assert index.delete_repo("r") == ["r"]
        assert run_state(home, "r") is None
        assert index.index_path(root, repo="r").interrupted_run is None  # a new repo, not a completion


def test_rename_moves_an_interrupted_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = _folder(tmp_path)
    with Index.open(home) as index:
        index.index_path(root, repo="r")
        (root / "d0.md").write_text("# Doc 0\n\nchanged\n")
        _interrupt(index, root, "r")
        index.rename_repo("r", "n")
        assert (run_state(home, "r"), run_state(home, "n")) == (None, "interrupted")
        assert index.index_path(root, repo="r").interrupted_run is None
        completed = index.index_path(root, repo="n")
        assert completed.interrupted_run is not None and run_state(home, "n") is None
