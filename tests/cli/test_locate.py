"""``docmunch locate`` says what its byte range is a range of: the user's own file, or the stored
Markdown rendition of a converted source (a PDF's or DOCX's offsets are never PDF or DOCX bytes)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from docmunch.cli import main

OLD_KEYS = {"repo", "doc_path", "section_id", "source_path", "byte_start", "byte_end", "locator"}
"""The keys ``locate --json`` printed before ``source_kind`` and ``byte_range_of``: all kept."""


@pytest.fixture
def folder(tmp_path: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a Markdown file, a real DOCX and a real PDF, indexed as repo ``loc``."""
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    root = tmp_path / "docs"
    root.mkdir()
    (root / "guide.md").write_bytes(b"# Guide\n\nIntro.\n\n## Install\n\nRun it.\n")
    shutil.copy(fixtures_dir / "office" / "docx" / "word_sample.docx", root)
    shutil.copy(fixtures_dir / "office" / "pdf" / "normal_4pages.pdf", root)
    assert main(["index", str(root), "--repo", "loc", "--json"]) == 0
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _first_located(capsys: pytest.CaptureFixture[str], doc_path: str) -> str:
    """The id of the first section of ``doc_path`` below its title."""
    toc = json.loads(_run(capsys, "toc", "loc", doc_path, "--json"))["sections"]
    return next(s["id"] for s in toc if s["level"] >= 1)


def test_a_markdown_range_is_a_range_of_the_file_itself(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = "loc::guide.md::guide/install#2"
    where = json.loads(_run(capsys, "locate", "loc", sid, "--json"))
    assert set(where) >= OLD_KEYS
    assert (where["source_kind"], where["byte_range_of"], where["locator"]) == ("markdown", "original", None)
    section = json.loads(_run(capsys, "section", "loc", sid, "--json"))
    mine = (folder / "guide.md").read_bytes()[where["byte_start"] : where["byte_end"]]
    assert hashlib.sha256(mine).hexdigest() == section["content_hash"]
    out = _run(capsys, "locate", "loc", sid)
    assert out.splitlines() == [
        f"source:   {folder.resolve() / 'guide.md'} (Markdown)",
        f"bytes:    {where['byte_start']}-{where['byte_end']} of the file itself "
        "(stored unchanged: the cache holds the same bytes)",
    ]


@pytest.mark.parametrize(
    ("doc_path", "kind", "name", "place"),
    [
        ("normal_4pages.pdf", "pdf", "PDF", "location: page 1 ["),
        ("word_sample.docx", "docx", "DOCX", "location: paraId "),
    ],
)
def test_a_converted_range_is_a_range_of_the_stored_markdown(
    folder: Path, capsys: pytest.CaptureFixture[str], doc_path: str, kind: str, name: str, place: str
) -> None:
    sid = _first_located(capsys, doc_path)
    where = json.loads(_run(capsys, "locate", "loc", sid, "--json"))
    assert set(where) >= OLD_KEYS
    assert (where["source_kind"], where["byte_range_of"]) == (kind, "stored_markdown")
    assert where["locator"]  # the place in the original is the locator, not the byte range
    section = json.loads(_run(capsys, "section", "loc", sid, "--json"))
    assert (section["byte_start"], section["byte_end"]) == (where["byte_start"], where["byte_end"])
    out = _run(capsys, "locate", "loc", sid).splitlines()
    assert out[0] == f"source:   {folder.resolve() / doc_path} ({name})"
    assert out[1].startswith(place)
    assert out[2] == (
        f"bytes:    {where['byte_start']}-{where['byte_end']} of the stored Markdown rendition, "
        f"not of the {name} (`docmunch section` prints them)"
    )
    assert len(out) == 3


def test_without_repo_the_id_names_it_as_for_section(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = "loc::guide.md::guide/install#2"
    assert _run(capsys, "locate", sid, "--json") == _run(capsys, "locate", "loc", sid, "--json")
    assert _run(capsys, "locate", sid) == _run(capsys, "locate", "loc", sid)
    capsys.readouterr()
    assert main(["locate", "guide/install#2"]) == 1
    assert "naming no repo (ids read REPO::DOC_PATH::…)" in capsys.readouterr().err
