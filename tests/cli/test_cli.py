"""The `docmunch` command: JSON shapes, human output, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from docmunch import __version__
from docmunch.cli import main

DOCS: dict[str, str | bytes] = {
    "guide.md": "# Guide\n\nHow to use the gadget.\n\n## Install\n\nRun the gadget installer.\n",
    "faq.md": "# FAQ\n\nQuestions about gadgets.\n",
    "bad.md": b"# Bad\n\n\xff not utf-8\n",
}


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "mydocs"
    root.mkdir()
    for name, content in DOCS.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_index_search_toc_section_list_json(
    docmunch_home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_json(capsys, "index", str(docs))
    assert set(report) == {
        "repo",
        "docs_indexed",
        "docs_unchanged",
        "docs_removed",
        "docs_skipped",
        "sections",
        "errors",
        "skipped",
        "warnings",
        "elapsed_ms",
    }
    assert report["repo"] == "mydocs" and report["docs_indexed"] == 2 and report["sections"] == 3
    assert [e["path"] for e in report["errors"]] == ["bad.md"] and set(report["errors"][0]) == {
        "path",
        "error",
    }

    found = run_json(capsys, "search", "mydocs", "gadget installer")
    assert set(found) == {"results", "_meta"} and "latency_ms" in found["_meta"]
    top = found["results"][0]
    assert {"id", "title", "level", "doc_path", "score", "summary", "byte_start", "byte_end"} <= set(top)
    assert top["title"] == "Install"

    toc = run_json(capsys, "toc", "mydocs")
    assert [s["title"] for s in toc["sections"]] == ["FAQ", "Guide", "Install"]
    assert set(toc["sections"][0]) == {
        "id",
        "title",
        "level",
        "doc_path",
        "parent_id",
        "byte_start",
        "byte_end",
    }
    assert toc["sections"][2]["parent_id"] == toc["sections"][1]["id"]
    tree = run_json(capsys, "toc", "mydocs", "guide.md", "--tree")
    assert [c["title"] for c in tree["sections"][0]["children"]] == ["Install"]

    section = run_json(capsys, "section", "mydocs", top["id"], "--verify")
    assert set(section) == {
        "id",
        "title",
        "level",
        "doc_path",
        "byte_start",
        "byte_end",
        "content_hash",
        "content",
        "verified",
        "checked",
    }
    original = (docs / "guide.md").read_bytes()
    assert section["content"].encode() == original[section["byte_start"] : section["byte_end"]]
    assert section["verified"] is True
    assert [(c["where"], c["ok"]) for c in section["checked"]] == [("cache", True), ("original", True)]
    assert section["checked"][1]["path"] == str((docs / "guide.md").resolve())
    unverified = run_json(capsys, "section", "mydocs", top["id"])
    assert unverified["verified"] is None and "checked" not in unverified

    repos = run_json(capsys, "list")["repos"]
    assert [(r["repo"], r["docs"], r["sections"]) for r in repos] == [("mydocs", 2, 3)]
    assert set(repos[0]) == {"repo", "docs", "sections", "source", "indexed_at", "default", "versions"}
    assert repos[0]["default"] == "mydocs" and [v["version"] for v in repos[0]["versions"]] == [None]

    where = run_json(capsys, "locate", "mydocs", top["id"])
    assert where["source_path"] == str((docs / "guide.md").resolve())

    again = run_json(capsys, "index", str(docs))
    assert (again["docs_indexed"], again["docs_unchanged"]) == (0, 2)


def test_human_output(docmunch_home: Path, docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", str(docs), "--repo", "d")
    assert code == 0 and "2 indexed" in out and "1 error;" in out
    assert err.startswith("docmunch: error bad.md: not valid UTF-8") and err.count("\n") == 1
    code, out, _ = run(capsys, "search", "d", "gadget")
    assert code == 0 and "d::guide.md::guide#1" in out
    code, out, _ = run(capsys, "section", "d", "d::guide.md::guide/install#2", "--verify")
    assert code == 0 and "verified: true" in out and "Run the gadget installer." in out
    code, alone, _ = run(capsys, "section", "d::guide.md::guide/install#2", "--verify")  # repo from the id
    assert code == 0 and alone == out
    code, out, _ = run(capsys, "toc", "d")
    assert code == 0 and "Install" in out
    code, out, _ = run(capsys, "list")
    assert code == 0 and "d  2 docs, 3 sections" in out
    one = docs.parent / "one"
    one.mkdir()
    (one / "only.md").write_text("# Only\n\nOne page with one section.\n", encoding="utf-8")
    assert run(capsys, "index", str(one), "--repo", "single")[0] == 0
    code, out, _ = run(capsys, "list")
    assert code == 0 and "single  1 doc, 1 section," in out  # nouns agree with their counts
    code, out, _ = run(capsys, "verify", "d")
    assert code == 0 and "d: 3 sections checked in the cache, 2 original files re-read from disk, ok" in out
    code, out, _ = run(capsys, "delete", "d")
    assert code == 0
    code, _, err = run(capsys, "toc", "d")
    assert code == 1 and err.startswith("docmunch: unknown repo 'd'") and err.count("\n") == 1


def test_an_unquoted_question_gets_a_hint_to_quote_it(
    docmunch_home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, "index", str(docs), "--repo", "docs")
    code, _, err = run(capsys, "search", "install", "the", "gadget")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("docmunch: unknown repo 'install'")
    assert err.rstrip().endswith("quote it or use --all: docmunch search --all install the gadget")
    code, _, err = run(capsys, "search", "dcos", "gadget")  # a near miss: the did-you-mean alone
    assert code == 1 and "did you mean docs?" in err and "--all" not in err
    code, out, _ = run(capsys, "search", "--all", "install", "the", "gadget")
    assert code == 0 and "guide.md" in out


def test_verify_exits_1_when_a_cached_file_is_tampered(
    docmunch_home: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, "index", str(docs))
    with sqlite3.connect(docmunch_home / "index.sqlite3") as conn:
        raw_hash = conn.execute("SELECT raw_hash FROM docs WHERE doc_path = 'guide.md'").fetchone()[0]
    cached = docmunch_home / "raw" / raw_hash[:2] / raw_hash
    cached.write_bytes(cached.read_bytes().replace(b"gadget installer", b"gadget INSTALLER"))
    code, out, _ = run(capsys, "verify", "mydocs", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    assert [m["id"] for m in report["mismatches"]] == ["mydocs::guide.md::guide/install#2"]
    assert set(report["mismatches"][0]) >= {"id", "doc_path", "expected", "actual"}
    code, out, _ = run(capsys, "verify", "mydocs")
    assert code == 1 and "MISMATCH" in out and "guide/install#2" in out
    code, out, _ = run(capsys, "section", "mydocs", "mydocs::guide.md::guide/install#2", "--verify", "--json")
    assert code == 1 and json.loads(out)["verified"] is False


def test_errors_are_one_line_without_traceback(docmunch_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "DOCMUNCH_HOME": str(docmunch_home)}
    cases = [
        (["index", str(tmp_path / "missing")], "no such file or folder"),
        (["search", "nope", "x"], "unknown repo"),
        (["section", "nope", "x"], "unknown repo"),
        (["section", "nope::guide.md::guide#1"], "unknown repo 'nope'"),
        (["section", "guide.md"], "unknown section id 'guide.md' naming no repo"),
        (["index", "github:owner/name"], "docmunch:"),
    ]
    for argv, needle in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "docmunch.cli", *argv], env=env, capture_output=True, text=True
        )
        assert proc.returncode == 1, (argv, proc.stderr)
        assert needle in proc.stderr and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_schema_mismatch_is_a_one_line_error(docmunch_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "list")[0] == 0
    with sqlite3.connect(docmunch_home / "index.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 999")
    code, _, err = run(capsys, "list")
    assert code == 1 and "schema 999" in err and err.count("\n") == 1


def test_version_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
