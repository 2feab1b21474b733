"""UTF-16 and UTF-32 text files with a byte order mark are text: indexed as their UTF-8 form.

The BOM names the encoding; the file is decoded by it and stored, sectioned and hashed as UTF-8
(no BOM). Offsets and hashes are those of the stored UTF-8 bytes, which ``section --verify``
and ``verify`` check in the cache and, transcoded again, in the user's file. Without a BOM a
NUL byte still means binary.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from docmunch.cli import main

TEXT = (
    "# Überblick\r\n\r\nWide text with ünïcödé, 中文 and an astral 😀 character.\r\n\r\n"
    "## Zweiter Abschnitt\r\n\r\nThe frobnicator settings live here.\r\n"
)
"""A Markdown file with a heading, CRLF line ends, non-ASCII and a character beyond the BMP
(a surrogate pair in UTF-16)."""

FILES = {
    "le.md": b"\xff\xfe" + TEXT.encode("utf-16-le"),
    "be.md": b"\xfe\xff" + TEXT.encode("utf-16-be"),
    "wide32.md": b"\xff\xfe\x00\x00" + TEXT.encode("utf-32-le"),
    "wide32be.md": b"\x00\x00\xfe\xff" + TEXT.encode("utf-32-be"),
    "nobom.md": TEXT.encode("utf-16-le"),
}
SECTION = "::überblick/zweiter-abschnitt#2"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    root = tmp_path / "wide"
    root.mkdir()
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    page = "<html><head><title>T</title></head><body><h1>Wide page</h1><p>Frobnicator text.</p></body></html>"
    (root / "page16.html").write_bytes(page.encode("utf-16"))  # BOM + native order
    (root / "page32.html").write_bytes(page.replace("Wide", "Wider").encode("utf-32"))
    return root


def test_files_with_a_bom_are_indexed_and_without_one_are_binary(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "index", str(folder), "--repo", "w", "--json")
    report = json.loads(out)
    assert code == 0 and report["errors"] == []
    assert (report["docs_indexed"], report["skipped"]) == (
        6,
        [{"path": "nobom.md", "reason": "binary content (NUL byte)", "detail": ""}],
    )
    _, out, _ = _run(capsys, "toc", "w", "--json")
    ids = {s["id"] for s in json.loads(out)["sections"]}
    for name in ("le.md", "be.md", "wide32.md", "wide32be.md"):
        assert f"w::{name}{SECTION}" in ids
    assert {"w::page16.html::wide-page#1", "w::page32.html::wider-page#1"} <= ids
    _, out, _ = _run(capsys, "search", "w", "frobnicator settings", "--json")
    hits = [r["id"] for r in json.loads(out)["results"]]
    assert set(hits[:4]) == {f"w::{name}{SECTION}" for name in ("le.md", "be.md", "wide32.md", "wide32be.md")}


@pytest.mark.parametrize(
    ("name", "codec"), [("le.md", "utf-16-le"), ("be.md", "utf-16-be"), ("wide32.md", "utf-32-le")]
)
def test_offsets_and_hashes_are_those_of_the_stored_utf8_and_verify_in_both_copies(
    folder: Path, capsys: pytest.CaptureFixture[str], name: str, codec: str
) -> None:
    assert _run(capsys, "index", str(folder), "--repo", "w")[0] == 0
    code, out, _ = _run(capsys, "section", f"w::{name}{SECTION}", "--verify", "--json")
    read = json.loads(out)
    assert code == 0 and read["verified"] is True
    assert [(c["where"], c["ok"]) for c in read["checked"]] == [("cache", True), ("original", True)]
    utf8 = TEXT.encode("utf-8")  # the stored bytes: the UTF-8 form, BOM dropped, CRLF kept
    part = utf8[read["byte_start"] : read["byte_end"]]
    assert (
        read["content"]
        == part.decode("utf-8")
        == "## Zweiter Abschnitt\r\n\r\nThe frobnicator settings live here.\r\n"
    )
    assert hashlib.sha256(part).hexdigest() == read["content_hash"]
    code, out, _ = _run(capsys, "locate", "w", f"w::{name}{SECTION}", "--json")
    where = json.loads(out)
    assert (where["byte_range_of"], where["source_encoding"]) == ("stored_utf8", codec)
    assert (where["byte_start"], where["byte_end"]) == (read["byte_start"], read["byte_end"])
    code, out, _ = _run(capsys, "verify", "w", "--json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_a_changed_wide_file_is_a_mismatch(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "index", str(folder), "--repo", "w")[0] == 0
    sid = f"w::le.md{SECTION}"
    (folder / "le.md").write_bytes(b"\xff\xfe" + TEXT.replace("settings", "SETTINGS").encode("utf-16-le"))
    code, out, _ = _run(capsys, "section", sid, "--verify", "--json")
    assert code == 1 and [(c["where"], c["ok"]) for c in json.loads(out)["checked"]] == [
        ("cache", True),
        ("original", False),
    ]
    code, out, _ = _run(capsys, "verify", "w")
    assert code == 1 and f"MISMATCH (original) {sid}: changed" in out
    (folder / "le.md").write_bytes(TEXT.encode("utf-8"))  # the same text, now UTF-8: not the indexed file
    code, out, _ = _run(capsys, "verify", "w")
    assert code == 1
    assert (
        "MISMATCH (original) w::le.md: changed: the file is no longer UTF-16-LE text with its byte order mark"
        in out
    )


def test_bytes_that_do_not_decode_after_the_bom_are_an_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_bytes(b"\xff\xfe" + "# Fine\n".encode("utf-16-le"))
    lone = b"\x00\xd8"  # a high surrogate with no low one after it
    (tmp_path / "docs" / "odd.md").write_bytes(
        b"\xff\xfe" + "# A".encode("utf-16-le") + lone + "x\n".encode("utf-16-le")
    )
    code, out, err = _run(capsys, "index", str(tmp_path / "docs"), "--repo", "o")
    assert code == 0 and "1 indexed" in out
    reason = "not valid UTF-16-LE at byte 8 (illegal UTF-16 surrogate), after its byte order mark"
    assert err.splitlines() == [f"docmunch: error odd.md: {reason}"]


def test_a_second_run_finds_them_unchanged_and_extract_prints_the_text(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "index", str(folder), "--repo", "w")[0] == 0
    _, out, _ = _run(capsys, "index", str(folder), "--repo", "w", "--json")
    assert (json.loads(out)["docs_indexed"], json.loads(out)["docs_unchanged"]) == (0, 6)
    code, out, _ = _run(capsys, "extract", str(folder / "be.md"))
    assert code == 0 and out == TEXT
