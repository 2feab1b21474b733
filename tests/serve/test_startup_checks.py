"""What ``docmunch serve`` can know is wrong before the first call, it says at startup.

A second trial of the day: with ``DOCMUNCH_HOME`` pointing at a file the server started and every
call failed; ``DOCMUNCH_MAX_RESPONSE_BYTES`` set to ``abc`` or ``-5`` was only mentioned on a later
call (or never), and a ceiling above 1 MiB over HTTP gave no hint that the SDK's HTTP client
refuses such results.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.serve.conftest import (
    REPO_ROOT,
    SERVE_CMD,
    free_port,
    server_env,
    start_serve,
    stop_serve,
    wait_for_port,
)

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("http", [False, True])
def test_a_home_that_is_a_file_is_refused_at_startup(tmp_path: Path, http: bool) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder\n")
    args = ["--http", "127.0.0.1:0"] if http else []
    done = subprocess.run(
        [*SERVE_CMD, *args], capture_output=True, env=server_env(home), timeout=60, cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode().strip().splitlines()[-1] == (
        f"docmunch serve: error: docmunch home {home} is a file, not a folder (set DOCMUNCH_HOME to a folder)"
    )


@pytest.mark.parametrize(
    ("value", "warning"),
    [
        ("abc", "DOCMUNCH_MAX_RESPONSE_BYTES='abc' is not an integer; using 1 MiB"),
        ("-5", "DOCMUNCH_MAX_RESPONSE_BYTES=-5 is below the least ceiling; using 4096"),
        ("2000000", "DOCMUNCH_MAX_RESPONSE_BYTES=2000000 is above 1 MiB"),
    ],
)
def test_a_questionable_ceiling_is_named_at_startup(tmp_path: Path, value: str, warning: str) -> None:
    port = free_port()
    proc = start_serve(
        ["--http", f"127.0.0.1:{port}"], server_env(tmp_path / "home", DOCMUNCH_MAX_RESPONSE_BYTES=value)
    )
    wait_for_port(port, proc)  # listening: the startup checks are behind it, no call was made
    _, err = stop_serve(proc)
    assert warning in err.decode()


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_home_that_is_a_link_to_nothing_is_refused_at_startup(tmp_path: Path, kind: str) -> None:
    home = tmp_path / "home"
    if kind == "dangling":
        home.symlink_to(tmp_path / "gone")
    else:
        other = tmp_path / "other"
        home.symlink_to(other)
        other.symlink_to(home)
    done = subprocess.run(
        [*SERVE_CMD], capture_output=True, env=server_env(home), timeout=60, cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == b""
    assert "is a symbolic link to nothing" in done.stderr.decode().strip().splitlines()[-1]
