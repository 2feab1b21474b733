"""``index github:OWNER/NAME@REF`` indexes version NAME@REF and records the ref and its commit."""

from __future__ import annotations

import json
from pathlib import Path

from docmunch.cli import main
from docmunch.index import Index
from docmunch.sources.github import index_github

SHA2 = "fedcba9876543210fedcba9876543210fedcba98"


def _tree(root: Path, text: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "api.md").write_text(f"# API\n\n## Client\n\n{text}\n", encoding="utf-8")
    return root


def test_refs_become_versions_side_by_side(github, tmp_path, docmunch_home, capsys) -> None:
    old = github.tarball_of(_tree(tmp_path / "old", "The old client."), "o-httpx-1")
    new = github.tarball_of(_tree(tmp_path / "new", "The new client speaks zebra."), "o-httpx-2")
    github.publish("encode", "httpx", old, ref="0.26.0")
    github.publish("encode", "httpx", new, sha=SHA2, ref="0.27.0")
    github.publish("encode", "httpx", new, sha=SHA2, ref="release%2F1.0")
    for ref in ("0.26.0", "0.27.0"):
        assert main(["index", f"github:encode/httpx@{ref}", "--allow-private", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["repo"] == f"httpx@{ref}"
    with Index.open() as index:
        infos = {r.repo: r for r in index.list_repos()}
        assert (infos["httpx@0.26.0"].ref, infos["httpx@0.26.0"].commit) == ("0.26.0", github.sha)
        assert (infos["httpx@0.27.0"].ref, infos["httpx@0.27.0"].commit) == ("0.27.0", SHA2)
        assert index.resolve_repo("httpx") == "httpx@0.27.0"
        hit = index.search("zebra", repo="httpx")[0]
        assert hit.id == "httpx@0.27.0::docs/api.md::api/client#2"
        assert index.get_section("httpx@0.26.0", "httpx@0.26.0::docs/api.md::api/client#2").content.endswith(
            "The old client.\n"
        )
        report = index_github(index, "github:encode/httpx@release/1.0", allow_private=True)
        assert report.repo == "httpx@release-1.0"
        assert {r.repo: r.ref for r in index.list_repos()}["httpx@release-1.0"] == "release/1.0"
        explicit = index_github(index, "github:encode/httpx@0.27.0", version="latest", allow_private=True)
        assert explicit.repo == "httpx@latest"
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "ref 0.27.0 commit fedcba987654" in out


def test_an_unversioned_repo_from_the_same_ref_keeps_being_updated(github, tmp_path, docmunch_home) -> None:
    tarball = github.tarball_of(_tree(tmp_path / "t", "Text."), "o-n-1")
    github.publish("o", "n", tarball, ref="main")
    github.publish("o", "n", tarball)  # the default branch (HEAD)
    with Index.open() as index:
        # What an index written before versions existed holds: repo "n" from github:o/n@main.
        index_github(index, "github:o/n@main", repo="n", allow_private=True)
        assert [r.repo for r in index.list_repos()] == ["n"]
        again = index_github(index, "github:o/n@main", allow_private=True)
        assert again.repo == "n" and again.docs_unchanged == 1
        other = index_github(index, "github:o/n", repo="m", allow_private=True)
        infos = {r.repo: r for r in index.list_repos()}
        assert other.repo == "m" and infos["m"].ref is None and infos["m"].commit == github.sha
        assert infos["n"].ref == "main"
        assert [r.repo for r in index.list_repos()] == ["m", "n"]
