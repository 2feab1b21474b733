"""``docmunch verify`` says what it checked where: the originals it re-read, those it could not
find, and the converted sources (PDF, DOCX, …) it checks in the cache only; counts of one read
in the singular. A change inside a section is reported once, by that section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from docmunch.cli import main

GUIDE = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Use\n\nUse it.\n"
PAGE = "---\na: 1\n---\n# Page\n\nBody text.\n"


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    root = tmp_path / "docs"
    root.mkdir()
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    return root


def _verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["verify", *argv])
    return status, capsys.readouterr().out


def _index(root: Path, repo: str) -> None:
    assert main(["index", str(root), "--repo", repo, "--json"]) == 0


def test_converted_sources_are_named_as_checked_in_the_cache_only(
    docs: Path, fixtures_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    office = docs.parent / "office"
    office.mkdir()
    shutil.copy(fixtures_dir / "office" / "docx" / "word_sample.docx", office)
    shutil.copy(fixtures_dir / "office" / "pdf" / "normal_4pages.pdf", office)
    _index(office, "o")
    status, out = _verify(capsys, "o")
    assert status == 0
    summary = out.splitlines()[-1]
    assert "original file" not in summary  # no "0 original files still on disk": none was read
    assert summary.endswith(
        ", 2 documents (converted sources such as PDF or DOCX, or without a local file) "
        "checked in the cache only, ok"
    )
    shutil.copy(docs / "guide.md", office)
    _index(office, "o")
    status, out = _verify(capsys, "o")
    assert status == 0 and ", 1 original file re-read from disk, 2 documents (" in out


def test_one_of_each_is_singular(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (docs / "guide.md").write_text("# Guide\n\nAll.\n", encoding="utf-8")
    _index(docs, "d")
    status, out = _verify(capsys, "d")
    assert status == 0
    assert out.splitlines()[-1] == "d: 1 section checked in the cache, 1 original file re-read from disk, ok"
    (docs / "guide.md").write_text("# Guide\n\nAll.\nMore.\n", encoding="utf-8")  # longer: 1 mismatch
    status, out = _verify(capsys, "d")
    assert status == 1 and out.splitlines()[-1].endswith(", 1 mismatch")
    (docs / "guide.md").unlink()
    status, out = _verify(capsys, "d")
    assert status == 0
    missing = "d: 1 section checked in the cache, 1 original file not found (not a mismatch), ok"
    assert out.splitlines()[-1] == missing


def test_an_edit_inside_a_section_is_reported_once(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _index(docs, "d")
    (docs / "guide.md").write_text(GUIDE.replace("installer", "INSTALLER"), encoding="utf-8")
    status, out = _verify(capsys, "d", "--json")
    assert status == 1
    mismatches = json.loads(out)["mismatches"]
    assert [(m["id"], m["where"]) for m in mismatches] == [("d::guide.md::guide/install#2", "original")]
    status, out = _verify(capsys, "d")
    assert status == 1 and "outside its sections" not in out and out.splitlines()[-1].endswith(", 1 mismatch")


def test_an_edit_inside_and_one_outside_the_sections_are_both_reported(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs / "page.md").write_text(PAGE, encoding="utf-8")
    _index(docs, "d")
    (docs / "page.md").write_text(PAGE.replace("a: 1", "a: 2").replace("Body", "BODY"), encoding="utf-8")
    status, out = _verify(capsys, "d", "--json")
    assert status == 1
    mismatches = json.loads(out)["mismatches"]
    assert [(m["id"], m["where"]) for m in mismatches] == [
        ("d::page.md::page#1", "original"),
        ("d::page.md", "original"),
    ]
    assert mismatches[1]["reason"].startswith("changed outside its sections")
