"""Versioned doc sets: two versions of a real doc tree side by side, names, defaults, resolution."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.errors import InvalidRepoName, RepoNotFound, SectionNotFound, UnknownVersion
from docmunch.index import Index
from docmunch.index.versions import check_new_name, split_name, version_from_ref, with_version
from tests.versions.corpus import (
    ADDED,
    CHANGED,
    EXCLUDE,
    NEW_SECTION_SLUG,
    NEW_SENTENCE,
    NEW_TERM,
    OLD_SENTENCE,
    REMOVED,
    make_versions,
)


@pytest.fixture(scope="module")
def trees(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_versions(fixtures_dir, tmp_path_factory.mktemp("trees"))


@pytest.fixture(scope="module")
def two(trees: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with rust-book@1 and rust-book@2 (indexed in that order) and an unversioned `notes`."""
    home = tmp_path_factory.mktemp("versions-home")
    v1, v2 = trees
    with Index.open(home) as index:
        assert index.index_path(v1, version="1", exclude=EXCLUDE).repo == "rust-book@1"
        assert index.index_path(v2, version="2", exclude=EXCLUDE).repo == "rust-book@2"
        index.index_path(v1 / "ch01-01-installation.md", repo="notes")
    return home


@pytest.fixture
def index(two: Path) -> Iterator[Index]:
    with Index.open(two) as ix:
        yield ix


def test_both_versions_are_stored_side_by_side_with_distinct_ids(index: Index) -> None:
    groups = {g.name: g for g in index.list_groups()}
    assert set(groups) == {"rust-book", "notes"}
    book = groups["rust-book"]
    assert [v.repo for v in book.versions] == ["rust-book@2", "rust-book@1"]  # newest first
    assert [v.version for v in book.versions] == ["2", "1"]
    assert book.default.repo == "rust-book@2" and not book.default.pinned
    assert groups["notes"].default.repo == "notes" and groups["notes"].versions[0].version is None

    docs1 = {d.doc_path for d in index.list_docs("rust-book@1")}
    docs2 = {d.doc_path for d in index.list_docs("rust-book@2")}
    assert REMOVED in docs1 - docs2 and ADDED in docs2 - docs1
    ids1 = {s.id for s in index.toc("rust-book@1")}
    ids2 = {s.id for s in index.toc("rust-book@2")}
    assert not ids1 & ids2
    assert all(i.startswith("rust-book@1::") for i in ids1) and all(
        i.startswith("rust-book@2::") for i in ids2
    )
    # Same document, same heading: the id differs only in its repo part.
    assert {i.split("::", 1)[1] for i in ids1} & {i.split("::", 1)[1] for i in ids2}
    assert f"rust-book@2::{CHANGED}::{NEW_SECTION_SLUG}#3" in ids2


def test_search_by_bare_name_exact_version_and_every_version(index: Index) -> None:
    bare = index.search(NEW_TERM, repo="rust-book")
    assert bare and {h.repo for h in bare} == {"rust-book@2"}
    assert any(h.id == f"rust-book@2::{CHANGED}::{NEW_SECTION_SLUG}#3" for h in bare)
    assert any(h.doc_path == ADDED for h in bare)
    # v1 never had the word: strict matching finds nothing, so nothing from v2 leaks in either.
    assert all(h.repo == "rust-book@1" for h in index.search(NEW_TERM, repo="rust-book@1"))
    assert not any(NEW_TERM in (h.summary or "") for h in index.search(NEW_TERM, repo="rust-book@1"))

    every = index.search("ownership rules", repo="rust-book@*", limit=20)
    assert {h.repo for h in every} == {"rust-book@1", "rust-book@2"}
    assert len({h.id for h in every}) == len(every)

    everything = index.search("ownership rules", limit=50)
    assert "rust-book@1" not in {h.repo for h in everything}  # no repo: each name's default only


def test_each_version_serves_its_own_bytes(index: Index, trees: tuple[Path, Path]) -> None:
    v1, v2 = trees
    tail = "what-is-ownership#2"
    old = index.get_section("rust-book@1", f"rust-book@1::{CHANGED}::{tail}", verify=True)
    new = index.get_section("rust-book", f"rust-book@2::{CHANGED}::{tail}", verify=True)
    assert old.verified and new.verified
    assert OLD_SENTENCE in old.content and NEW_SENTENCE not in old.content
    assert NEW_SENTENCE in new.content
    for read, tree in ((old, v1), (new, v2)):
        data = (tree / CHANGED).read_bytes()[read.section.byte_start : read.section.byte_end]
        assert hashlib.sha256(data).hexdigest() == read.section.content_hash
    assert index.verify_repo("rust-book@1").ok and index.verify_repo("rust-book").ok


def test_a_bare_name_reads_ids_of_any_of_its_versions(index: Index) -> None:
    sid = f"rust-book@1::{CHANGED}::what-is-ownership#2"
    assert index.get_section("rust-book", sid).section.repo == "rust-book@1"
    assert index.locate("rust-book", sid)["repo"] == "rust-book@1"
    assert index.get_section_context("rust-book", sid)["section"]["id"] == sid
    with pytest.raises(SectionNotFound) as other:  # an exact version accepts only its own ids
        index.get_section("rust-book@2", sid)
    assert "the id names" not in str(other.value)  # same name: no hint about another repo
    with pytest.raises(SectionNotFound):  # another name's ids are not borrowed
        index.get_section("notes", sid)


def test_unknown_version_lists_the_known_ones(index: Index) -> None:
    with pytest.raises(UnknownVersion) as info:
        index.toc("rust-book@0.9")
    message = str(info.value)
    assert "'rust-book@0.9'" in message and "rust-book@2 (default), rust-book@1" in message
    assert isinstance(info.value, RepoNotFound) and info.value.known == [
        "rust-book@2 (default)",
        "rust-book@1",
    ]
    with pytest.raises(RepoNotFound) as missing:
        index.search("x", repo="nope@1")
    assert not isinstance(missing.value, UnknownVersion)
    with pytest.raises(InvalidRepoName, match="every version"):
        index.toc("rust-book@*")
    with pytest.raises(RepoNotFound):
        index.search("x", repo="nope@*")


def test_pinning_moves_the_default_and_reindexing_an_old_version_does_not(
    trees: tuple[Path, Path], tmp_path: Path
) -> None:
    v1, v2 = trees
    with Index.open(tmp_path / "home") as index:
        index.index_path(v1 / CHANGED, repo="book@1")
        index.index_path(v2 / CHANGED, repo="book@2")
        assert index.resolve_repo("book") == "book@2"
        index.index_path(v1 / CHANGED, repo="book@1", incremental=False)  # touches indexed_at
        assert index.resolve_repo("book") == "book@2"
        index.set_default("book@1")
        assert index.resolve_repo("book") == "book@1"
        assert [h.repo for h in index.search("ownership", repo="book")] == ["book@1"] * len(
            index.search("ownership", repo="book")
        )
        index.index_path(v2 / ADDED, repo="book@3")
        assert index.resolve_repo("book") == "book@1"  # pinned stays pinned
        assert index.unpin_default("book") == "book@3"
        with pytest.raises(UnknownVersion):
            index.set_default("book@9")
        # An unversioned repo of the same name is what the bare name means; pinning is refused.
        index.index_path(v1 / CHANGED, repo="book")
        assert index.resolve_repo("book") == "book"
        with pytest.raises(InvalidRepoName, match="without a version"):
            index.set_default("book@2")
        assert [g.default.repo for g in index.list_groups()] == ["book"]
        # Giving it a version rewrites its ids; then versions can be pinned again.
        index.rename_repo("book", "book@0")
        assert all(s.id.startswith("book@0::") for s in index.toc("book@0"))
        assert index.get_section("book@0", index.toc("book@0")[0].id, verify=True).verified
        index.set_default("book@2")
        assert index.resolve_repo("book") == "book@2"
        assert sorted(index.delete_repo("book@*")) == ["book@0", "book@1", "book@2", "book@3"]
        assert index.list_repos() == []


def test_names_and_versions_are_validated(tmp_path: Path) -> None:
    assert check_new_name("httpx@0.27.0") == ("httpx", "0.27.0")
    assert check_new_name("docs.example.com") == ("docs.example.com", None)
    assert check_new_name("k8s@v1.30.0-rc.1+build.5") == ("k8s", "v1.30.0-rc.1+build.5")
    for bad in ("@1", "a@", "a@b c", "a@-1", "a@*", "a@b@c", " a", "a::b", "a*", "a@" + "1" * 65, "x\ty"):
        with pytest.raises(InvalidRepoName):
            check_new_name(bad)
    assert with_version("httpx", "0.27") == "httpx@0.27" == with_version("httpx@0.27", "0.27")
    with pytest.raises(InvalidRepoName, match="differs"):
        with_version("httpx@0.26", "0.27")
    assert version_from_ref("release/1.2") == "release-1.2"
    with pytest.raises(InvalidRepoName, match="--version"):
        version_from_ref("weird ref")
    assert split_name("old@1.2") == ("old", "1.2") and split_name("a@b c") == ("a@b c", None)
    with Index.open(tmp_path / "home") as index:
        (tmp_path / "d").mkdir()
        (tmp_path / "d" / "a.md").write_text("# A\n", encoding="utf-8")
        with pytest.raises(InvalidRepoName, match="not a version"):
            index.index_path(tmp_path / "d", version="has space")
        assert index.list_repos() == []
