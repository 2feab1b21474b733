"""The search bench's library peer (bench/search_peer.py): bm25s over the sections of a real index.

The rust-book corpus and its dev questions are real; the two Chinese pages are written here
(one sentence each) to show what each tokenisation does with a Chinese question.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from bench import search_eval
from bench.bench_search import time_queries
from bench.search_peer import PEERS, Bm25Peer, quality
from docmunch.index import Index

from .conftest import EXCLUDE, write


@pytest.fixture(scope="module")
def index(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Index:
    tmp = tmp_path_factory.mktemp("search-peer")
    zh = write(
        tmp / "zh",
        {
            "scheduler.md": "# 调度器\n\n调度器挑选节点时分为过滤和打分两个阶段。\n",
            "storage.md": "# 存储\n\n持久卷为容器组提供存储，生命周期独立于容器组。\n",
        },
    )
    opened = Index.open(tmp / "home")
    assert opened.index_path(fixtures_dir / "corpora" / "rust-book", exclude=EXCLUDE).errors == ()
    assert opened.index_path(zh, repo="zh").errors == ()
    return opened


@pytest.mark.parametrize("tokenisation", PEERS)
def test_each_peer_finds_the_chapter_on_sharing_data_between_threads(index: Index, tokenisation: str) -> None:
    question = "how do I share state between threads with a mutex"
    hits = Bm25Peer(index, tokenisation).search(question, "rust-book")
    assert hits and all(hit.doc_path.startswith("ch16-") for hit in hits[:3])


def test_only_the_docmunch_analyser_segments_a_chinese_question(index: Index) -> None:
    question = "调度器挑选节点分为哪两个阶段"  # no word of it is a whole CJK run of the page
    assert Bm25Peer(index, "bm25s").search(question, "zh") == []
    hits = Bm25Peer(index, "bm25s + docmunch analyser").search(question, "zh")
    assert [hit.doc_path for hit in hits][:1] == ["scheduler.md"]


@pytest.mark.parametrize("tokenisation", PEERS)
def test_a_query_of_unknown_words_has_no_results(index: Index, tokenisation: str) -> None:
    assert Bm25Peer(index, tokenisation).search("zyzzyva quux", "rust-book") == []


def test_question_words_are_terms_for_the_library_stop_list_only(index: Index) -> None:
    # bm25s's English list (33 words) keeps "how" and "do"; docmunch's drops them
    assert Bm25Peer(index, "bm25s").search("how do I", "rust-book")
    assert Bm25Peer(index, "bm25s + docmunch analyser").search("how do I", "rust-book") == []


def test_an_unknown_tokenisation_is_refused(index: Index) -> None:
    with pytest.raises(ValueError, match="unknown tokenisation"):
        Bm25Peer(index, "whitespace")


def test_quality_scores_every_set_and_the_peer_is_timed_as_ours(index: Index, fixtures_dir: Path) -> None:
    dev = fixtures_dir / "queries" / "nl-questions-dev.jsonl"
    items = [it for it in search_eval.load(dev, fixtures_dir / "corpora") if it.corpus == "rust-book"]
    queries = [it.query for it in items]
    for name in PEERS:
        peer = Bm25Peer(index, name)
        groups = quality(peer, {"dev": items})["dev"]
        assert groups["all"]["n"] == len(items) == 40
        # the questions use synonyms of their headings' words: BM25 alone finds most, not all
        assert 0.6 <= groups["all"]["recall@10"] < 1.0
        assert peer.build_s["rust-book"] > 0  # the model was built once, for the first query
        timing = time_queries(functools.partial(peer.search, repo="rust-book"), queries)
        assert 0 < timing["p50_ms"] <= timing["p95_ms"]
        assert timing["fastest_p95_ms"] <= timing["p95_ms"]  # each query's fastest pass: never slower
    assert quality(Bm25Peer(index, PEERS[0]), {}) == {}
