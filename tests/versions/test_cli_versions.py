"""`docmunch index --version`, `list`, `search NAME@*`, `default`, `rename`, `delete NAME@*`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docmunch.cli import main
from tests.versions.corpus import ADDED, EXCLUDE, NEW_TERM, make_versions


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_versions_from_the_command_line(
    docmunch_home: Path, fixtures_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v1, v2 = make_versions(fixtures_dir, tmp_path)
    exclude = ["--exclude", EXCLUDE[0]]
    assert run_json(capsys, "index", str(v1), "--version", "1.0", *exclude)["repo"] == "rust-book@1.0"
    assert (
        run_json(capsys, "index", str(v2), "--repo", "book", "--version", "2.0", *exclude)["repo"]
        == "book@2.0"
    )
    assert run_json(capsys, "index", str(v2), "--repo", "rust-book@2.0", *exclude)["repo"] == "rust-book@2.0"
    code, _, err = run(capsys, "index", str(v2), "--repo", "rust-book@2.0", "--version", "3")
    assert code == 1 and "differs from --version" in err and err.count("\n") == 1

    listing = run_json(capsys, "list")["repos"]
    assert [g["repo"] for g in listing] == ["book", "rust-book"]
    book = listing[1]
    assert book["default"] == "rust-book@2.0" and book["sections"] == book["versions"][0]["sections"]
    assert [v["repo"] for v in book["versions"]] == ["rust-book@2.0", "rust-book@1.0"]
    assert set(book["versions"][0]) == {
        "repo", "version", "default", "pinned", "docs", "sections", "source", "ref", "commit", "indexed_at",
        "last_run",
    }  # fmt: skip
    assert [v["default"] for v in book["versions"]] == [True, False]
    assert book["versions"][1]["source"] == str(v1.resolve())

    hits = run_json(capsys, "search", "rust-book", NEW_TERM)["results"]
    assert hits and {h["repo"] for h in hits} == {"rust-book@2.0"}
    assert any(h["doc_path"] == ADDED for h in hits)
    every = run_json(capsys, "search", "rust-book@*", "ownership rules", "--limit", "20")["results"]
    assert {h["repo"] for h in every} == {"rust-book@1.0", "rust-book@2.0"}
    old = run_json(capsys, "search", "rust-book@1.0", "ownership rules")["results"]
    assert old and all(h["id"].startswith("rust-book@1.0::") for h in old)

    code, _, err = run(capsys, "search", "rust-book@9", "x")
    assert code == 1 and err.count("\n") == 1
    assert "unknown version 'rust-book@9'" in err and "rust-book@2.0 (default), rust-book@1.0" in err

    section = run_json(capsys, "section", "rust-book", old[0]["id"], "--verify")
    assert section["verified"] is True and section["id"] == old[0]["id"]

    pinned = run_json(capsys, "default", "rust-book@1.0")
    assert pinned == {"name": "rust-book", "default": "rust-book@1.0", "pinned": True}
    code, out, _ = run(capsys, "default", "rust-book")
    assert code == 0 and "rust-book means rust-book@1.0 (pinned)" in out
    code, out, _ = run(capsys, "list")
    assert "bare name means rust-book@1.0" in out and "pinned default" in out
    assert run_json(capsys, "search", "rust-book", "ownership rules")["results"][0]["repo"] == "rust-book@1.0"
    assert run_json(capsys, "default", "rust-book", "--unpin")["default"] == "rust-book@2.0"

    renamed = run_json(capsys, "rename", "book", "book@2.1")
    assert renamed == {"repo": "book@2.0", "renamed_to": "book@2.1"}
    assert run_json(capsys, "toc", "book@2.1")["sections"][0]["id"].startswith("book@2.1::")
    code, _, err = run(capsys, "rename", "book@2.1", "book@2.1")
    assert code == 1 and "repo 'book@2.1' already has that name; nothing to rename" in err
    code, _, err = run(capsys, "rename", "book", "book")  # the bare name means book@2.1: not dropped
    assert code == 1 and "repo 'book' already has that name; nothing to rename" in err
    assert run_json(capsys, "toc", "book@2.1")["sections"]

    code, out, _ = run(capsys, "delete", "rust-book@*")
    assert code == 0 and "rust-book@2.0" in out and "rust-book@1.0" in out
    assert [g["repo"] for g in run_json(capsys, "list")["repos"]] == ["book"]
