"""A folder that holds no file of a known format: one clear line and exit 1, never a silent
"0 indexed" (found by a new-user trial). Runs the real ``docmunch`` command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

KNOWN = ".docx .htm .html .ipynb .markdown .md .mdx .pdf .rst .txt"
"""The suffixes the message names (every suffix a renderer reads, sorted)."""


def _png() -> bytes:
    """A valid 1×1 grey PNG (signature, IHDR, IDAT, IEND with their CRCs)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = (1).to_bytes(4, "big") * 2 + bytes([8, 0, 0, 0, 0])
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def _docmunch(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "docmunch", *argv], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("files", "looked"),
    [
        ({}, "looked at 0 files"),
        ({"shot.png": _png()}, "looked at 1 file, 1 skipped by type (.png 1)"),
        (
            {"a.png": _png(), "b.png": _png(), "notes": b"x", ".draft.md": b"# hidden\n"},
            "looked at 4 files, 3 skipped by type (.png 2, no suffix 1), 1 hidden or ignored",
        ),
    ],
    ids=["empty", "one-png", "mixed"],
)
def test_a_folder_without_known_files_is_one_line_and_exit_1(
    tmp_path: Path, files: dict[str, bytes], looked: str
) -> None:
    folder = tmp_path / "shots"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    home = tmp_path / "home"
    run = _docmunch(home, "index", str(folder), "--repo", "empty")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {folder.resolve()}: no file of a known format ({KNOWN}); {looked}"
    ]
    as_json = _docmunch(home, "index", str(folder), "--repo", "empty", "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["error"]["type"] == "NothingToIndex"
    listed = _docmunch(home, "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["repos"] == []  # no repo created


def test_a_repo_whose_folder_became_empty_loses_its_documents_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\n\nalpha words\n", encoding="utf-8")
    (folder / "b.md").write_text("# Beta\n\nbeta words\n", encoding="utf-8")
    home = tmp_path / "home"
    assert _docmunch(home, "index", str(folder)).returncode == 0
    for md in folder.glob("*.md"):
        md.unlink()
    (folder / "cover.png").write_bytes(_png())

    run = _docmunch(home, "index", str(folder))
    assert run.returncode == 1
    assert run.stdout.startswith("docs: 0 indexed, 0 unchanged, 2 removed, 0 skipped, 0 errors; 0 sections")
    assert run.stderr.splitlines() == [
        f"docmunch: nothing to index in {folder.resolve()}: no file of a known format ({KNOWN}); "
        "looked at 1 file, 1 skipped by type (.png 1); removed its 2 documents; "
        "repo 'docs' is kept with no document (delete it with docmunch delete docs; MCP: delete_index)"
    ]
    listed = json.loads(_docmunch(home, "list", "--json").stdout)["repos"]
    assert [(r["repo"], r["docs"], r["sections"]) for r in listed] == [("docs", 0, 0)]
    search = _docmunch(home, "search", "docs", "alpha")
    assert "unknown repo" not in search.stderr and "no word of the query occurs" in search.stderr

    again = _docmunch(home, "index", str(folder), "--json")  # nothing left to remove: same status
    report = json.loads(again.stdout)
    assert again.returncode == 1 and report["docs_removed"] == 0
    assert report["nothing_to_index"].endswith(
        "repo 'docs' is kept with no document (delete it with docmunch delete docs; MCP: delete_index)"
    )

    (folder / "c.md").write_text("# Gamma\n\ngamma words\n", encoding="utf-8")
    back = _docmunch(home, "index", str(folder), "--json")
    assert back.returncode == 0 and "nothing_to_index" not in json.loads(back.stdout)
