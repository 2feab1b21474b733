"""``index github:OWNER/NAME`` against a local GitHub API stand-in (real HTTP, real tarballs)."""

from __future__ import annotations

import io
import json
import tarfile
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from docmunch.cli import main
from docmunch.errors import SourceError
from docmunch.index import Index
from docmunch.sources.github import index_github, parse_spec, web_base


@pytest.fixture
def rust_book(fixtures_dir: Path) -> Path:
    return fixtures_dir / "corpora" / "rust-book"


def outline(index: Index, repo: str) -> list[tuple[str, str, str, int, int, int]]:
    return [(s.doc_path, s.id, s.content_hash, s.level, s.byte_start, s.byte_end) for s in index.toc(repo)]


def test_tarball_indexes_identically_to_the_local_folder(github, rust_book, docmunch_home, capsys):
    github.publish("rust-lang", "book", github.tarball_of(rust_book, f"rust-lang-book-{github.sha[:7]}"))
    code = main(["index", "github:rust-lang/book", "--repo", "gh", "--allow-private", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["errors"] == []
    with Index.open() as index:
        local = index.index_path(rust_book, repo="gh-local", exclude=["NOTICE.md"])
        got = outline(index, "gh")
        want = outline(index, "gh-local")
        listing = {r.repo: r.source for r in index.list_repos()}
        chapter = next(s for s in index.toc("gh", "ch04-01-what-is-ownership.md") if s.level == 2)
    assert report["docs_indexed"] == local.docs_indexed > 100
    assert report["sections"] == local.sections
    # Same doc paths, offsets and hashes; ids differ only by the repo name they embed.
    assert [(d, h, lv, a, b) for d, _, h, lv, a, b in got] == [(d, h, lv, a, b) for d, _, h, lv, a, b in want]
    assert [i.replace("gh::", "", 1) for _, i, *_ in got] == [
        i.replace("gh-local::", "", 1) for _, i, *_ in want
    ]
    assert listing["gh"] == f"github:rust-lang/book@{github.sha}"
    line = (rust_book / "ch04-01-what-is-ownership.md").read_bytes()[: chapter.byte_start].count(b"\n") + 1
    assert chapter.locator == {
        "url": f"{github.api}/rust-lang/book/blob/{github.sha}/ch04-01-what-is-ownership.md#L{line}"
    }
    assert line == chapter.line + 1


def test_unchanged_sha_downloads_nothing(github, rust_book, docmunch_home):
    github.publish("o", "n", github.tarball_of(rust_book, "o-n-x"))
    with Index.open() as index:
        first = index_github(index, "github:o/n", allow_private=True)
        again = index_github(index, "o/n", allow_private=True)
    assert github.count("/codeload/") == 1 and github.count("/repos/o/n/commits/") == 2
    assert again.docs_indexed == 0 and again.docs_unchanged == first.docs_indexed
    assert again.sections == first.sections


def test_path_limits_the_tree_and_keeps_repo_paths(github, tmp_path, docmunch_home):
    tree = tmp_path / "tree"
    (tree / "docs" / "guide").mkdir(parents=True)
    (tree / "src").mkdir()
    (tree / "docs" / "guide" / "a.md").write_text("# A\n\nText.\n\n## B\n\nMore.\n")
    (tree / "src" / "notes.md").write_text("# Not docs\n")
    github.publish("o", "n", github.tarball_of(tree, "o-n-1"), ref="v1")
    with Index.open() as index:
        report = index_github(index, "github:o/n@v1", path="docs", allow_private=True)
        sections = index.toc("n")
    assert report.docs_indexed == 1
    assert {s.doc_path for s in sections} == {"docs/guide/a.md"}
    assert sections[1].locator == {"url": f"{github.api}/o/n/blob/{github.sha}/docs/guide/a.md#L5"}


def test_malicious_tarball_writes_nothing_outside(github, tmp_path, docmunch_home, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:

        def add(name: str, data: bytes = b"# Evil\n", **kwargs: object) -> None:
            info = tarfile.TarInfo(name)
            for key, value in kwargs.items():
                setattr(info, key, value)
            info.size = len(data) if info.type == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(data) if info.type == tarfile.REGTYPE else None)

        add("top/ok.md", b"# Fine\n\nText.\n")
        add("top/../../outside/escape.md")
        add("../outside/escape2.md")
        add("/abs/escape3.md")
        add("top/link.md", type=tarfile.SYMTYPE, linkname=str(outside / "target.md"))
        add("top/hard.md", type=tarfile.LNKTYPE, linkname="../../outside/x.md")
        add("top/big.md", b"# Big\n" + b"x" * (5 * 2**20 + 10))
    github.publish("o", "evil", buffer.getvalue())
    with Index.open() as index:
        report = index_github(index, "github:o/evil", allow_private=True)
        docs = {d.doc_path for d in index.list_docs("evil")}
    assert docs == {"ok.md"}
    assert list(outside.iterdir()) == []
    assert list(tmp.iterdir()) == []  # the temporary tree is gone
    assert report.docs_skipped >= 1  # the oversize file
    unsafe = {e.path for e in report.errors}
    assert {
        "top/../../outside/escape.md",
        "../outside/escape2.md",
        "/abs/escape3.md",
        "top/link.md",
    } <= unsafe
    assert not any(p.name.startswith("escape") for p in tmp_path.rglob("*"))


def test_rate_limit_gives_the_reset_time(github, docmunch_home, capsys):
    reset = int(time.time()) + 1800
    github.server.routes["/repos/o/n/commits/HEAD"] = github.Reply(
        403,
        {"Content-Type": "application/json", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
        b'{"message": "API rate limit exceeded"}',
    )
    code = main(["index", "github:o/n", "--allow-private"])
    err = capsys.readouterr().err
    when = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%d %H:%M:%S")
    assert code == 1 and err.count("\n") == 1
    assert "rate limit" in err and f"resets at {when} UTC" in err and "GITHUB_TOKEN" in err
    github.server.routes["/repos/o/n/commits/HEAD"] = github.Reply(
        429, {"Content-Type": "application/json", "Retry-After": "120"}, b"{}"
    )
    with Index.open() as index, pytest.raises(SourceError, match=r"resets at .* UTC"):
        index_github(index, "github:o/n", allow_private=True)
    assert github.count("/codeload/") == 0


def test_token_is_sent_as_bearer(github, rust_book, docmunch_home, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    github.publish("o", "n", github.tarball_of(rust_book, "o-n-x"))
    with Index.open() as index:
        index_github(index, "github:o/n", allow_private=True)
    commits = next(h.headers for h in github.server.hits if h.path == "/repos/o/n/commits/HEAD")
    assert commits["authorization"] == "Bearer t0ken"
    assert commits["accept"] == "application/vnd.github.sha"
    # (dropping the token on the cross-origin codeload redirect is tested in tests/fetch/test_raw.py)


def test_spec_parsing_and_web_host():
    assert parse_spec("github:o/n@v1.2") == parse_spec("https://github.com/o/n", ref="v1.2")
    assert parse_spec("o/n.git").name == "n"
    with pytest.raises(SourceError):
        parse_spec("github:../x")
    assert web_base("https://api.github.com") == "https://github.com"
    assert web_base("https://ghe.example/api/v3") == "https://ghe.example"


def test_refresh_of_a_github_repo_keeps_ref_and_path_and_checks_the_sha_only(github, tmp_path, docmunch_home):
    from docmunch.sources.refresh import refresh_repo

    tree = tmp_path / "tree"
    (tree / "docs").mkdir(parents=True)
    (tree / "README.md").write_text("# Readme\n\nHello.\n")
    (tree / "docs" / "a.md").write_text("# A\n\nText.\n")
    github.publish("o", "n", github.tarball_of(tree, "o-n-1"), ref="main")
    with Index.open() as index:
        index_github(index, "github:o/n@main", path="docs", repo="docs-only", allow_private=True)
        again = refresh_repo(index, "docs-only", allow_private=True)
        docs = {d.doc_path for d in index.list_docs("docs-only")}
    assert again.docs_unchanged == 1 and again.docs_indexed == 0
    assert docs == {"docs/a.md"}
    assert github.count("/repos/o/n/commits/main") == 2 and github.count("/codeload/") == 1


def test_a_run_after_a_cancelled_one_reports_it_and_completes_the_repo(github, tmp_path, docmunch_home):
    from docmunch.errors import RunCancelled
    from docmunch.index.runlock import run_state

    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a", "b", "c"):
        (tree / f"{name}.md").write_text(f"# {name.upper()}\n\nText.\n")
    github.publish("o", "n", github.tarball_of(tree, "o-n-1"))

    def stop(done: int, total: int, _path: str) -> None:
        raise RunCancelled("cancelled", done=done, total=total)

    with Index.open() as index:
        with pytest.raises(RunCancelled):
            index_github(index, "github:o/n", allow_private=True, progress=stop)
        assert run_state(docmunch_home, "n") == "interrupted"
        report = index_github(index, "github:o/n", allow_private=True)
        assert report.interrupted_run is not None and report.interrupted_run["repo"] == "n"
        assert run_state(docmunch_home, "n") is None and len(index.list_docs("n")) == 3
