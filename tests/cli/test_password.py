"""``--password-stdin``: the password of an encrypted PDF from a pipe or a terminal prompt, never
on the command line (real ``docmunch`` processes, the real encrypted fixture PDF)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docmunch.cli.password import PROMPT

DOCMUNCH = [sys.executable, "-m", "docmunch"]


@pytest.fixture(scope="module")
def encrypted(fixtures_dir: Path) -> tuple[Path, str]:
    """The encrypted fixture PDF and its password (from the office fixtures' manifest)."""
    office = fixtures_dir / "office"
    manifest = json.loads((office / "manifest.json").read_text(encoding="utf-8"))
    return office / "pdf" / "password-example.pdf", manifest["pdf/password-example.pdf"]["password"]


def _run(home: Path, *argv: str, stdin: str | None = "") -> subprocess.CompletedProcess[str]:
    """``docmunch ARGV`` with ``stdin`` as its standard input (``None``: closed)."""
    command = [*DOCMUNCH, *argv]
    if stdin is None:  # started with fd 0 closed, as `docmunch … <&-` in a shell
        command = ["/bin/sh", "-c", 'exec "$@" <&-', "sh", *command]
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, encoding="utf-8", timeout=120, check=False,
        env={**os.environ, "DOCMUNCH_HOME": str(home)},
    )  # fmt: skip


def test_password_from_a_pipe_opens_the_encrypted_pdf(tmp_path: Path, encrypted: tuple[Path, str]) -> None:
    pdf, password = encrypted
    home = tmp_path / "home"
    locked = _run(home, "index", str(pdf), "--repo", "locked", "--json")
    assert locked.returncode == 1
    assert json.loads(locked.stdout)["errors"][0]["error"] == (
        "encrypted PDF; pass its password with --password-stdin (or --password PW)"
    )
    done = _run(home, "index", str(pdf), "--repo", "enc", "--password-stdin", "--json", stdin=password + "\n")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["docs_indexed"] == 1 and report["errors"] == [] and report["sections"] >= 1
    found = _run(home, "search", "enc", "network registration key", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["results"], found.stderr
    # extract reads it the same way; a Windows line ending is not part of the password
    text = _run(home, "extract", str(pdf), "--password-stdin", stdin=password + "\r\nignored line\n")
    assert text.returncode == 0 and "Backup4all" in text.stdout, text.stderr


def test_a_wrong_password_from_a_pipe_is_the_files_error(tmp_path: Path, encrypted: tuple[Path, str]) -> None:
    pdf, password = encrypted
    wrong = _run(tmp_path / "home", "index", str(pdf), "--repo", "enc", "--password-stdin", stdin="nope\n")
    assert wrong.returncode == 1
    assert "0 indexed" in wrong.stdout and "1 error;" in wrong.stdout
    assert wrong.stderr == (
        "docmunch: error password-example.pdf: wrong password for encrypted PDF; "
        "pass its password with --password-stdin (or --password PW)\n"
    )
    trailing_space = _run(tmp_path / "home", "extract", str(pdf), "--password-stdin", stdin=password + " \n")
    assert trailing_space.returncode == 1 and "wrong password" in trailing_space.stderr  # kept as typed


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("", "standard input is empty"),
        ("\nsecret\n", "the first line of standard input is empty"),
        (None, "standard input is closed"),
    ],
)
def test_nothing_to_read_is_a_one_line_usage_error(
    tmp_path: Path, encrypted: tuple[Path, str], stdin: str | None, why: str
) -> None:
    pdf, _password = encrypted
    for command in ("index", "extract"):
        proc = _run(tmp_path / "home", command, str(pdf), "--password-stdin", stdin=stdin)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and f"docmunch {command}: --password-stdin: {why};" in proc.stderr
    assert not (tmp_path / "home").exists()  # refused before any index work


def test_password_and_password_stdin_exclude_each_other(tmp_path: Path, encrypted: tuple[Path, str]) -> None:
    pdf, password = encrypted
    both = _run(tmp_path / "home", "index", str(pdf), "--password", password, "--password-stdin")
    assert both.returncode == 2 and both.stderr.count("\n") == 1
    assert "argument --password-stdin: not allowed with argument --password" in both.stderr
    help_text = " ".join(_run(tmp_path / "home", "index", "--help").stdout.split())
    assert "other users can see it in process lists (ps): prefer --password-stdin" in help_text


def test_at_a_terminal_the_password_is_asked_for_without_echo(
    tmp_path: Path, encrypted: tuple[Path, str]
) -> None:
    pdf, password = encrypted
    env = {**os.environ, "DOCMUNCH_HOME": str(tmp_path / "home")}
    argv = [*DOCMUNCH, "index", str(pdf), "--repo", "enc", "--password-stdin", "--json"]
    pid, terminal = pty.fork()  # the child's stdin, stdout, stderr and /dev/tty are the pty
    if pid == 0:  # pragma: no cover - the child process
        os.execve(argv[0], argv, env)
    seen = _read_until(terminal, PROMPT.encode())
    assert seen.endswith(PROMPT.encode()), seen
    os.write(terminal, password.encode() + b"\n")
    after = _read_until(terminal, None)
    _pid, status = os.waitpid(pid, 0)
    os.close(terminal)
    assert os.waitstatus_to_exitcode(status) == 0, after
    assert password.encode() not in after  # not echoed
    report = json.loads(after[after.index(b"{") :])
    assert report["docs_indexed"] == 1 and report["errors"] == []


def _read_until(fd: int, end: bytes | None, *, seconds: float = 90) -> bytes:
    """What the pty ``fd`` shows until it ends with ``end`` (``None``: until the child closes it)."""
    out = b""
    deadline = time.monotonic() + seconds
    while end is None or not out.endswith(end):
        left = deadline - time.monotonic()
        assert left > 0, f"timed out; the terminal showed {out!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child has closed the terminal
            chunk = b""
        if not chunk:
            if end is None:
                return out
            raise AssertionError(f"the terminal closed after {out!r}")
        out += chunk
    return out
