"""Spelling correction of unknown query words (``docmunch/index/spelling.py``), on a real
index of the spec corpus: which words are corrected, to what, and what search answers say."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.index import Index
from docmunch.index.spelling import MAX_ATTEMPTS, _one_edit, correct, correctable, corrections, max_edits


def _fix(spec_index: Index, word: str) -> str | None:
    (term, typed), = correctable(word).items()
    store = spec_index._store
    return correct(store.conn, [store.repo_id("spec")], term, typed)


def test_edit_budget_follows_elasticsearch_auto_from_four_characters() -> None:
    assert [max_edits("x" * n) for n in range(1, 9)] == [0, 0, 0, 1, 1, 2, 2, 2]


def test_only_ascii_words_of_letters_with_four_letter_terms_are_correctable() -> None:
    query = "how do I drian a nod with --dry-run, std::env, readinessProbe, 调度器 and Transmiter"
    assert correctable(query) == {
        "drian": "drian",
        "readinessprob": "readinessprobe",  # a camelCase word: its whole form
        "transmit": "transmiter",
    }


def test_one_edit_keeps_the_first_letter_and_covers_the_four_edits() -> None:
    edits = _one_edit("tred")
    assert {"ted", "trd", "tre"} <= edits  # a letter deleted
    assert {"terd", "trde"} <= edits  # neighbours swapped
    assert {"trxd", "tref"} <= edits  # a letter replaced
    assert {"tread", "treds", "tared"} <= edits  # a letter inserted
    assert not {"red", "rted", "xred", "atred", "tred"} & edits  # first letter kept, not the word itself
    assert all(edit[0] == "t" for edit in edits)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("transmiter", "transmitt"),  # a letter left out
        ("recevier", "receiv"),  # two letters swapped
        ("chanels", "channel"),
        ("ownrship", "ownership"),
        ("threds", "thread"),
    ],
)
def test_a_mistyped_word_gets_the_repos_term(spec_index: Index, typed: str, expected: str) -> None:
    assert _fix(spec_index, typed) == expected


def test_a_word_far_from_every_term_gets_nothing(spec_index: Index) -> None:
    assert _fix(spec_index, "zebra") is None
    assert _fix(spec_index, "xylophonist") is None


def test_known_words_and_the_attempt_limit(spec_index: Index) -> None:
    store = spec_index._store
    repo_ids = [store.repo_id("spec")]
    assert corrections(store.conn, repo_ids, "threads channel", {"thread", "channel"}) == {}
    many = " ".join(["transmiter", "recevier", "chanels", "threds", "ownrship"])
    found = corrections(store.conn, repo_ids, many, set())
    assert len(found) == MAX_ATTEMPTS == 3
    assert found == {"transmit": "transmitt", "recevi": "receiv", "chanel": "channel"}


def test_search_answers_name_the_corrections_as_words(spec_index: Index) -> None:
    query = "how do I clone the transmiter"
    hits = spec_index.search(query, repo="spec")
    assert hits[0].title == "Message passing with channels"
    # "transmit" is a general variant of "send", so the word is not unmatched: it is corrected
    assert spec_index.unmatched_words(query, repo="spec") == ()
    assert spec_index.corrected_words(query, repo="spec") == {"transmiter": "transmitter"}
    assert spec_index.unmatched_words("recevier chanels", repo="spec") == ("recevier", "chanels")
    fixed = {"recevier": "receiver", "chanels": "channels"}
    assert spec_index.corrected_words("recevier chanels", repo="spec") == fixed
    assert spec_index.corrected_words("how do I clone the transmitter", repo="spec") == {}
    assert spec_index.corrected_words("zebra unicorn", repo="spec") == {}


def test_a_mistyped_camelcase_name_finds_the_page_titled_with_it(tmp_path: Path) -> None:
    docs = tmp_path / "api"
    docs.mkdir()
    for name, verb in (("WHvCreatePartition", "creates"), ("WHvDeletePartition", "deletes")):
        (docs / f"{name}.md").write_text(
            f"# {name}\n\n{name} {verb} a partition object.\n\n## Syntax\n\n`HRESULT {name}(...)`\n",
            encoding="utf-8",
        )
    (docs / "partitions.md").write_text(
        "# Partitions\n\nCreate a partition with WHvCreatePartition, delete it with "
        "WHvDeletePartition.\n",
        encoding="utf-8",
    )
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="api")
        hits = index.search("WHvCreatPartition", repo="api")
        assert [h.title for h in hits[:1]] == ["WHvCreatePartition"]
        assert index.corrected_words("WHvCreatPartition", repo="api") == {
            "WHvCreatPartition": "WHvCreatePartition"
        }


def test_a_mistyped_stop_word_is_not_corrected_into_a_content_word(spec_index: Index) -> None:
    assert _fix(spec_index, "betwen") is None  # "between" is one edit away: a stop word, not searched
    assert _fix(spec_index, "thier") is None


def test_the_correction_is_named_in_the_form_nearest_the_typed_word(tmp_path: Path) -> None:
    docs = tmp_path / "book"
    docs.mkdir()
    (docs / "patterns.md").write_text(
        "# Patterns\n\nPatterns match values.\n\n## Enums and Pattern Matching\n\nA pattern names a shape.\n",
        encoding="utf-8",
    )
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="book")
        assert index.corrected_words("enums and patern matching", repo="book") == {"patern": "pattern"}
        assert index.search("enums and patern matching", repo="book")[0].title == "Enums and Pattern Matching"
        long = "WHvSetVirtualProcesorRegistersAndMore"  # keys are the words as typed, never cut
        assert index.corrected_words(f"{long} patern", repo="book") == {"patern": "pattern"}
        assert long in index.unmatched_words(f"{long} patern", repo="book")


def test_pasted_text_is_not_corrected(spec_index: Index) -> None:
    from docmunch.index.rank import PASTED_TEXT_TERMS

    filler = " ".join(f"host{i}x" for i in range(PASTED_TEXT_TERMS))
    assert spec_index.corrected_words(f"recevier {filler}", repo="spec") == {}
    assert spec_index.corrected_words("recevier", repo="spec") == {"recevier": "receiver"}


def test_an_edit_the_stemmer_cuts_short_is_not_the_correction(tmp_path: Path) -> None:
    # ``statefulst`` is one edit from ``statefulset`` (insert ``e``) and from ``statefuls``
    # (delete ``t``), which Snowball stems to ``state``: the commoner term, but five letters
    # shorter than anything typed; the word the user meant keeps the typed length.
    docs = tmp_path / "k8s"
    docs.mkdir()
    (docs / "workloads.md").write_text(
        "# Workloads\n\nThe desired state of an app; state is kept in a store.\n\n"
        "## StatefulSets\n\nA StatefulSet keeps a sticky identity for each of its Pods.\n\n"
        "## State\n\nThe state of a cluster and the state of each node: current state.\n",
        encoding="utf-8",
    )
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="k8s")
        assert index.corrected_words("what is a statefulst", repo="k8s") == {"statefulst": "StatefulSets"}
        assert index.search("what is a statefulst", repo="k8s")[0].title == "StatefulSets"
