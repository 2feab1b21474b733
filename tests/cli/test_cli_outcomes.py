"""Exit statuses and messages of runs that partly or wholly fail (found by a new-user trial)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docmunch.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.md").write_bytes(b"# Good\n\nFine text.\n")
    (folder / "invalid.md").write_bytes(b"# Bad \xff\xfe\n")
    (folder / "binary.md").write_bytes(b"ab\0cd")
    return folder


def test_one_bad_file_is_reported_on_stderr_and_not_fatal(
    docmunch_home: Path, mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "index", str(mixed))
    assert code == 0 and "1 indexed" in out and "1 skipped" in out
    assert err.splitlines() == [
        "docmunch: skipped binary.md: binary content (NUL byte)",
        "docmunch: error invalid.md: not valid UTF-8 at byte 6 (invalid start byte)",
    ]


def test_run_summaries_say_1_error_and_1_section_in_the_singular(
    docmunch_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_bytes(b"# Good\n\nFine text.\n")
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 but not a zip archive")
    code, out, err = _run(capsys, "index", str(docs), "--repo", "one")
    assert code == 0
    summary = r"one: 1 indexed, 0 unchanged, 0 removed, 0 skipped, 1 error; 1 section \(\d+\.\d\d s\)\n"
    assert re.fullmatch(summary, out), out
    assert err.startswith("docmunch: error broken.docx: not a valid DOCX file") and err.count("\n") == 1
    code, out, _ = _run(capsys, "refresh", "one")  # a folder is re-read: the bad file fails again
    assert code == 0
    assert re.fullmatch(r"one: 0 changed, 1 unchanged, 0 removed, 1 error; 1 section \(\d+\.\d\d s\)\n", out)
    (docs / "invalid.md").write_bytes(b"# Bad \xff\xfe\n")
    (docs / "two.md").write_bytes(b"# Two\n\nMore text.\n")
    code, out, _ = _run(capsys, "index", str(docs), "--repo", "one")
    assert code == 0 and "1 indexed, 1 unchanged, 0 removed, 0 skipped, 2 errors; 2 sections (" in out


def test_a_single_failing_file_exits_1_and_leaves_no_empty_repo(
    docmunch_home: Path, mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "index", str(mixed / "invalid.md"), "--repo", "solo")
    assert code == 1 and "error invalid.md" in err
    code, _, _ = _run(capsys, "index", str(mixed / "invalid.md"), "--repo", "solo", "--json")
    assert code == 1
    code, out, _ = _run(capsys, "list", "--json")
    assert json.loads(out)["repos"] == []


def test_a_single_file_repo_refreshes_only_that_file(
    docmunch_home: Path, mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = _run(capsys, "index", str(mixed / "good.md"), "--repo", "one")
    assert code == 0
    _, out, _ = _run(capsys, "list", "--json")
    assert json.loads(out)["repos"][0]["source"] == str((mixed / "good.md").resolve())
    (mixed / "other.md").write_bytes(b"# Other\n")
    code, out, _ = _run(capsys, "refresh", "one", "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["docs_indexed"], report["docs_unchanged"]) == (0, 1)
    _, out, _ = _run(capsys, "list", "--json")
    assert json.loads(out)["repos"][0]["docs"] == 1


def test_toc_of_an_unknown_document_is_an_error(
    docmunch_home: Path, mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, "index", str(mixed), "--repo", "m")
    code, out, err = _run(capsys, "toc", "m", "nope.md")
    assert code == 1 and out == ""
    assert err == (
        "docmunch: unknown document 'nope.md' in repo 'm'; `docmunch toc REPO` (MCP: list_docs) "
        "lists the indexed documents\n"
    )


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["delete", "x", "--json"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unrecognized arguments: --json" in err


def test_serve_with_closed_stdin_exits_cleanly(docmunch_home: Path) -> None:
    code = "import os, sys; os.close(0); from docmunch.cli import main; sys.exit(main(['serve']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    assert b"stdin is closed" in proc.stderr and b"Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "argv",
    [["search", "r", "q", "--limit", "0"], ["search", "r", "q", "--snippet", "-5"],
     ["index", ".", "--max-file-bytes", "-1"], ["index", "http://x/", "--crawl", "--max-pages", "0"],
     ["index", "http://x/", "--concurrency", "0"]],
)
def test_non_positive_counts_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_json_errors_do_not_repeat_the_path(
    docmunch_home: Path, mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "index", str(mixed), "--json")
    assert json.loads(out)["errors"] == [
        {"path": "invalid.md", "error": "not valid UTF-8 at byte 6 (invalid start byte)"}
    ]


def test_a_run_that_indexes_nothing_keeps_the_repo_source(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nText.\n")
    (docs / "locked.pdf").write_bytes(b"%PDF-1.7 not really")
    assert main(["index", str(docs), "--repo", "r"]) == 0
    capsys.readouterr()
    assert main(["index", str(docs / "locked.pdf"), "--repo", "r"]) == 1
    capsys.readouterr()
    assert main(["list", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["repos"]
    assert entry["source"] == str(docs.resolve())


def test_an_empty_repo_name_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n")
    assert main(["index", str(docs), "--repo", ""]) == 1
    assert "invalid repo name ''" in capsys.readouterr().err


def test_a_folder_name_that_is_no_repo_name_says_to_give_one(tmp_path, capsys, monkeypatch):
    """The name was derived, not typed: the error says where it came from and what to do (a user
    trial indexed a folder whose name holds a newline)."""
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "odd\nname"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n")
    assert main(["index", str(docs)]) == 1
    err = capsys.readouterr().err
    assert "invalid repo name 'odd\\nname'" in err and "give the repo one with --repo NAME" in err
    assert main(["index", str(docs), "--repo", "fine"]) == 0


def test_a_reader_that_stops_early_ends_the_command_quietly_with_the_sigpipe_status(tmp_path):
    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "many.md").write_text("".join(f"## Heading number {i}\n\nText {i}.\n\n" for i in range(6000)))
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    cli = [sys.executable, "-m", "docmunch"]
    subprocess.run([*cli, "index", str(docs), "--repo", "r"], env=env, check=True, capture_output=True)
    proc = subprocess.Popen([*cli, "toc", "r"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.read(10)
    proc.stdout.close()  # like `| head -1`: far more than a pipe buffer is still to come
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b""


def test_a_failing_json_command_answers_with_a_json_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    assert main(["index", str(tmp_path / "missing"), "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {
        "error": {"type": "SourceError", "message": f"no such file or folder: {tmp_path / 'missing'}"}
    }
    assert captured.err.startswith("docmunch: no such file or folder")


def test_two_folders_of_one_name_do_not_replace_each_other(
    docmunch_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a" / "docs", tmp_path / "b" / "docs"
    for folder, word in ((first, "alpha"), (second, "beta")):
        folder.mkdir(parents=True)
        (folder / f"{word}.md").write_text(f"# {word.title()}\n\nAbout {word}.\n", encoding="utf-8")
    assert _run(capsys, "index", str(first))[0] == 0
    code, out, err = _run(capsys, "index", str(second))  # default name: docs again
    assert code == 1 and out == ""
    assert "repo 'docs' holds" in err and "--replace" in err and "Traceback" not in err
    code, out, _ = _run(capsys, "toc", "docs", "--json")
    assert code == 0 and "alpha.md" in out and "beta.md" not in out  # nothing lost
    # a file inside the recorded folder, and the folder again, are the same source
    assert _run(capsys, "index", str(first / "alpha.md"), "--repo", "docs")[0] == 0
    assert _run(capsys, "index", str(first))[0] == 0
    code, out, _ = _run(capsys, "index", str(second), "--replace")
    assert code == 0 and "1 removed" in out
    code, out, _ = _run(capsys, "toc", "docs", "--json")
    assert "beta.md" in out and "alpha.md" not in out


@pytest.mark.parametrize("below", [False, True], ids=["home", "folder above"])
def test_a_home_that_is_a_file_is_one_line_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], below: bool
) -> None:
    file = tmp_path / "home"
    file.write_text("not a folder\n")
    home = file / "sub" if below else file
    monkeypatch.setenv("DOCMUNCH_HOME", str(home))
    code, out, err = _run(capsys, "list")
    assert code == 1 and not out
    said = f"{file} is a file, not a folder (set DOCMUNCH_HOME to a folder)"
    where = f"cannot create docmunch home {home}: {said}" if below else f"docmunch home {said}"
    assert err == f"docmunch: {where}\n"


def test_a_run_that_changes_the_recorded_source_says_what_refresh_reads_now(
    docmunch_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "A"
    folder.mkdir()
    (folder / "a1.md").write_text("# One\n\nFirst.\n")
    (folder / "a2.md").write_text("# Two\n\nSecond.\n")
    code, _, err = _run(capsys, "index", str(folder / "a2.md"), "--repo", "same")
    assert code == 0 and "note" not in err
    code, out, err = _run(capsys, "index", str(folder / "a1.md"), "--repo", "same", "--json")
    assert code == 0
    changed = json.loads(out)["source_changed"]
    assert changed["previous"] == str(folder / "a2.md") and changed["source"] == str(folder / "a1.md")
    assert changed["message"] == (
        f"repo 'same' now records the file {folder / 'a1.md'} as its source instead of the file "
        f"{folder / 'a2.md'}, so `docmunch refresh same` re-reads only that file"
    )
    (folder / "a1.md").write_text("# One\n\nFirst, changed.\n")
    code, _, err = _run(capsys, "index", str(folder / "a1.md"), "--repo", "same")  # the same file: no note
    assert code == 0 and "note" not in err
    code, _, err = _run(capsys, "index", str(folder), "--repo", "same")  # a folder after a file
    assert code == 0 and err == (
        f"docmunch: note: repo 'same' now records the folder {folder} as its source instead of the file "
        f"{folder / 'a1.md'}, so `docmunch refresh same` re-reads that folder\n"
    )


def test_one_nested_file_of_a_folder_repo_is_its_document_and_keeps_the_folder(
    docmunch_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fold = tmp_path / "fold"
    (fold / "sub").mkdir(parents=True)
    (fold / "a.md").write_text("# A\n")
    (fold / "sub" / "b.md").write_text("# B\n\nbeta\n")
    assert _run(capsys, "index", str(fold), "--repo", "fold")[0] == 0
    code, out, err = _run(capsys, "index", str(fold / "sub" / "b.md"), "--repo", "fold", "--json")
    assert code == 0 and "note" not in err and "source_changed" not in json.loads(out)
    code, out, _ = _run(capsys, "toc", "fold")
    assert code == 0 and re.findall(r"^\S+$", out, re.M) == ["a.md", "sub/b.md"]
    (fold / "sub" / "b.md").write_text("# B\n\nbeta, edited\n")
    code, out, _ = _run(capsys, "refresh", "fold")
    assert code == 0 and "1 changed, 1 unchanged" in out
    code, out, _ = _run(capsys, "verify", "fold")
    assert code == 0 and "MISMATCH" not in out
