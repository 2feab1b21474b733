"""Hostile tarballs: an oversized pax header is read past in chunks, duplicate names replace.

Before issue 12 a 204 KB ``.tar.gz`` holding one 200 MB pax header peaked at 627 MB while
``tarfile`` parsed it, and a second member with an already-written name aborted the whole
extraction ("broken tar archive: File exists").
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from docmunch.sources.tarball import TAR_MAX_HEADER_BYTES, extract_tarball
from tests.hostile.budget import REPO_ROOT

pytestmark = pytest.mark.timeout(300)

MAX_RSS_MB = 150
"""Peak RSS bound of extracting the pax-header bomb (627 MB before)."""


def _add(archive: tarfile.TarFile, name: str, data: bytes, **pax: str) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    if pax:
        info.pax_headers = pax
    archive.addfile(info, io.BytesIO(data))


def _pax_bomb(path: Path, header_bytes: int) -> None:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        _add(archive, "o-r-sha/before.md", b"# Before\n")
        _add(archive, "o-r-sha/bomb.md", b"# Bomb\n", comment="x" * header_bytes)
        long_name = "o-r-sha/" + "d" * 200 + "/deep.md"  # a real pax path header, small
        _add(archive, long_name, b"# Long name\n")
        _add(archive, "o-r-sha/after.md", b"# After\n")


def test_pax_header_bomb_is_read_past_in_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.tar.gz"
    _pax_bomb(bomb, 200 * 2**20)
    assert bomb.stat().st_size < 300_000
    script = (
        "import sys, json, pathlib\n"
        "from docmunch.sources.tarball import extract_tarball\n"
        "with open(sys.argv[1], 'rb') as f:\n"
        "    r = extract_tarball(f, pathlib.Path(sys.argv[2]))\n"
        "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0].split()[1]\n"
        "print(json.dumps({'written': r.written, 'unsafe': r.skipped_unsafe, 'rss_mb': int(hwm) / 1024}))\n"
    )
    dest = tmp_path / "out"
    dest.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script, str(bomb), str(dest)],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["unsafe"] == ["o-r-sha/bomb.md"]
    assert sorted(result["written"]) == ["after.md", "before.md", "d" * 200 + "/deep.md"]
    assert result["rss_mb"] < MAX_RSS_MB, result["rss_mb"]
    assert (dest / "after.md").read_bytes() == b"# After\n"


def test_header_limit_is_raised_by_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = tmp_path / "small-bomb.tar.gz"
    _pax_bomb(bomb, 2 * TAR_MAX_HEADER_BYTES.default)
    with bomb.open("rb") as f:
        (tmp_path / "a").mkdir()
        assert extract_tarball(f, tmp_path / "a").skipped_unsafe == ["o-r-sha/bomb.md"]
    monkeypatch.setenv("DOCMUNCH_TAR_MAX_HEADER_BYTES", str(4 * TAR_MAX_HEADER_BYTES.default))
    (tmp_path / "b").mkdir()
    with bomb.open("rb") as f:
        report = extract_tarball(f, tmp_path / "b")
    assert report.skipped_unsafe == [] and "bomb.md" in report.written


def test_duplicate_names_keep_the_last_member(tmp_path: Path) -> None:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        _add(archive, "o-r-sha/a.md", b"# First\n")
        _add(archive, "o-r-sha/b.md", b"# B\n")
        _add(archive, "o-r-sha/a.md", b"# Second, longer\n")
        _add(archive, "o-r-sha/dir/x.md", b"# X\n")
        _add(archive, "o-r-sha/dir", b"a file where a folder is")  # cannot be written: skipped
        _add(archive, "o-r-sha/c.md", b"# C\n")
    data.seek(0)
    dest = tmp_path / "out"
    dest.mkdir()
    report = extract_tarball(data, dest)
    assert report.written == ["a.md", "b.md", "dir/x.md", "c.md"]
    assert report.duplicates == ["a.md"]
    assert report.skipped_unsafe == ["o-r-sha/dir"]
    assert (dest / "a.md").read_bytes() == b"# Second, longer\n"
    assert report.total_bytes == sum(len(p.read_bytes()) for p in dest.rglob("*.md"))
    assert not list(dest.glob(".tar-*"))
