"""Progress of long runs: count, rate and ETA at any width, on a TTY and off it."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

import docmunch.progress as progress_module
from docmunch.cli import main
from docmunch.progress import RunProgress, cut_left, render_line

REPO_ROOT = Path(__file__).resolve().parents[2]
LONG = "handbook/" + "deeply-nested-section/" * 6 + "a-rather-long-file-name-for-testing.md"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize("width", [200, 120, 100, 80, 72, 60, 50, 40, 30, 24])
def test_counts_and_eta_survive_every_width(width: int) -> None:
    line = render_line("indexing", 959, 1200, 48.12, 5.0, LONG, width)
    assert "959/1200" in line and "ETA 0:00:05" in line
    assert cell_len(line) <= width
    if width >= 50:
        assert "/s" in line and line.endswith("testing.md")  # the file name's end is what stays
    if width >= 80:
        assert line.startswith("indexing ") and "━" in line


def test_narrowest_lines_keep_only_the_counts() -> None:
    assert render_line("indexing", 959, 1200, 48.1, 5.0, LONG, 10) == "959/1200 ETA 0:00:05"


def test_unknown_total_and_rate() -> None:
    line = render_line("crawling", 0, 0, None, None, "", 80)
    assert line == "crawling 0/? -/s ETA -:--:--"


def test_crawl_messages_keep_their_failure_count() -> None:
    message = "3 failed · https://docs.example/" + "x/" * 40 + "p.html"
    line = render_line("crawling", 12, 40, 1.5, 30, message, 80)
    assert "3 failed · …" in line and line.endswith("p.html") and cell_len(line) <= 80


def test_control_characters_cannot_split_or_colour_the_line() -> None:
    line = render_line("indexing", 1, 2, 1.0, 1.0, "evil\nname\x1b[31m.md", 100)
    assert "\n" not in line and "\x1b" not in line and "evil\\nname\\x1b[31m.md" in line


def test_wide_characters_are_counted_in_cells() -> None:
    assert cut_left("文档/用户指南/概述.md", 9) == "…/概述.md"
    assert cell_len(cut_left("文档" * 20, 9)) <= 9


@settings(max_examples=200, deadline=None)
@given(
    done=st.integers(0, 10**7),
    total=st.integers(-1, 10**7),
    rate=st.none() | st.floats(0.001, 1e6),
    eta=st.none() | st.floats(0, 1e6),
    message=st.text(max_size=300),
    width=st.integers(1, 300),
)
def test_any_line_fits_or_is_only_the_counts(
    done: int, total: int, rate: float | None, eta: float | None, message: str, width: int
) -> None:
    line = render_line("indexing", done, total, rate, eta, message, width)
    counts = f"{done}/{total if total > 0 else '?'}"
    assert counts in line and "ETA" in line
    assert cell_len(line) <= width or line.split(" ") == [counts, "ETA", line.split(" ")[-1]]
    assert line.isprintable()


def test_live_line_on_a_narrow_terminal() -> None:
    out = io.StringIO()
    console = Console(file=out, width=60, force_terminal=True, color_system=None)
    clock = [0.0]
    progress = RunProgress("indexing", console=console, clock=lambda: clock[0])
    with progress.open():
        for done in range(1, 5):
            clock[0] += 2
            progress(done, 10, LONG)
        console.print(progress)
    frames = [ANSI.sub("", part) for part in re.split(r"[\r\n]", out.getvalue())]
    shown = [f for f in frames if "4/10" in f]
    assert shown, frames
    assert shown[-1] == "indexing 4/10 0.5/s ETA 0:00:12 …ng-file-name-for-testing.md"  # 60 cells
    assert all(cell_len(f) <= 60 for f in frames)


def test_plain_lines_off_a_tty_at_an_interval() -> None:
    stream = io.StringIO()
    clock = [0.0]
    progress = RunProgress("indexing", stream=stream, clock=lambda: clock[0], plain_interval=10)
    with progress.open():
        for done in range(1, 26):
            clock[0] = float(done)
            progress(done, 100, f"docs/file-{done}.md")
    lines = stream.getvalue().splitlines()
    assert lines == [
        "docmunch: indexing 10/100 1.0/s ETA 0:01:30 docs/file-10.md",
        "docmunch: indexing 20/100 1.0/s ETA 0:01:20 docs/file-20.md",
    ]


def _docs(root: Path, files: int) -> Path:
    folder = root / "docs"
    deep = folder / "guide" / ("chapter-with-a-long-name/" * 5)
    deep.mkdir(parents=True)
    for i in range(files):
        name = f"section-{i:03d}-with-a-long-descriptive-name.md"
        (deep / name).write_text(f"# Section {i}\n\nText {i}.\n")
    return folder


def test_cli_off_a_tty_writes_plain_progress_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(progress_module, "PLAIN_INTERVAL_S", 0.0)
    assert main(["index", str(_docs(tmp_path, 5)), "--repo", "d"]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("docmunch: indexing")]
    assert len(lines) == 5 and lines[-1].startswith("docmunch: indexing 5/5 ")
    assert all("/s ETA " in ln and ln.endswith("-name.md") for ln in lines)
    assert "\r" not in err and "\x1b" not in err


def test_cli_json_runs_print_no_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(progress_module, "PLAIN_INTERVAL_S", 0.0)
    assert main(["index", str(_docs(tmp_path, 3)), "--repo", "d", "--json"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminal")
def test_cli_on_a_real_narrow_terminal(tmp_path: Path) -> None:
    """The CLI's stderr is a pty 50 columns wide: every frame fits and shows whole counts."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 50, 0, 0))
    env = {**os.environ, "DOCMUNCH_HOME": str(tmp_path / "home"), "COLUMNS": "50", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "docmunch", "index", str(_docs(tmp_path, 40)), "--repo", "d"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
        cwd=REPO_ROOT,
    )
    os.close(slave)
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    frames = [ANSI.sub("", f) for f in re.split(r"[\r\n]", received.decode("utf-8", "replace"))]
    frames = [f for f in frames if f.strip()]
    assert any(re.fullmatch(r"indexing \d+/40 .*ETA \S+ …\S*-name\.md", f) for f in frames), frames
    assert all(cell_len(f) <= 50 for f in frames), [f for f in frames if cell_len(f) > 50]
