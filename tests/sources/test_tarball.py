"""Safe tarball extraction: traversal, links, bombs and filters, on real tar streams."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from docmunch.errors import SourceError
from docmunch.sources.tarball import TarLimits, extract_tarball


def _tar(entries: list[tuple[str, bytes | None, str]]) -> io.BytesIO:
    """Build a gzip tar: (name, data, kind) with kind in file/dir/symlink/hardlink/fifo."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data, kind in entries:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data or b"")
                tar.addfile(info, io.BytesIO(data or b""))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
                         "hardlink": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE}[kind]
            if kind in ("symlink", "hardlink"):
                info.linkname = (data or b"").decode()
            tar.addfile(info)
    buf.seek(0)
    return buf


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def test_good_archive_strips_top_folder(tmp_path: Path) -> None:
    stream = _tar([("o-r-abc/", None, "dir"), ("o-r-abc/README.md", b"# Hi\n", "file"),
                   ("o-r-abc/docs/guide.md", b"## Guide\n", "file"), ("o-r-abc/src/x.py", b"x", "file")])
    report = extract_tarball(stream, tmp_path, keep=lambda p: p.endswith(".md"))
    assert _files(tmp_path) == {"README.md", "docs/guide.md"}
    assert (tmp_path / "docs/guide.md").read_bytes() == b"## Guide\n"
    assert report.skipped_unwanted == 1 and report.total_bytes == 14


def test_malicious_members_are_refused_and_nothing_lands_outside(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    outside = tmp_path / "outside.md"
    stream = _tar([
        ("o-r-abc/../../outside.md", b"pwned", "file"),
        ("/etc/evil.md", b"pwned", "file"),
        ("o-r-abc/link.md", b"../../outside.md", "symlink"),
        ("o-r-abc/abs-link.md", b"/etc/passwd", "symlink"),
        ("o-r-abc/hard.md", b"o-r-abc/../../outside.md", "hardlink"),
        ("o-r-abc/pipe.md", None, "fifo"),
        ("o-r-abc/ok.md", b"# ok\n", "file"),
    ])
    report = extract_tarball(stream, dest)
    assert _files(dest) == {"ok.md"}
    assert not outside.exists()
    assert len(report.skipped_unsafe) == 6


def test_symlinked_directory_cannot_redirect_a_later_file(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    stream = _tar([("o-r-abc/docs", str(tmp_path).encode(), "symlink"),
                   ("o-r-abc/docs/escape.md", b"pwned", "file")])
    extract_tarball(stream, dest)
    assert not (tmp_path / "escape.md").exists()
    assert (dest / "docs" / "escape.md").read_bytes() == b"pwned"  # a real folder inside dest


def test_oversize_file_skipped_and_total_cap_stops(tmp_path: Path) -> None:
    limits = TarLimits(max_files=10, max_file_bytes=100, max_total_bytes=250)
    (tmp_path / "a").mkdir()
    report = extract_tarball(_tar([("t/big.md", b"x" * 101, "file"), ("t/a.md", b"a" * 100, "file")]),
                             tmp_path / "a", limits=limits)
    assert report.skipped_large == ["t/big.md"] and report.written == ["a.md"]
    (tmp_path / "b").mkdir()
    with pytest.raises(SourceError, match="larger than 250 bytes"):
        extract_tarball(_tar([(f"t/{i}.md", b"y" * 100, "file") for i in range(3)]), tmp_path / "b",
                        limits=limits)
    (tmp_path / "c").mkdir()
    with pytest.raises(SourceError, match="more than 10 files"):
        extract_tarball(_tar([(f"t/{i}.md", b"z", "file") for i in range(11)]), tmp_path / "c",
                        limits=limits)


def test_not_a_tarball(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        extract_tarball(io.BytesIO(b"<html>rate limited</html>"), tmp_path)
