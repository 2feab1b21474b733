"""Writers of one repo serialise; a killed run is cleaned up and reported; verify sees appends.

Before issue 12: two concurrent ``docmunch index`` runs of one repo from different trees
interleaved their batches (the repo ended up part one tree, part the other); a run killed
before its first commit left an empty repo, and one killed mid-run left raw-cache files no
document refers to; ``verify`` said "ok" for a file with text appended after its last
section.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docmunch.index import Index
from tests.hostile.budget import REPO_ROOT, cli_env, run_cli

pytestmark = pytest.mark.timeout(600)


def _tree(root: Path, tag: str, count: int) -> Path:
    for i in range(count):
        folder = root / f"part{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(f"Paragraph {j} of {tag} file {i}, about {tag}-topic words." for j in range(40))
        (folder / f"{tag}-{i:04d}.md").write_text(f"# {tag} file {i}\n\n{body}\n\n## More {i}\n\nEnd.\n")
    return root


def _start(home: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "docmunch", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=REPO_ROOT,
    )


def _doc_paths(home: Path, repo: str) -> set[str]:
    with Index.open(home) as index:
        return {d.doc_path for d in index.list_docs(repo)}


def test_two_writers_with_different_trees_serialise(tmp_path: Path) -> None:
    tree_a = _tree(tmp_path / "a", "alpha", 300)
    tree_b = _tree(tmp_path / "b", "beta", 300)
    home = tmp_path / "home"
    procs = [_start(home, "index", str(tree), "--repo", "shared", "--json") for tree in (tree_a, tree_b)]
    outputs = [p.communicate(timeout=400) for p in procs]
    codes = sorted(p.returncode for p in procs)
    # the first to take the repo's lock indexes its tree; the second then finds the repo holding
    # another folder and refuses (without --replace) instead of replacing it
    assert codes == [0, 1], [err.decode() for _, err in outputs]
    refused = next(err.decode() for p, (_, err) in zip(procs, outputs, strict=True) if p.returncode)
    assert "repo 'shared' holds" in refused and "--replace" in refused
    docs = _doc_paths(home, "shared")
    names = {Path(p).name.split("-")[0] for p in docs}
    assert len(names) == 1, f"interleaved: {sorted(names)}"  # one whole tree, never a mix
    assert len(docs) == 300
    with Index.open(home) as index:
        assert index.verify_repo("shared").ok
    # with --replace the two runs serialise and the repo ends as one whole tree
    replace = ("--repo", "shared", "--replace", "--json")
    procs = [_start(home, "index", str(t), *replace) for t in (tree_a, tree_b)]
    for proc in procs:
        _, err = proc.communicate(timeout=400)
        assert proc.returncode == 0, err.decode()
    docs = _doc_paths(home, "shared")
    assert len({Path(p).name.split("-")[0] for p in docs}) == 1 and len(docs) == 300


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def _journal_running(home: Path) -> bool:
    for lock in (home / "locks").glob("*.lock"):
        try:
            if '"running"' in lock.read_text():
                return True
        except OSError:
            continue
    return False


def _committed(home: Path, repo: str) -> int:
    try:
        with sqlite3.connect(home / "index.sqlite3", timeout=30) as conn:
            return int(conn.execute(
                "SELECT count(*) FROM docs d JOIN repos r ON r.id = d.repo_id WHERE r.name = ?", (repo,)
            ).fetchone()[0])
    except sqlite3.Error:
        return 0


def _repo_row(home: Path, repo: str) -> bool:
    try:
        with sqlite3.connect(home / "index.sqlite3", timeout=30) as conn:
            return conn.execute("SELECT 1 FROM repos WHERE name = ?", (repo,)).fetchone() is not None
    except sqlite3.Error:
        return False


def _raw_files(home: Path) -> set[str]:
    return {p.name for p in (home / "raw").glob("*/*") if not p.name.startswith(".")}


def _referenced(home: Path) -> set[str]:
    with sqlite3.connect(home / "index.sqlite3") as conn:
        return {row[0] for row in conn.execute("SELECT raw_hash FROM docs")}


def test_kill_before_the_first_commit_leaves_no_empty_repo(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "t", "gamma", 400)
    home = tmp_path / "home"
    run_cli(["index", str(_tree(tmp_path / "other", "other", 3)), "--repo", "other"], home)
    proc = _start(home, "index", str(tree), "--repo", "fresh")
    try:
        # started: its journal says so (or, before issue 12, its repo row already exists)
        assert _wait_for(lambda: _journal_running(home) or _repo_row(home, "fresh"), 60), "never started"
        assert _committed(home, "fresh") == 0
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    listed = run_cli(["list", "--json"], home)
    assert [r["repo"] for r in json.loads(listed.stdout)["repos"]] == ["other"]


def test_kill_mid_run_is_swept_and_reported_by_the_next_run(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "t", "delta", 900)
    home = tmp_path / "home"
    proc = _start(home, "index", str(tree), "--repo", "killed")
    try:
        assert _wait_for(lambda: _committed(home, "killed") > 0, 120), "no batch was committed"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.communicate()
    committed = _committed(home, "killed")
    assert 0 < committed < 900
    orphans_after_kill = _raw_files(home) - _referenced(home)
    listed = json.loads(run_cli(["list", "--json"], home).stdout)["repos"]
    assert [v["last_run"] for g in listed for v in g["versions"]] == ["interrupted"]  # list says so

    # Indexing any repo sweeps what the killed run left in the raw cache ...
    other = run_cli(["index", str(_tree(tmp_path / "o", "other", 2)), "--repo", "other"], home)
    assert other.returncode == 0 and "note:" not in other.stderr
    assert _raw_files(home) - _referenced(home) == set()
    # ... and the next run of the killed repo says so, and completes it.
    again = run_cli(["index", str(tree), "--repo", "killed", "--json"], home)
    report = json.loads(again.stdout)
    assert report["interrupted_run"]["repo"] == "killed"
    assert report["docs_unchanged"] >= committed
    assert report["docs_indexed"] + report["docs_unchanged"] == 900
    human = run_cli(["index", str(tree), "--repo", "killed"], home)
    assert "note:" not in human.stderr  # reported once
    listed = json.loads(run_cli(["list", "--json"], home).stdout)["repos"]
    states = {v["repo"]: v["last_run"] for g in listed for v in g["versions"]}
    assert states == {"killed": None, "other": None}
    print(f"orphan raw files left by the kill: {len(orphans_after_kill)}")


def test_verify_sees_text_appended_after_the_last_section(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    page = root / "page.md"
    page.write_text("# Title\n\nBody.\n", encoding="utf-8")
    (root / "other.md").write_text("# Other\n\nText.\n", encoding="utf-8")
    home = tmp_path / "home"
    assert run_cli(["index", str(root), "--repo", "v"], home).returncode == 0
    assert run_cli(["verify", "v"], home).returncode == 0
    with page.open("a", encoding="utf-8") as f:
        f.write("Appended, outside every section's hash until re-indexed.\n")
    changed = run_cli(["verify", "v", "--json"], home)
    assert changed.returncode == 1
    mismatches = json.loads(changed.stdout)["mismatches"]
    assert mismatches == [
        {"id": "v::page.md", "doc_path": "page.md", "expected": mismatches[0]["expected"],
         "actual": None, "reason": mismatches[0]["reason"], "where": "original"}
    ]
    assert mismatches[0]["reason"].startswith("the file is longer than the ")
    said = run_cli(["verify", "v"], home).stdout
    assert "the file is longer than the " in said and "got longer" not in said
    # Same length, different bytes outside the sections: the front matter.
    page.write_text("---\na: 1\n---\n# Title\n\nBody.\n", encoding="utf-8")
    run_cli(["index", str(root), "--repo", "v"], home)
    page.write_text("---\na: 2\n---\n# Title\n\nBody.\n", encoding="utf-8")
    fm = json.loads(run_cli(["verify", "v", "--json"], home).stdout)["mismatches"]
    assert [(m["id"], m["where"]) for m in fm] == [("v::page.md", "original")]
    assert len(fm[0]["actual"]) == 64 and fm[0]["reason"].startswith("changed outside its sections")
    # An original replaced by a FIFO is not read (verify never blocks).
    page.unlink()
    os.mkfifo(page)
    fifo = run_cli(["verify", "v", "--json"], home, timeout=60)
    assert fifo.returncode == 0 and json.loads(fifo.stdout)["ok"] is True


@pytest.mark.parametrize("kind", ["page", "pack"])
def test_web_and_pack_writers_wait_for_the_repo_lock(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page index and a pack import take the same per-repo lock as a folder run: while another
    run holds the repo they wait, and give up with a LimitExceeded after the configured wait."""
    from docmunch.errors import LimitExceeded
    from docmunch.index.runlock import RepoRun
    from docmunch.sources import web
    from tests.web.siteserver import Reply, SiteServer

    home = tmp_path / "home"
    server = SiteServer()
    server.routes["/doc.md"] = Reply(headers={"Content-Type": "text/markdown"}, body=b"# T\n\nBody.\n")
    pack = tmp_path / "r.dmpack"
    try:
        with Index.open(home) as index:
            web.index_url(index, server.url("/doc.md"), allow_private=True, repo="r")
            index.export_pack("r", pack)
            monkeypatch.setenv("DOCMUNCH_REPO_LOCK_WAIT_SECONDS", "1")
            with RepoRun(home, "r"), pytest.raises(LimitExceeded):
                if kind == "page":
                    web.index_url(index, server.url("/doc.md"), allow_private=True, repo="r")
                else:
                    index.import_pack(pack, replace=True)
            # Once the lock is free the same call goes through.
            if kind == "page":
                again = web.index_url(index, server.url("/doc.md"), allow_private=True, repo="r")
                assert again.docs_unchanged == 1
            else:
                assert index.import_pack(pack, replace=True).replaced
    finally:
        server.close()
