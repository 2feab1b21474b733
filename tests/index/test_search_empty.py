"""A search that finds nothing says why; an unknown document filter is an error, not "nothing".

Run on the real k8s-zh corpus (Chinese and English words) beside a second repo, in real SQLite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.errors import DocumentNotFound, RepoNotFound, UnknownVersion
from docmunch.index import EmptyReason, Index
from docmunch.index.analyze import MAX_TERM_CHARS, content_words
from docmunch.index.empty import MAX_REASON_WORDS, REASONS

from .conftest import EXCLUDE, write


@pytest.fixture(scope="module")
def index(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    tmp = tmp_path_factory.mktemp("search-empty")
    idx = Index.open(tmp / "home")
    assert idx.index_path(fixtures_dir / "corpora" / "k8s-zh", exclude=EXCLUDE).errors == ()
    notes = write(tmp / "notes", {"guide/setup.md": "# Setup\n\nInstall the gadget with the installer.\n"})
    assert idx.index_path(notes).errors == ()
    yield idx
    idx.close()


def _reason(index: Index, query: str, **kwargs: object) -> EmptyReason:
    assert index.search(query, **kwargs) == []  # type: ignore[arg-type]
    return index.explain_empty(query, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "repo", "code"),
    [
        ("how do I do it?", "k8s-zh", "stop_words"),
        ("what is this and why", None, "stop_words"),
        ("怎么样呢？", "k8s-zh", "stop_words"),
        ("是什么", None, "stop_words"),
        ("!!! ?? -- **", "k8s-zh", "no_words"),
        ("😀 → ©", None, "no_words"),
        ("   ", "notes", "no_words"),
        ("zyzzogeton frobnicator", "k8s-zh", "unknown_words"),
        ("how does the scheduler pick a node", "notes", "unknown_words"),
        ("调度器 节点", "notes", "unknown_words"),
    ],
)
def test_each_empty_result_names_its_reason(index: Index, query: str, repo: str | None, code: str) -> None:
    reason = _reason(index, query, repo=repo)
    assert reason.code == code and code in REASONS
    assert "\n" not in reason.message and len(reason.message) < 200
    data = reason.to_json()
    assert data["reason"] == code and data["message"] == reason.message
    if code == "unknown_words":
        assert reason.words and set(reason.words) <= set(content_words(query))
        assert "notes" in reason.message or "k8s-zh" in reason.message
    else:
        assert "words" not in data


def test_a_one_character_query_the_repo_lacks_is_named_in_its_reason(index: Index) -> None:
    reason = _reason(index, "的", repo="notes")  # a function word, yet searched as the one character
    assert reason.code == "unknown_words" and reason.words == () and "('的')" in reason.message


@pytest.mark.parametrize("repo", ["notes", None])
def test_a_word_too_long_to_be_indexed_is_an_unknown_word(index: Index, repo: str | None) -> None:
    word = "x" * (MAX_TERM_CHARS + 1)  # a hash, base64: left out of the index for its length
    for query in (word, f"how do I {word}?", f"{word} {word}"):
        reason = _reason(index, query, repo=repo)
        assert reason.code == "unknown_words", (query, reason)
        assert reason.words == ("x" * 23 + "…",)
        assert f"longer than {MAX_TERM_CHARS} characters" in reason.message and len(reason.message) < 200
    assert _reason(index, "x" * MAX_TERM_CHARS, repo=repo).code == "unknown_words"  # indexable, absent
    assert _reason(index, "how do I " + "-".join(["the"] * 30), repo=repo).code == "stop_words"  # short parts


def test_words_of_an_unknown_words_reason_are_the_content_words_as_written(index: Index) -> None:
    reason = _reason(index, "How do I frobnicate the Zyzzogeton quickly?", repo="notes")
    assert reason.words == ("frobnicate", "Zyzzogeton", "quickly")
    long = " ".join(f"zzword{i}" for i in range(20))
    assert len(_reason(index, long, repo="notes").words) == MAX_REASON_WORDS


def test_filters_that_drop_every_match_are_named(index: Index) -> None:
    reason = _reason(index, "installer gadget", repo="notes", path_glob="reference/*")
    assert reason.code == "filtered" and "path_glob" in reason.message
    reason = _reason(index, "调度器 节点", repo="k8s-zh", min_level=6, max_level=6)
    assert reason.code == "filtered" and "min_level" in reason.message and "max_level" in reason.message
    assert index.search("调度器 节点", repo="k8s-zh")  # the words alone do match


def test_nothing_indexed(tmp_path: Path) -> None:
    with Index.open(tmp_path / "home") as empty:
        assert empty.search("scheduler") == []
        assert empty.explain_empty("scheduler").code == "nothing_indexed"


def test_unknown_repo_or_version_is_an_error_not_a_reason(index: Index) -> None:
    with pytest.raises(RepoNotFound):
        index.explain_empty("scheduler", repo="no-such-repo")
    with pytest.raises(UnknownVersion):
        index.search("scheduler", repo="notes@9.9")


@pytest.mark.parametrize("ranking", ["question", "legacy"])
def test_an_unknown_document_filter_is_an_error_with_similar_paths(index: Index, ranking: str) -> None:
    real = "scheduling-eviction/kube-scheduler.md"
    assert index.search("调度器", repo="k8s-zh", doc_path=real, ranking=ranking)
    with pytest.raises(DocumentNotFound) as err:  # the suffix forgotten
        index.search("调度器", repo="k8s-zh", doc_path=real[:-3], ranking=ranking)
    assert err.value.doc_path == real[:-3]
    assert real in err.value.suggestions and "k8s-zh" in str(err.value)
    # a document of another repo is unknown in this one, known when every repo is searched
    with pytest.raises(DocumentNotFound):
        index.search("installer", repo="k8s-zh", doc_path="guide/setup.md", ranking=ranking)
    assert index.search("installer", doc_path="guide/setup.md", ranking=ranking)
    with pytest.raises(DocumentNotFound) as err:
        index.search("installer", doc_path="guide/set-up.md", ranking=ranking)
    assert "any repo" in str(err.value) and "guide/setup.md" in err.value.suggestions
    for partial in ("kube-scheduler.md", "eviction/kube-scheduler.md", "/kube-scheduler.md"):
        with pytest.raises(DocumentNotFound) as err:  # a bare file name: the paths ending with it
            index.search("调度器", repo="k8s-zh", doc_path=partial, ranking=ranking)
        assert err.value.suggestions[0] == real, partial



@pytest.mark.parametrize(
    ("query", "repo", "unmatched"),
    [
        ("install the gadget with a zyzzogeton", "notes", ("zyzzogeton",)),
        ("roll back zebra unicorn install", "notes", ("roll", "back", "zebra", "unicorn")),
        ("remove the gadget", "notes", ("remove",)),  # neither remove nor a variant of it
        ("set up the gadget", "notes", ("set",)),
        ("setup gadget", "notes", ()),  # setup is a general variant of install, which notes has
        ("Install the gadget", "notes", ()),
        ("调度器 gadget", "notes", ("调度", "器")),  # no CJK character at all in notes
        ("调度器 gadget", None, ()),  # k8s-zh has both words
        ("kubectl 调度器 zyzzogeton", "k8s-zh", ("zyzzogeton",)),
        ("how do I", "notes", ()),  # no content word: nothing to name
    ],
)
def test_words_that_match_nothing_in_the_searched_repos_are_named(
    index: Index, query: str, repo: str | None, unmatched: tuple[str, ...]
) -> None:
    assert index.unmatched_words(query, repo=repo) == unmatched
    if unmatched and len(unmatched) < len(content_words(query)):  # the other words found sections
        assert index.search(query, repo=repo)


def test_unmatched_words_are_capped_and_given_as_written(index: Index) -> None:
    words = [f"zq{i}xw" for i in range(MAX_REASON_WORDS + 3)]
    assert index.unmatched_words(" ".join(words), repo="notes") == tuple(words[:MAX_REASON_WORDS])
    long = "q" * (MAX_TERM_CHARS - 1)  # whole, so a caller can find it in its query (a longer one
    assert index.unmatched_words(f"gadget {long}", repo="notes") == (long,)  # is never indexed)
    with pytest.raises(RepoNotFound):
        index.unmatched_words("gadget", repo="no-such-repo")


def test_a_stop_words_reason_names_the_ignored_words(index: Index) -> None:
    reason = _reason(index, "how do I do it?", repo="notes")
    assert reason.code == "stop_words" and "(how, do, I, it)" in reason.message
    assert "single letter" not in reason.message
    generic = _reason(index, "<T>", repo="notes")  # a type parameter alone: T is a stop word
    assert generic.code == "stop_words"
    assert "(T)" in generic.message and "a single letter too: T" in generic.message
    assert "(怎么样呢)" in _reason(index, "怎么样呢？", repo="k8s-zh").message
