"""`docmunch search`: one repo, every repo (no repo or --all), questions, stop-word queries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docmunch.cli import main
from docmunch.index import MAX_HITS


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


def test_a_snippet_is_printed_under_its_hit_every_line_indented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    guide = "# Install\r\n\r\nRun the installer:\r\n\r\n    gadget --install\r\n\r\n## Other\r\n\r\nMore.\r\n"
    (tmp_path / "docs" / "guide.md").write_bytes(guide.encode())
    assert main(["index", str(tmp_path / "docs"), "--repo", "d"]) == 0
    capsys.readouterr()
    assert main(["search", "d", "install", "--limit", "1", "--snippet", "200"]) == 0
    score, *rest = capsys.readouterr().out.splitlines()
    assert score.endswith("  Install  (guide.md)") and score.lstrip()[0].isdigit()
    assert rest == [  # id, summary, then the snippet (the whole section) with its lines as written
        "         d::guide.md::install#1",
        "         Run the installer:",
        "         # Install",
        "",
        "         Run the installer:",
        "",
        "             gadget --install",
    ]
    assert main(["search", "d", "install", "--limit", "1", "--snippet", "200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["snippet"] == guide[: guide.index("## Other")]


def test_terminal_codes_in_a_document_are_shown_not_obeyed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A document may hold ESC sequences (colour, cursor moves, clearing the screen), carriage
    returns and bidirectional overrides: the human output shows them as escapes; --json keeps them."""
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    title = "Install \x1b[31mred\x1b[0m \x1b[2J\u202egnp.exe"
    body = "Run the installer\rFAKE, then \x07ring."
    (tmp_path / "docs" / "guide.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs"), "--repo", "d"]) == 0
    capsys.readouterr()
    assert main(["search", "d", "installer", "--snippet", "300"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[31mred\\x1b[0m" in out and "\\u202egnp.exe" in out and "\\x07ring" in out
    assert "         FAKE, then" in out  # the snippet's lone CR is a line break, indented like the rest
    hit = _json(capsys, "search", "d", "installer", "--snippet", "300")["results"][0]
    assert hit["title"] == title and "\rFAKE" in hit["snippet"]


def test_an_empty_result_is_one_line_on_stderr_with_its_reason_and_exit_1(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    for argv, reason in (
        (["search", "tools", "how do I do it?"], "stop or question word"),
        (["search", "什么是"], "stop or question word"),
        (["search", "tools", "!!!"], "no word to search for"),
        (["search", "tools", "安装程序"], "no word of the query occurs in repo 'tools' (安装程序)"),
        (["search", "tools", "gadget", "--glob", "api/*"], "none passes the filters (path_glob 'api/*')"),
        (["search", "tools", "a" * 65], "is longer than 64 characters, which are not indexed"),
        (["search", "how do I " + "a" * 65], "is longer than 64 characters, which are not indexed"),
    ):
        assert main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, argv
        assert err.startswith("docmunch: no results: ") and reason in err, (argv, err)
    capsys.readouterr()
    assert main(["search", "what is it", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["results"] == [] and answer["no_results"]["reason"] == "stop_words"
    assert answer["_meta"]["sections_returned"] == 0
    assert main(["search", "a" * 65, "--json"]) == 1  # left out of the index for its length
    empty = json.loads(capsys.readouterr().out)["no_results"]
    assert empty["reason"] == "unknown_words" and empty["words"] == ["a" * 23 + "…"]


def test_an_unknown_doc_filter_is_a_one_line_not_found_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "tools", "gadget", "--doc", "index.md"]) == 0
    assert main(["search", "tools", "gadget", "--doc", "./index.md"]) == 0  # as a shell completes it
    assert main(["toc", "tools", "./index.md"]) == 0
    assert "Gadget installer" in capsys.readouterr().out
    for argv in (
        ["search", "tools", "gadget", "--doc", "index"],
        ["search", "--all", "gadget", "--doc", "nope.md"],
    ):
        assert main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("docmunch: unknown document "), err
    assert "(similar: 'index.md')" in _err(capsys, "search", "tools", "gadget", "--doc", "index")
    assert main(["search", "notes", "安装", "--doc", "index", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["type"] == "DocumentNotFound" and "index.md" in error["message"]


def _err(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 1
    return capsys.readouterr().err


def test_all_takes_every_word_as_the_query(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "--all", "tools", "gadget", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["_meta"]["query"] == "tools gadget"


def test_json_echoes_a_long_query_cut_as_mcp_does(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pasted log of 100 KB is not sent back whole: the first 199 characters and ``…``."""
    capsys.readouterr()
    log = "gadget tools " + "x" * 100_000
    assert main(["search", "--all", log, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["_meta"]["query"] == log[:199] + "…"
    assert answer["query_cut_at"] == 12  # "gadget tools": the x… beyond the limit not searched


def test_a_query_over_the_limit_is_searched_by_its_start_with_a_note(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMUNCH_QUERY_MAX_CHARS", "12")
    capsys.readouterr()
    assert main(["search", "--all", "gadget tools and more words"]) == 0
    err = capsys.readouterr().err
    assert "searched the first 12 of the query's 27 characters (set DOCMUNCH_QUERY_MAX_CHARS" in err
    assert main(["search", "--all", "gadget tools", "--json"]) == 0
    assert "query_cut_at" not in json.loads(capsys.readouterr().out)


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
    assert main(["search", "tools"]) == 1  # no document says "tools"
    err = capsys.readouterr().err
    assert "searching every repo for 'tools'" in err and "docmunch: no results: " in err
    assert main(["search", "gadget"]) == 0


def test_a_section_printed_to_a_terminal_shows_its_control_codes_and_to_a_pipe_keeps_them(
    tmp_path: Path,
) -> None:
    """Run under a real pseudo-terminal: ESC codes in a document are escaped for the screen;
    the same command into a pipe prints the section's exact text."""
    import os
    import pty
    import subprocess
    import sys

    env = {**os.environ, "DOCMUNCH_HOME": str(tmp_path / "home")}
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "odd.md").write_text("# Odd\n\nclear \x1b[2J\x1b[H then \x1b]0;pwned\x07 title\n")
    cli = [sys.executable, "-m", "docmunch"]
    index = [*cli, "index", str(tmp_path / "docs"), "--repo", "odd"]
    subprocess.run(index, env=env, check=True, capture_output=True)
    argv = [*cli, "section", "odd::odd.md::odd#1"]
    piped = subprocess.run(argv, env=env, capture_output=True, check=True).stdout
    assert b"\x1b[2J" in piped and b"\x07" in piped
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(argv, env=env, stdout=follower, stderr=subprocess.DEVNULL, timeout=60)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    screen = b"".join(chunks)
    assert done.returncode == 0
    assert b"clear \\x1b[2J\\x1b[H then \\x1b]0;pwned\\x07 title" in screen
    assert b"\x07" not in screen and b"\x1b[2J" not in screen


def test_limit_above_the_most_hits_is_a_usage_error_naming_the_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "gadgets.md").write_text(
        "".join(f"# Gadget {n}\n\nThe gadget number {n} is here.\n\n" for n in range(MAX_HITS + 50)),
        encoding="utf-8",
    )
    assert main(["index", str(folder), "--repo", "many"]) == 0
    assert len(_json(capsys, "search", "many", "gadget", "--limit", str(MAX_HITS))["results"]) == MAX_HITS
    for limit in (str(MAX_HITS + 1), "100000", "0"):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_info:
            main(["search", "many", "gadget", "--limit", limit])
        assert exit_info.value.code == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err
        assert f"argument --limit: must be from 1 to {MAX_HITS}, not {limit}" in err, err


def test_mistyped_words_are_searched_corrected_and_named(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "tools", "gadgte instaler"]) == 0
    out, err = capsys.readouterr()
    assert "Gadget installer" in out
    assert err == "docmunch: note: searched gadgte as gadget\n"  # "instaler" stems as "installer"
    assert main(["search", "tools", "gadgte on a zyzzogeton"]) == 0
    assert capsys.readouterr().err == (
        "docmunch: note: searched gadgte as gadget; not in repo tools: zyzzogeton; "
        "the results match the other words\n"
    )
    answer = _json(capsys, "search", "tools", "gadgte instaler")
    assert answer["corrected_words"] == {"gadgte": "gadget"}
    assert answer["unmatched_words"] == ["gadgte"]
    assert "corrected_words" not in _json(capsys, "search", "tools", "gadget installer")


def test_words_no_repo_has_are_named_after_the_results(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "tools", "run the gadget installer on a zyzzogeton"]) == 0
    out, err = capsys.readouterr()
    assert "Gadget installer" in out
    assert err == "docmunch: note: not in repo tools: zyzzogeton; the results match the other words\n"
    answer = _json(capsys, "search", "tools", "run the gadget installer on a zyzzogeton")
    assert answer["results"] and answer["unmatched_words"] == ["zyzzogeton"]
    assert "unmatched_words" not in _json(capsys, "search", "tools", "gadget installer")
    assert main(["search", "gadget installer"]) == 0
    assert capsys.readouterr().err == ""


def test_a_query_of_a_dash_is_read_from_stdin(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    log = "ERROR gadget install failed\n" * 10_000 + "see the instal\xff ler\n"  # 280 KB, a bad byte too
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log.encode("utf-8", "surrogateescape"))))
    answer = _json(capsys, "search", "tools", "-")
    assert [r["title"] for r in answer["results"]] == ["Gadget installer"]
    assert answer["_meta"]["query"].startswith("ERROR gadget install failed")
    assert answer["query_cut_at"] <= 65_536  # the log is longer than the limit: its start is searched
    stdin = io.BytesIO(log.encode("utf-8", "surrogateescape"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
    capsys.readouterr()
    assert main(["search", "tools", "-"]) == 0
    assert f"of the query's {len(log):,} characters" in capsys.readouterr().err  # the whole log, counted
    assert stdin.tell() == len(stdin.getvalue())  # all read: the writer into the pipe gets no SIGPIPE
    quiet = "zzqx " * 20_000  # a cut query that finds nothing says it was cut, beside the reason
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(quiet.encode())))
    capsys.readouterr()
    assert main(["search", "tools", "-"]) == 1
    err = capsys.readouterr().err
    assert "of the query's 100,000 characters" in err and "docmunch: no results:" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b" \n")))
    capsys.readouterr()
    assert main(["search", "tools", "-"]) == 2
    assert "the query read from stdin is empty" in capsys.readouterr().err


def test_level_filters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    guide = (
        "# Gadget guide\n\nThe gadget.\n\n## Install the gadget\n\nRun it.\n\n### Gadget flags\n\nFlags.\n"
    )
    (tmp_path / "docs" / "guide.md").write_text(guide, encoding="utf-8")
    assert main(["index", str(tmp_path / "docs"), "--repo", "d"]) == 0
    levels = [r["level"] for r in _json(capsys, "search", "d", "gadget", "--min-level", "2")["results"]]
    assert sorted(levels) == [2, 3]
    levels = [r["level"] for r in _json(capsys, "search", "d", "gadget", "--max-level", "2")["results"]]
    assert sorted(levels) == [1, 2]
    capsys.readouterr()
    assert main(["search", "d", "gadget", "--min-level", "4"]) == 1
    assert "none passes the filters (min_level 4)" in capsys.readouterr().err
    assert main(["search", "d", "gadget", "--min-level", "3", "--max-level", "1"]) == 2  # a usage error
    inverted = capsys.readouterr().err
    assert "--min-level 3 is above --max-level 1, so no section can match; swap them" in inverted


def test_a_newline_in_a_file_name_stays_on_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """toc, search and the section header print one line per entry even when a file's name
    holds a newline (shown as ``\\n``; a user trial saw one toc entry span two lines)."""
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "bad\nname.md").write_text("# Gizmo\n\nThe gizmo text.\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs"), "--repo", "nl"]) == 0
    capsys.readouterr()
    assert main(["toc", "nl"]) == 0
    toc = capsys.readouterr().out.splitlines()
    assert toc == ["bad\\nname.md", "  Gizmo  nl::bad\\nname.md::gizmo#1"]
    assert main(["search", "nl", "gizmo"]) == 0
    hit = capsys.readouterr().out.splitlines()
    assert "(bad\\nname.md)" in hit[0] and hit[1].strip() == "nl::bad\\nname.md::gizmo#1"
    assert main(["section", "nl::bad\nname.md::gizmo#1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("nl::bad\\nname.md::gizmo#1  bytes 0-")
    with (tmp_path / "docs" / "bad\nname.md").open("a", encoding="utf-8") as grown:
        grown.write("more\n")
    assert main(["verify", "nl"]) == 1
    mismatch = capsys.readouterr().out.splitlines()[0]
    assert mismatch.startswith("MISMATCH (original) nl::bad\\nname.md: the file is longer")
    assert mismatch.endswith("…)")  # one line


@pytest.mark.parametrize(
    ("argv", "last"),
    [
        (["tools"], "docmunch: note: searching every repo for 'tools'"),  # results, then the note
        (["tools", "--json"], "docmunch: note: searching every repo for 'tools'"),
        (["tools", "zzzqx", "--json"], "docmunch: no results: "),
    ],
    ids=["repo-name-query", "repo-name-query-json", "no-results-json"],
)
def test_search_lines_on_stderr_follow_the_answer_in_one_pipe(home: Path, argv: list[str], last: str) -> None:
    """stdout to a pipe is block-buffered: a line on stderr must wait until the answer is out."""
    (home / "tools" / "tools.md").write_text("# Tools\n\nThe tools of the gadget installer.\n")
    assert main(["index", str(home / "tools"), "--repo", "tools"]) == 0
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.run(
        [sys.executable, "-m", "docmunch.cli", "search", *argv],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
    )  # fmt: skip
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith(last), proc.stdout
    assert not any(line.startswith("docmunch:") for line in lines[:-1]), proc.stdout
    assert "Tools" in proc.stdout or '"no_results"' in proc.stdout
