"""``docmunch section --verify`` checks the user's original file too, and says what it checked."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from docmunch.cli import main
from docmunch.index import Index

DOC = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\r\n\r\n## Use\n\nUse it.\n"


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_bytes(DOC.encode())
    page = "<html><head><title>P</title></head><body><h1>Page</h1><p>Body.</p></body></html>"
    (docs / "page.html").write_text(page)
    assert main(["index", str(docs), "--repo", "d", "--json"]) == 0
    return docs, "d::guide.md::guide/install#2"


def _section(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["section", *argv])
    return status, capsys.readouterr().out


def test_unchanged_original_is_verified_in_both_copies(
    indexed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    docs, sid = indexed
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 0
    assert f"verified: true (cache ok; original {docs.resolve() / 'guide.md'} ok)" in out


def test_changed_original_fails_like_docmunch_verify(
    indexed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    docs, sid = indexed
    (docs / "guide.md").write_bytes(DOC.replace("installer", "INSTALLER").encode())
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 1
    assert "verified: false" in out and "cache ok" in out
    assert "MISMATCH: changed since it was indexed, re-index it" in out
    assert "Run the installer." in out  # the bytes shown are still the indexed ones
    status, data = _section(capsys, "d", sid, "--verify", "--json")
    record = json.loads(data)
    assert status == 1 and record["verified"] is False
    assert [(c["where"], c["ok"]) for c in record["checked"]] == [("cache", True), ("original", False)]
    capsys.readouterr()
    assert main(["verify", "d"]) == 1  # the two commands agree
    assert f"MISMATCH (original) {sid}" in capsys.readouterr().out


def test_a_change_elsewhere_in_the_file_keeps_this_section_verified(
    indexed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    docs, sid = indexed
    (docs / "guide.md").write_bytes(DOC.replace("Use it.", "Use it well.").encode())
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 0 and "original" in out and "ok)" in out


def test_deleted_or_shortened_originals(
    indexed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    docs, sid = indexed
    (docs / "guide.md").write_bytes(DOC.encode()[:30])
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 1 and "MISMATCH" in out
    (docs / "guide.md").unlink()
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 0 and "not checked: the file is gone" in out
    record = json.loads(_section(capsys, "d", sid, "--verify", "--json")[1])
    assert record["checked"][1]["ok"] is None and record["verified"] is True


def test_converted_sources_check_the_cache_only(
    indexed: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with Index.open(tmp_path / "home") as index:
        sid = next(s.id for s in index.toc("d", "page.html"))
    status, out = _section(capsys, "d", sid, "--verify")
    assert status == 0 and "cache ok; no original file to check" in out
    record = json.loads(_section(capsys, "d", sid, "--verify", "--json")[1])
    assert [c["where"] for c in record["checked"]] == ["cache"]


def test_mcp_get_section_reports_the_same_checks(indexed: tuple[Path, str], tmp_path: Path) -> None:
    from tests.serve.conftest import connect

    docs, sid = indexed
    (docs / "guide.md").write_bytes(DOC.replace("installer", "INSTALLER").encode())

    async def scenario() -> None:
        async with connect(tmp_path / "home") as client:
            read = await client.call_tool("get_section", {"repo": "d", "section_id": sid, "verify": True})
            assert read.structured_content["verified"] is False
            checked = read.structured_content["checked"]
            assert [(c["where"], c["ok"]) for c in checked] == [("cache", True), ("original", False)]

    anyio.run(scenario)


def test_raw_prints_the_sections_bytes_and_nothing_else(indexed: tuple[Path, str], tmp_path: Path) -> None:
    """``docmunch section --raw ID > file``: the file hashes to the section's content_hash (a
    user trial found the header line at byte 1 of such a file)."""
    import hashlib
    import os
    import subprocess
    import sys

    _docs, sid = indexed
    env = dict(os.environ, DOCMUNCH_HOME=str(tmp_path / "home"))
    with Index.open(tmp_path / "home") as index:
        expected = index.get_section("d", sid).section.content_hash
    for extra in ([], ["--verify"]):
        proc = subprocess.run(
            [sys.executable, "-m", "docmunch", "section", "--raw", *extra, sid],
            capture_output=True, env=env, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == b"## Install\n\nRun the installer.\r\n\r\n"  # CRLF kept, nothing added
        assert hashlib.sha256(proc.stdout).hexdigest() == expected
        assert (b"verified: true (cache ok; original " in proc.stderr) == bool(extra)


def test_raw_and_json_are_one_or_the_other(indexed: tuple[Path, str]) -> None:
    import os
    import subprocess
    import sys

    _docs, sid = indexed
    proc = subprocess.run(
        [sys.executable, "-m", "docmunch", "section", "--raw", "--json", sid],
        capture_output=True, text=True, env=dict(os.environ), check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert "argument --json: not allowed with argument --raw" in proc.stderr
