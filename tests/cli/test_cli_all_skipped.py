"""A run in which every file of a known format was skipped (too large, binary) is an error, not a
silent "0 indexed, N skipped" with exit 0, and it never costs the index a document: one line
with the count per reason, exit 1, no repo created, an existing repo left whole. A run in which
nothing was indexed because files failed keeps the index whole too. Runs the real ``docmunch``
command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)


def _docmunch(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "docmunch", *argv], env=env, capture_output=True, text=True, timeout=60
    )


def _docs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\n\n" + "alpha words " * 20 + "\n", encoding="utf-8")
    (folder / "beta.md").write_text("# Beta\n\n" + "beta words " * 20 + "\n", encoding="utf-8")
    return folder


def _listed(home: Path) -> list[tuple[str, int, int]]:
    repos = json.loads(_docmunch(home, "list", "--json").stdout)["repos"]
    return [(r["repo"], r["docs"], r["sections"]) for r in repos]


def test_a_folder_whose_every_file_is_skipped_is_one_line_and_exit_1(tmp_path: Path) -> None:
    folder = _docs(tmp_path / "docs")
    (folder / "blob.txt").write_bytes(b"\x00\x01\x02 not text")
    home = tmp_path / "home"
    run = _docmunch(home, "index", str(folder), "--max-file-bytes", "100")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {folder.resolve()}: every file of a known format was skipped "
        "(3 files: larger than 100 bytes 2, binary content (NUL byte) 1); "
        "--max-file-bytes N raises the size limit; no repo was created"
    ]
    as_json = _docmunch(home, "index", str(folder), "--max-file-bytes", "100", "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["error"]["type"] == "AllSkipped"
    assert _listed(home) == []  # no empty repo left behind

    binary_only = tmp_path / "blobs"
    binary_only.mkdir()
    (binary_only / "a.md").write_bytes(b"# A\n\x00")
    run = _docmunch(home, "index", str(binary_only))
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {binary_only.resolve()}: every file of a known format was "
        "skipped (1 file: binary content (NUL byte) 1); no repo was created"
    ]


def test_a_single_skipped_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    page = _docs(tmp_path / "docs") / "alpha.md"
    run = _docmunch(tmp_path / "home", "index", str(page), "--max-file-bytes", "10")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {page.resolve()}: the file was skipped (larger than 10 bytes); "
        "--max-file-bytes N raises the size limit; no repo was created"
    ]


def test_an_existing_repo_keeps_every_document_when_every_file_is_skipped(tmp_path: Path) -> None:
    folder = _docs(tmp_path / "docs")
    home = tmp_path / "home"
    assert _docmunch(home, "index", str(folder)).returncode == 0
    before = _listed(home)
    assert before == [("docs", 2, 2)]

    run = _docmunch(home, "index", str(folder), "--max-file-bytes", "100")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {folder.resolve()}: every file of a known format was skipped "
        "(2 files: larger than 100 bytes 2); --max-file-bytes N raises the size limit; "
        "repo 'docs' is unchanged"
    ]
    assert _listed(home) == before  # it used to remove both documents
    found = _docmunch(home, "search", "docs", "alpha", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["results"][0]["doc_path"] == "alpha.md"
    assert _docmunch(home, "verify", "docs").returncode == 0


def test_a_run_that_indexed_nothing_because_files_failed_removes_nothing(tmp_path: Path) -> None:
    folder = _docs(tmp_path / "docs")
    (folder / "gamma.md").write_text("# Gamma\n\ngamma words\n", encoding="utf-8")
    home = tmp_path / "home"
    assert _docmunch(home, "index", str(folder)).returncode == 0
    (folder / "alpha.md").write_bytes(b"# Alpha\n\xff not UTF-8\n")  # fails
    (folder / "gamma.md").unlink()  # gone
    run = _docmunch(home, "index", str(folder), "--max-file-bytes", "100", "--json")  # beta: skipped
    assert run.returncode == 1
    report = json.loads(run.stdout)
    assert (report["docs_indexed"], report["docs_unchanged"], report["docs_removed"]) == (0, 0, 0)
    assert [e["path"] for e in report["errors"]] == ["alpha.md"]
    assert [s["path"] for s in report["skipped"]] == ["beta.md"]
    assert _listed(home) == [("docs", 3, 3)]  # the failed run changed nothing

    (folder / "alpha.md").write_text("# Alpha\n\nalpha again\n", encoding="utf-8")
    fixed = _docmunch(home, "index", str(folder), "--json")  # a good run syncs the folder again
    assert fixed.returncode == 0
    assert json.loads(fixed.stdout)["docs_removed"] == 1 and _listed(home) == [("docs", 2, 2)]
