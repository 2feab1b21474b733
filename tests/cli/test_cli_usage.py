"""Usage mistakes a new user makes, through the real ``docmunch`` process: near-miss options,
unknown repos, a pack folder that does not exist, options that do not apply, a refresh of a
repo indexed with ``--allow-private`` (exit 2 for usage errors, one line, no traceback)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.crawl.routes import page, serve

pytestmark = pytest.mark.timeout(180)


def _cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    env.pop("DOCMUNCH_ALLOW_PRIVATE", None)
    return subprocess.run(
        [sys.executable, "-m", "docmunch", *argv], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("usage")
    for name, text in {
        "rust": "# Threads\n\nSpawn threads and join them; --limt is a typo.\n",
        "k8s-en": "# Scheduler\n\nThe scheduler places pods.\n",
        "k8s-zh": "# 调度器\n\n调度器挑选节点。\n",
    }.items():
        folder = root / name
        folder.mkdir()
        (folder / "index.md").write_text(text, encoding="utf-8")
        assert _cli(root / "home", "index", str(folder), "--repo", name).returncode == 0
    return root / "home"


@pytest.mark.parametrize(
    ("argv", "typo", "meant"),
    [
        (["search", "rust", "threads", "--limt", "3"], "--limt", "--limit"),
        (["search", "rust", "threads", "--jsn"], "--jsn", "--json"),
        (["search", "--limt", "3", "rust", "threads"], "--limt", "--limit"),
        (["search", "rust", "threads", "--limit=3", "--snipet=20"], "--snipet", "--snippet"),
        (["search", "rust", "--lim", "3", "threads"], "--lim", "--limit"),
    ],
)
def test_near_miss_search_options_are_usage_errors(
    home: Path, argv: list[str], typo: str, meant: str
) -> None:
    run = _cli(home, *argv)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"docmunch search: unknown option '{typo}' (did you mean {meant}?); "
        "to search for it, put it after '--'\n"
    )


def test_option_like_query_words_still_search(home: Path) -> None:
    escaped = _cli(home, "search", "rust", "threads", "--json", "--", "--limt")
    assert escaped.returncode == 0, escaped.stderr
    answer = json.loads(escaped.stdout)
    assert answer["_meta"]["query"] == "threads --limt" and answer["results"]
    far = _cli(home, "search", "rust", "--dry-run", "threads", "-j", "--json")  # not near any option
    assert far.returncode == 0 and json.loads(far.stdout)["_meta"]["query"] == "--dry-run threads -j"


def test_unrecognized_arguments_name_the_subcommand(home: Path, tmp_path: Path) -> None:
    run = _cli(home, "index", str(tmp_path), "--repo", "t1", "--verison", "2")
    assert run.returncode == 2
    assert run.stderr == (
        "docmunch index: unrecognized arguments: --verison 2 (did you mean --version?) "
        "(see 'docmunch index --help')\n"
    )
    other = _cli(home, "toc", "rust", "--trea")
    assert other.returncode == 2 and other.stderr.startswith("docmunch toc: unrecognized arguments: --trea")
    assert "(did you mean --tree?)" in other.stderr and "Traceback" not in other.stderr


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["toc", "k8s"], "(did you mean k8s-en, k8s-zh?)"),
        (["search", "RUST", "threads"], "(did you mean rust?)"),
        (["verify", "rust "], "(did you mean rust?)"),
        (["refresh", "Rust"], "(did you mean rust?)"),
    ],
)
def test_unknown_repos_get_suggestions(home: Path, argv: list[str], hint: str) -> None:
    run = _cli(home, *argv)
    assert run.returncode == 1 and hint in run.stderr and run.stderr.count("\n") == 1, run.stderr
    far = _cli(home, "toc", "python")
    assert far.returncode == 1 and "did you mean" not in far.stderr


def test_export_into_a_missing_folder_is_an_error(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "x.dmpack"
    run = _cli(home, "export", "rust", "-o", str(target))
    assert run.returncode == 1 and "no such folder" in run.stderr and str(target.parent) in run.stderr
    assert not (tmp_path / "nonexistent").exists()
    ok = _cli(home, "export", "rust", "-o", str(tmp_path / "x.dmpack"))
    assert ok.returncode == 0 and (tmp_path / "x.dmpack").is_file()


def test_options_that_do_not_apply_are_warned_about(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    run = _cli(home, "index", str(folder), "--repo", "warned", "--crawl", "--max-pages", "3")
    assert run.returncode == 0
    warnings = [ln for ln in run.stderr.splitlines() if ln.startswith("docmunch: warning:")]
    assert warnings == [
        "docmunch: warning: --crawl does not apply to a local folder or file; ignored",
        "docmunch: warning: --max-pages does not apply to a local folder or file; ignored",
    ]
    quiet = _cli(home, "index", str(folder), "--repo", "warned")
    assert quiet.returncode == 0 and "warning" not in quiet.stderr


def test_web_url_options_warn_and_refresh_keeps_allow_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    links = [f"/p{i}" for i in range(4)]
    site = serve({"/": page("Home", links), **{link: page(f"Page {link}") for link in links}})
    try:
        single = _cli(home, "index", site.url("/p0"), "--allow-private", "--path", "docs", "--max-pages", "3")
        assert single.returncode == 0, single.stderr
        assert "docmunch: warning: --path does not apply to a web URL; ignored" in single.stderr
        assert "warning: --max-pages does not apply to a single page (without --crawl)" in single.stderr
        crawled = _cli(home, "index", site.url("/"), "--crawl", "--allow-private", "--repo", "site")
        assert crawled.returncode == 0 and "warning" not in crawled.stderr, crawled.stderr
        again = _cli(home, "refresh", "site", "--json")  # no --allow-private: remembered from the index run
        assert again.returncode == 0, again.stderr
        report = json.loads(again.stdout)
        assert report["errors"] == [] and report["docs_unchanged"] == 5
        # An index written before pages recorded the leave: every page is refused the same way,
        # printed once with the count.
        with sqlite3.connect(home / "index.sqlite3") as db:
            for doc_id, meta in db.execute("SELECT id, meta FROM docs").fetchall():
                stored = json.loads(meta)
                assert stored.pop("allow_private") is True
                db.execute("UPDATE docs SET meta = ? WHERE id = ?", (json.dumps(stored), doc_id))
        refused = _cli(home, "refresh", "site")
        assert refused.returncode == 1
        errors = [ln for ln in refused.stderr.splitlines() if ln.startswith("docmunch: error ")]
        assert len(errors) == 1 and "loopback" in errors[0], refused.stderr
        assert errors[0].endswith("(and 4 more with the same error; --json lists them)")
        assert _cli(home, "refresh", "site", "--allow-private").returncode == 0
        site.close()  # the server went away: each page's error names its own URL, one line says all
        gone = _cli(home, "refresh", "site", "--allow-private")
        errors = [ln for ln in gone.stderr.splitlines() if ln.startswith("docmunch: error ")]
        assert len(errors) == 1, gone.stderr
        assert errors[0].endswith("(and 4 more with the same error; --json lists them)")
    finally:
        site.close()


@pytest.mark.parametrize(
    ("argv", "position", "shown"),
    [
        ([b"search", b"rust", b"threads \xff join"], 3, "threads \\xff join"),
        ([b"search", "调度器 ".encode() + b"\xfe"], 2, "调度器 \\xfe"),
        ([b"toc", b"rust", b"index\xff.md"], 3, "index\\xff.md"),
        ([b"section", b"rust:\xc3"], 2, "rust:\\xc3"),
    ],
)
def test_arguments_that_are_not_utf8_are_usage_errors(
    home: Path, argv: list[bytes], position: int, shown: str
) -> None:
    """Bytes that are not UTF-8 reach Python as lone surrogates; SQLite cannot bind them, and
    they were an internal error. Now: exit 2 and the argument shown with its bad bytes."""
    env = {**os.environ, "DOCMUNCH_HOME": str(home), "LC_ALL": "C.UTF-8"}
    run = subprocess.run(
        [sys.executable.encode(), b"-m", b"docmunch", *argv], env=env, capture_output=True, timeout=120
    )
    stderr = run.stderr.decode("utf-8")
    assert run.returncode == 2 and run.stdout == b"", stderr
    assert stderr == (
        f"docmunch: argument {position} ('{shown}') is not valid UTF-8 text; docmunch reads its "
        "arguments as UTF-8 (check the terminal's encoding, e.g. LANG=C.UTF-8)\n"
    )


def test_a_query_with_lone_surrogates_is_searched_as_text(home: Path) -> None:
    """The library API replaces them with U+FFFD instead of failing in SQLite."""
    from docmunch.index import Index

    index = Index.open(home)
    try:
        hits = index.search("threads \udcff join", repo="rust")
        assert [h.title for h in hits] == ["Threads"]
        assert index.search("\udcff") == []
        assert index.search("threads", repo="rust", path_glob="*\udcff") == []
    finally:
        index.close()
