"""``make demo`` (``scripts/demo.sh``) keeps its own throwaway index and says where it is.

A ``DOCMUNCH_HOME`` set in the user's environment names their real index: the demo leaves it
alone (it neither creates nor adds to it), says so, and ends by naming its own index folder
and the command that removes it. README tells the same, and the default folder is git-ignored.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_uses_its_own_index_and_says_how_to_remove_it(tmp_path: Path) -> None:
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "guide.md").write_text(
        "# Guide\n\nHow to use the gadget.\n\n## Install\n\nRun the gadget installer.\n"
    )
    real, demo = tmp_path / "real-home", tmp_path / "demo home"
    env = {
        **os.environ,
        "DOCS": str(docs),
        "DEMO_QUERY": "gadget installer",
        "DOCMUNCH_HOME": str(real),
        "DEMO_HOME": str(demo),
    }
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert not real.exists()  # the user's index is never touched
    assert any(demo.iterdir())
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"demo: your DOCMUNCH_HOME ({real}) is not used; the demo keeps its own index in {demo} "
        "(DEMO_HOME=path picks another)"
    )
    assert "verified: true" in done.stdout
    head, command = lines[-1].split("; remove it with: ")
    assert head == f"== the demo's own index is in {demo}"
    assert shlex.split(command) == ["rm", "-rf", str(demo)]
    subprocess.run(["bash", "-c", command], check=True)  # the printed command works as it is
    assert not demo.exists()


def test_readme_says_where_the_demo_index_lives_and_git_ignores_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`.docmunch-demo/`" in readme and "DEMO_HOME" in readme and "rm -rf .docmunch-demo" in readme
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".docmunch-demo/index.db"], cwd=ROOT, capture_output=True
    )
    assert ignored.returncode == 0
