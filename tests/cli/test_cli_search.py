"""`docmunch search`: one repo, every repo (no repo or --all), questions, stop-word queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docmunch.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    for repo, text in {
        "tools": "# Gadget installer\n\nRun the installer to set up every gadget on the machine.\n",
        "notes": "# 安装说明\n\n用安装程序在机器上安装所有小工具。\n",
    }.items():
        folder = tmp_path / repo
        folder.mkdir()
        (folder / "index.md").write_text(text, encoding="utf-8")
        assert main(["index", str(folder), "--repo", repo]) == 0
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_search_every_repo_without_repo_or_with_all(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["search", "how do I set up the gadget installer?"], ["search", "--all", "安装程序"]):
        results = _json(capsys, *argv)["results"]
        assert results, argv
    assert {r["repo"] for r in _json(capsys, "search", "gadget")["results"]} == {"tools"}
    assert {r["repo"] for r in _json(capsys, "search", "安装")["results"]} == {"notes"}
    one = _json(capsys, "search", "tools", "how do I run the installer")["results"]
    assert [r["repo"] for r in one] == ["tools"]


def test_human_output_names_the_repo_when_searching_all(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "gadget installer"]) == 0
    assert "tools: index.md" in capsys.readouterr().out


def test_stop_words_only_is_an_explained_empty_result(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "tools", "how do I do it?"]) == 0
    assert "only stop words" in capsys.readouterr().out
    assert _json(capsys, "search", "what is it")["results"] == []


def test_all_takes_every_word_as_the_query(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "--all", "tools", "gadget", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["_meta"]["query"] == "tools gadget"


def test_query_words_may_start_with_a_dash_and_options_go_anywhere(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    for argv in (
        ["search", "tools", "--dry-run", "--json"],
        ["search", "--json", "tools", "--limit", "3", "--", "--dry-run"],
        ["search", "tools", "--dry-run", "--limit=3", "--json"],
    ):
        assert main(argv) == 0, argv
        assert json.loads(capsys.readouterr().out)["_meta"]["query"] == "--dry-run"


def test_a_missing_query_and_a_bad_number_are_one_line_usage_errors(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search"]) == 2
    assert "QUERY is missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["search", "tools", "x", "--limit", "abc"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "expected a whole number, not 'abc'" in err and "_positive" not in err


def test_one_word_naming_a_repo_is_a_query_with_a_note(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "tools"]) == 0
    assert "searching every repo for 'tools'" in capsys.readouterr().err
