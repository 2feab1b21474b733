"""Hostile folder entries: only regular files are read; everything else is one skip line.

Before issue 12: a FIFO named ``x.md`` hung ``docmunch index`` forever, a character device
named ``x.md`` (``/dev/zero``) was read until memory ran out (MemoryError at a 1.5 GB cap),
a non-UTF-8 file name or a symlink loop aborted the run with "internal error", and file
names with newlines or escape codes split or coloured the error line.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import anyio
import pytest

from docmunch.errors import SourceError
from docmunch.index.walk import read_regular
from tests.hostile.budget import peak_rss_of_children, run_cli
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(300)

MAX_RSS_MB = 200
"""Peak RSS bound of a run over a folder of hostile entries (``/dev/zero`` took > 1.5 GB)."""
MAX_SECONDS = 60
"""A FIFO used to block forever; a run here takes about a second."""

GOOD = "# Good page\n\nThe wombat paragraph.\n"


def _char_device(path: Path) -> None:
    """A character device node with the numbers of ``/dev/zero`` (needs CAP_MKNOD)."""
    zero = os.stat("/dev/zero")
    try:
        os.mknod(path, 0o644 | stat.S_IFCHR, zero.st_rdev)
    except PermissionError:
        pytest.fail("creating a device node needs root (CAP_MKNOD); this suite runs as root here")


def _hostile_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder with good files and one of each hostile entry; returns it and the expected
    ``{printed name: reason}`` of every skip line."""
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / "sub" / "also-good.md").write_text("# Also good\n\nWombats again.\n", encoding="utf-8")
    os.mkfifo(root / "fifo.md")
    _char_device(root / "zero.md")
    os.symlink("loop-b.md", root / "loop-a.md")
    os.symlink("loop-a.md", root / "loop-b.md")
    os.symlink(root / "fifo.md", root / "to-fifo.md")
    os.symlink("sub", root / "dir-link.md")  # a link to a folder: ignored, not followed
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "sock.md"))
    bad = os.fsencode(root) + b"/caf\xe9.md"  # Latin-1 bytes: not UTF-8
    with open(bad, "wb") as f:
        f.write(b"# Latin-1 name\n")
    os.mkdir(os.fsencode(root) + b"/d\xffir")
    with open(os.fsencode(root) + b"/d\xffir/inner.md", "wb") as f:
        f.write(b"# inside an undecodable folder\n")
    expected = {
        "fifo.md": "not a regular file (a FIFO)",
        "zero.md": "not a regular file (a character device)",
        "loop-a.md": "symlink loop",
        "loop-b.md": "symlink loop",
        "to-fifo.md": "not a regular file (a FIFO)",
        "sock.md": "not a regular file (a socket)",
        "caf\\xe9.md": "file name is not valid UTF-8",
        "d\\xffir/": "folder name is not valid UTF-8",
    }
    return root, expected


def test_cli_skips_every_non_regular_entry_with_one_line(tmp_path: Path) -> None:
    root, expected = _hostile_folder(tmp_path)
    run = run_cli(["index", str(root), "--repo", "walk"], tmp_path / "home", timeout=MAX_SECONDS * 2)
    assert run.returncode == 0, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    skipped = {}
    for line in run.lines("skipped"):
        name, _, reason = line.removeprefix("docmunch: skipped ").partition(": ")
        skipped[name] = reason
    assert skipped == expected
    assert len(run.stderr.splitlines()) == len(expected)  # nothing but the skip lines
    assert "2 indexed" in run.stdout and f"{len(expected)} skipped" in run.stdout
    assert run.peak_rss_mb < MAX_RSS_MB, run.peak_rss_mb
    assert run.seconds < MAX_SECONDS, run.seconds

    toc = run_cli(["toc", "walk", "--json"], tmp_path / "home")
    assert {s["doc_path"] for s in json.loads(toc.stdout)["sections"]} == {"good.md", "sub/also-good.md"}


def test_json_report_is_valid_utf8_json(tmp_path: Path) -> None:
    root, expected = _hostile_folder(tmp_path)
    run = run_cli(
        ["index", str(root), "--repo", "walk", "--json"], tmp_path / "home", timeout=MAX_SECONDS * 2
    )
    report = json.loads(run.stdout)
    assert report["docs_indexed"] == 2 and report["docs_skipped"] == len(expected)
    assert run.returncode == 0 and run.stderr == ""


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("new\nline.md", "new\\nline.md"),
        ("\x1b[31mred\x1b[0m.md", "\\x1b[31mred\\x1b[0m.md"),
        ("bell\x07\rcr.md", "bell\\x07\\rcr.md"),
        ("rtl\u202eevil.md", "rtl\\u202eevil.md"),
    ],
)
def test_error_lines_escape_control_characters_in_names(tmp_path: Path, name: str, printed: str) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / name).write_bytes(b"# broken \xff UTF-8\n")
    run = run_cli(["index", str(root), "--repo", "names"], tmp_path / "home")
    assert run.returncode == 0
    message = "not valid UTF-8 at byte 9 (invalid start byte)"
    assert run.stderr.splitlines() == [f"docmunch: error {printed}: {message}"]
    assert "\x1b" not in run.stderr and "\u202e" not in run.stderr


def test_a_file_swapped_for_a_fifo_after_the_walk_never_blocks(tmp_path: Path) -> None:
    """The read itself re-checks the type on the open descriptor (walk → read race)."""
    fifo = tmp_path / "late.md"
    os.mkfifo(fifo)
    with pytest.raises(SourceError, match="FIFO"):
        read_regular(fifo, 1 << 20)
    with pytest.raises(SourceError, match="character device"):
        read_regular(Path("/dev/zero"), 1 << 20)
    grown = tmp_path / "grown.md"
    grown.write_bytes(b"x" * 100)
    with pytest.raises(SourceError, match="larger than 10 bytes"):
        read_regular(grown, 10)


def test_single_file_arguments_that_are_not_regular_files(tmp_path: Path) -> None:
    fifo = tmp_path / "x.md"
    os.mkfifo(fifo)
    run = run_cli(["index", str(fifo)], tmp_path / "home", timeout=MAX_SECONDS)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [f"docmunch: not a regular file or folder: {fifo}"]
    dev = tmp_path / "dev.md"
    os.symlink("/dev/zero", dev)
    run = run_cli(["index", str(dev)], tmp_path / "home", timeout=MAX_SECONDS)
    assert run.returncode == 1 and "not a regular file or folder" in run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB


def test_mcp_index_local_on_a_hostile_folder_keeps_serving(tmp_path: Path) -> None:
    root, expected = _hostile_folder(tmp_path)

    async def scenario() -> tuple[dict[str, object], str, float]:
        async with connect(tmp_path / "home") as client:
            with anyio.fail_after(MAX_SECONDS):
                result = await client.call_tool("index_local", {"path": str(root), "name": "walk"})
            found = await client.call_tool("search_sections", {"repo": "walk", "query": "wombat"})
            return json.loads(text_of(result)), text_of(found), peak_rss_of_children("serve")

    report, found, rss = anyio.run(scenario)
    assert report["docs_indexed"] == 2 and report["docs_skipped"] == len(expected)
    assert "good.md" in found and "sub/also-good.md" in found
    assert 0 < rss < MAX_RSS_MB + 100, rss
