"""Search: safe queries, CJK (incl. one/two characters), ranking, filters, snippets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.index import Index
from docmunch.index.analyze import CHAR_PREFIX, singular, terms, title_key, title_words
from docmunch.index.identifiers import identifier_weights, identifiers
from docmunch.index.rank import Ranker
from docmunch.index.text import fts_text, match_expression, query_terms

from .conftest import write

DOCS = {
    "intro.md": "# Introduction\n\nThis guide explains configuration of the widget.\n",
    "config.md": (
        "# Configuration\n\nSet options in widget.toml.\n\n## Advanced configuration\n\n"
        "Tuning the widget cache: NEAR(limit) and key:value pairs.\n\n### Cache size\n\nBytes.\n"
    ),
    "api/reference.md": "# API reference\n\nThe widget API. Configuration is mentioned once.\n",
    "zh/调度.md": "# 调度器\n\nKubernetes 调度器负责将 Pod 分配到节点。\n\n## 库\n\n一个字的标题。\n",
    "ja.md": "# 設定ファイル\n\nウィジェットの設定はここに書きます。\n",
}

SYNTAX = [
    '"',
    '""',
    "*",
    "AND",
    "OR",
    "NOT",
    "NEAR(",
    "NEAR(a b",
    "-",
    "-widget",
    ":",
    "a:b",
    "^",
    "^widget",
    "(",
    ")",
    "{title}: x",
    "col:widget",
    "'",
    "\\",
    "widget*",
    "+",
    "a OR",
    "AND AND",
    "\x00",
    "😀",
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    tmp = tmp_path_factory.mktemp("search")
    root = write(tmp / "docs", DOCS)
    idx = Index.open(tmp / "home")
    assert idx.index_path(root).errors == ()
    yield idx
    idx.close()


@pytest.mark.parametrize("query", SYNTAX)
def test_fts_syntax_is_never_injected(index: Index, query: str) -> None:
    hits = index.search(query, repo="docs")
    assert isinstance(hits, list)


def test_empty_and_punctuation_queries_return_nothing(index: Index) -> None:
    for query in ("", "   ", "!!!", "--", '"*"'):
        assert index.search(query, repo="docs") == []


def test_syntax_words_are_plain_text(index: Index) -> None:
    hits = index.search("NEAR(limit)", repo="docs")
    assert hits and hits[0].title == "Advanced configuration"
    assert index.search("key:value", repo="docs")[0].title == "Advanced configuration"


def test_title_weighted_highest_and_exact_title_boost(index: Index) -> None:
    hits = index.search("configuration", repo="docs", limit=10)
    assert hits[0].title == "Configuration"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score > hits[1].score
    # Title matches outrank body-only matches.
    titles = [h.title for h in hits]
    assert titles.index("Advanced configuration") < titles.index("API reference")


def test_legacy_all_terms_then_any_term_fallback(index: Index) -> None:
    both = index.search("widget cache", repo="docs", ranking="legacy")
    assert [h.title for h in both] == ["Advanced configuration"]
    fallback = index.search("widget nonexistentword", repo="docs", ranking="legacy")
    assert len(fallback) >= 3


def test_some_terms_are_enough_and_more_terms_rank_higher(index: Index) -> None:
    hits = index.search("widget cache", repo="docs")
    assert hits[0].title == "Advanced configuration"  # the only section with both words
    assert len(hits) >= 3  # sections with one of them are still candidates
    assert index.search("widget nonexistentword", repo="docs")[0].doc_path in {
        "intro.md", "config.md", "api/reference.md"
    }


def test_cjk_queries_of_every_length(index: Index) -> None:
    assert index.search("调度器", repo="docs")[0].title == "调度器"
    assert index.search("调度", repo="docs")[0].doc_path == "zh/调度.md"
    assert index.search("库", repo="docs")[0].title == "库"
    assert index.search("节点", repo="docs")[0].title == "调度器"
    assert index.search("设定", repo="docs") == []  # simplified ≠ Japanese 設定: no false match
    assert index.search("設定", repo="docs")[0].doc_path == "ja.md"
    assert index.search("Pod调度", repo="docs")[0].title == "调度器"


@pytest.mark.parametrize(
    ("query", "budget", "snippet"),
    [
        ("widget.toml", 29, "# Configuration\n\nSet options "),  # ends at a space: kept as cut
        ("widget.toml", 30, "# Configuration\n\nSet options"),  # "i|n": back to the space
        ("widget.toml", 11, "#"),  # "Configura|tion": back to the only space
        ("widget.toml", 1000, "# Configuration\n\nSet options in widget.toml.\n\n"),  # whole section
        ("调度器", 5, "# 调"),  # between CJK characters any cut is a word boundary
        ("调度器", 17, "# 调度器"),  # "Kube|rnetes" after CJK text: back to the blank line
        ("設定", 2, "# "),
    ],
)
def test_snippets_end_at_a_character_and_word_boundary(
    index: Index, query: str, budget: int, snippet: str
) -> None:
    hit = index.search(query, repo="docs", snippet_bytes=budget)[0]
    assert hit.snippet == snippet
    assert len(snippet.encode("utf-8")) <= budget


def test_a_snippet_without_a_space_is_cut_hard(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder, {"id.md": "identifiers_" + "x" * 40 + "\n"})  # a preamble: no heading, no space
    with Index.open(tmp_path / "home") as index:
        index.index_path(folder, repo="ids")
        hit = index.search("identifiers", repo="ids", snippet_bytes=8)[0]
    assert hit.snippet == "identifi"  # no whitespace to go back to: the hard cut


def test_filters_and_snippets(index: Index) -> None:
    assert {h.doc_path for h in index.search("widget", repo="docs", path_glob="api/*")} == {
        "api/reference.md"
    }
    assert {h.doc_path for h in index.search("widget", repo="docs", doc_path="intro.md")} == {"intro.md"}
    deep = index.search("cache", repo="docs", min_level=3)
    assert [h.title for h in deep] == ["Cache size"]
    shallow = index.search("cache", repo="docs", max_level=2)
    assert [h.title for h in shallow] == ["Advanced configuration"]
    hit = index.search("widget.toml", repo="docs", snippet_bytes=28)[0]
    assert hit.snippet == "# Configuration\n\nSet options" and hit.to_json()["snippet"] == hit.snippet
    cut = index.search("调度器", repo="docs", snippet_bytes=4)[0]
    assert cut.snippet == "# "  # a 3-byte character cut in the middle is dropped
    assert index.search("widget", repo="docs", limit=1)[0].to_json().keys() == {
        "id",
        "title",
        "level",
        "doc_path",
        "score",
        "summary",
        "byte_start",
        "byte_end",
        "repo",
    }


def test_analysis() -> None:
    assert terms("How do I share data between threads?", query=True) == ["share", "data", "thread"]
    assert terms("--dry-run", query=True) == ["dry-run", "dri", "run"]
    assert "readi" in terms("readinessProbe") and "readinessprob" in terms("readinessProbe")
    assert terms("调度器挑选节点", query=True) == ["调度", "器", "挑选", "节点"]
    assert CHAR_PREFIX + "库" in terms("代码库")  # characters are indexed too
    assert terms("how do I") == [] and terms("是什么", query=True) == []
    assert identifiers("what is Arc<Mutex<T>>? and `--dry-run`, kubectl") == ["arc<mutex<t>>", "--dry-run"]
    # contractions and possessives are prose; other punctuation with them still makes an identifier
    assert identifiers("why aren't my app's pods ready? it won’t start") == []
    assert identifiers("&'static str and Option<T>'s?") == ["&'static", "option<t>'s"]
    # CJK and full-width punctuation ends a piece: a Chinese sentence is prose, not one identifier
    assert identifiers("定时任务错过了计划时间，过后还会补跑吗？") == []
    assert identifiers("readinessProbe 失败时，Pod 的 Service，DNS 呢？") == []
    assert identifiers("Arc<Mutex<T>>：是什么？") == ["arc<mutex<t>>"]
    # words joined only by the analyser's connectors are one index term already, and
    # hyphenated English compounds are prose: neither is checked verbatim
    assert identifiers("kube-system crates.io std::env::var join_all out-of-range per-node") == []
    long = "-".join(["part"] * 15)  # 74 characters: the analyser does not keep it whole
    assert identifiers(long) == [long]
    assert identifiers("kubectl apply --prune and --server-side") == ["--prune", "--server-side"]
    # sentence punctuation and unpaired brackets at a piece's ends are not part of it
    assert identifiers("x509: error: Vec<u8>, (see Box<dyn Write>) let Some(x) = y") == [
        "vec<u8>", "box<dyn", "write>", "some(x)",
    ]
    # Chinese equivalents of English stop words (each other, itself, only, may, by, this time)
    assert terms("彼此 自身 只 可能 按 这次", query=True) == []


def test_function_characters_glued_to_an_unknown_word_are_stripped(tmp_path: Path) -> None:
    text = "# 持久卷\n\n持久卷的数据在 Pod 重建后仍然保留。\n\n## 回调\n\n容器停止前执行命令。\n"
    docs = write(tmp_path / "docs", {"卷.md": text})
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="zh")
        scope = index._store.repo_scope("zh")
        assert scope is not None  # one named repo, never "every repo"
        repo_ids = [row.id for row in scope]
        conn = index._store.conn
        assert terms("卷里的数据会保留吗", query=True)[0] == "卷里"  # the segmenter glued 里 to 卷
        weights = Ranker(conn, "卷里的数据会保留吗", repo_ids).weights
        assert CHAR_PREFIX + "卷" in weights and "卷里" not in weights  # 卷 is matched as a character
        assert set(weights) == {CHAR_PREFIX + "卷", "数据", "保留"}
        assert weights[CHAR_PREFIX + "卷"] < weights["保留"]  # at SUBWORD_WEIGHT
        # 前能 = 前 (before) + 能 (can): both function characters, nothing is left to match
        weights = Ranker(conn, "容器停止前能执行命令吗", repo_ids).weights
        assert not any(t.startswith(CHAR_PREFIX) for t in weights) and "前能" not in weights
        assert {"容器", "停止", "执行命令"} == set(weights)


def test_query_helpers() -> None:
    assert query_terms('kubectl "drain" --force') == ["kubectl", "drain", "force"]
    assert query_terms("Pod调度器") == ["Pod", "调度器"]
    assert match_expression("调度") == '"调 度"'
    assert match_expression('a "b') == '"a" "b"'
    assert match_expression("x y", any_term=True) == '"x" OR "y"'
    assert match_expression("?!") is None
    assert fts_text("k8s 调度器") == "k8s  调  度  器 "


def test_proximity_reads_the_start_of_the_body_without_html_comments() -> None:
    from docmunch.index.proximity import PROXIMITY_MAX_CHARS, PROXIMITY_WEIGHT, Proximity

    scorer = Proximity(["share", "data"], {"share": 1.0, "data": 1.0})
    near = "## Sharing\nYou can share data with a mutex."
    assert scorer.bonus("Sharing", near, level=2) == pytest.approx(PROXIMITY_WEIGHT / 2)
    assert scorer.bonus("Sharing", "## Sharing\nshare the lock; the data is yours.", level=2) == 0.0
    # translated docs keep the original in comments: removed before the limit is applied
    commented = "## Sharing\n<!-- " + "original text " * 400 + "-->\n" + "You can share data."
    assert len(commented) > 2 * PROXIMITY_MAX_CHARS
    assert scorer.bonus("Sharing", commented, level=2) == pytest.approx(PROXIMITY_WEIGHT / 2)
    # words beyond the first PROXIMITY_MAX_CHARS characters of prose do not count
    late = "## Sharing\n" + "filler words here. " * (PROXIMITY_MAX_CHARS // 10) + "You can share data."
    assert scorer.bonus("Sharing", late, level=2) == 0.0
    # a comment cut by the scan limit is not read as prose
    cut = "## Sharing\n<!-- " + "x " * (4 * PROXIMITY_MAX_CHARS) + "share data -->"
    assert scorer.bonus("Sharing", cut, level=2) == 0.0
    # Chinese bodies are bounded the same way
    zh = Proximity(["共享", "数据"], {"共享": 1.0, "数据": 1.0})
    assert zh.bonus("共享", "## 共享\n容器可以共享数据。", level=2) > 0
    assert zh.bonus("共享", "## 共享\n" + "填充文字。" * PROXIMITY_MAX_CHARS + "共享数据", level=2) == 0.0


def test_identifier_weights_follow_rarity_among_the_candidates() -> None:
    texts = ["kubectl a --dry-run", "kubectl b --dry-run", "kubectl c --dry-run", "std::env::var here"]
    weights = identifier_weights(["--dry-run", "std::env::var", "absent::x"], texts)
    assert weights["std::env::var"] == pytest.approx(1.0)  # one candidate of four has it
    assert weights["absent::x"] == pytest.approx(1.0)  # found nowhere: no section gains anyway
    assert 0 < weights["--dry-run"] < 0.35  # three of four (0.32): it tells them little apart



def test_a_query_of_millions_of_brackets_is_answered(tmp_path: Path) -> None:
    # trimming unpaired brackets is quadratic in a piece's length; an MCP message may carry
    # 4 MiB of query, so pieces over IDENTIFIER_MAX_CHARS are not identifiers at all
    assert identifiers("Vec<" + "(" * 200 + ">") == []
    assert identifiers("Vec<u8> " + "(" * 2_000_000) == ["vec<u8>"]
    docs = write(tmp_path / "docs", {"a.md": "# Pods\n\nA pod holds a Vec<u8> of bytes.\n"})
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="r")
        hits = index.search("pods " + "(" * 2_000_000 + " Vec<u8>", repo="r")
        assert [h.title for h in hits] == ["Pods"]


def test_a_question_equal_to_a_title_but_for_its_end_punctuation_gets_the_title_boost(tmp_path: Path) -> None:
    pods = "Pod " * 40
    docs = write(tmp_path / "docs", {
        "pods.md": f"# Pods\n\n{pods}\n\n## 什么是 Pod？\n\nPod 是可以创建和管理的最小计算单元。\n\n"
                   f"## What is a Pod?\n\nA Pod is the smallest unit.\n",
        "other.md": f"# Pod lifecycle\n\n{pods}\n",
    })  # fmt: skip
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="r")
        assert index.search("什么是 Pod", repo="r")[0].title == "什么是 Pod？"
        assert index.search("what is a pod", repo="r")[0].title == "What is a Pod?"
        assert index.search("What is a Pod!", repo="r")[0].title == "What is a Pod?"


@pytest.mark.parametrize(
    ("query", "repeated"),
    [
        ("hash map", " ".join(["hash map"] * 200)),
        ("hash map", "hash map map hash hash hash map"),
        ("Arc<Mutex<T>> lock", "Arc<Mutex<T>> Arc<Mutex<T>> lock lock"),  # the identifier check too
        ("容器 共享 数据", "容器 共享 数据 数据 共享 容器"),
        ("容器 共享 数据", "容器 容器 共享 共享 数据 数据"),
    ],
)
def test_repeated_words_raise_no_score(tmp_path: Path, query: str, repeated: str) -> None:
    # a new user's "hash map hash map …" (200 times) scored 23.2 against 0.99: each repeated
    # pair of neighbouring words added its proximity bonus again
    docs = write(tmp_path / "docs", {
        "maps.md": "# Hash maps\n\nA hash map stores keys with their values.\n\n"
                   "## Sharing a map\n\nWrap the map in Arc<Mutex<T>> and lock it first.\n\n"
                   "## Hashing\n\nThe hash of a key picks its bucket in the map.\n",
        "zh.md": "# 共享\n\n同一个 Pod 里的容器可以共享数据。\n\n## 存储\n\n数据保存在卷里，容器都能读到。\n",
    })  # fmt: skip
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="r")
        once = [(h.id, h.score) for h in index.search(query, repo="r")]
        assert once and once[0][1] > 0
        assert [(h.id, h.score) for h in index.search(repeated, repo="r")] == once


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("what is a StatefulSet", "StatefulSets"),
        ("what is a PersistentVolume?", "Persistent Volumes"),
        ("PersistentVolumeClaim", "Persistent Volume Claims"),
        ("what is kube-proxy", "kube-proxy"),
        ("什么是 Pod？", "Pod"),
        ("what is the restart policy?", "Restart policy"),
    ],
)
def test_a_title_key_ignores_question_words_plurals_and_camel_case(query: str, title: str) -> None:
    assert title_key(query) == title_key(title) != ""
    assert title_words(query) == title_words(title) != ""  # the same words, not only stems


def test_title_words_keep_words_that_share_a_stem_apart() -> None:
    assert title_key("the scheduler") == title_key("Scheduling")
    assert title_words("the scheduler") != title_words("Scheduling")
    assert title_words("Network Policies") == title_words("network policy") == "network policy"
    assert [singular(w) for w in ("Pods", "classes", "Boxes", "status", "axis", "gas", "Nodes")] == [
        "pod", "class", "box", "status", "axis", "gas", "node",
    ]


def test_a_title_key_keeps_what_tells_titles_apart() -> None:
    assert title_key("Pod lifecycle") != title_key("Pod")
    assert title_key("kube-proxy") != title_key("kube proxy")  # the identifier is a term of its own
    assert title_key("how do I?") == "" and title_key("是什么") == ""


def test_pasted_text_weighs_the_words_it_repeats(corpus_index: Index) -> None:
    # five lines of one kubelet error (a new user's trial) ranked the StatefulSet scaling steps,
    # which name web-0, web-1, …, first: each pod name counted as much as the repeated error
    from docmunch.index.rank import PASTED_TEXT_TERMS, QUERY_K3, query_weights

    lines = [
        f'2026-12-01T10:0{i}:00Z E1201 kubelet.go:{i} "Error syncing pod, skipping" err="failed to '
        f'\\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off 5m0s restarting failed '
        f'container=app pod=web-{i}\\""'
        for i in range(5)
    ]
    log = "\n".join(lines)
    weights = query_weights(log)
    assert len(weights) > PASTED_TEXT_TERMS
    assert weights["crashloopbackoff"] == pytest.approx((QUERY_K3 + 1) * 5 / (QUERY_K3 + 5))
    assert weights["web-3"] == 1.0
    assert set(query_weights("why does my pod restart and restart again").values()) == {1.0}
    one = corpus_index.search(lines[0], repo="k8s-en", limit=3)
    five = corpus_index.search(log, repo="k8s-en", limit=3)
    assert five[0].id == one[0].id, ([h.title for h in one], [h.title for h in five])
    assert "restart" in one[0].summary.lower() or "container" in one[0].title.lower()


def test_a_word_written_as_code_gets_no_vocabulary_variants(tmp_path: Path) -> None:
    # ``option`` has general variants (settings, configure, customize, …); inside ``Option<T>``
    # it is a type's name, and a page of settings outranked the type's own section
    docs = write(tmp_path / "book", {
        "profiles.md": "# Customizing Builds\n\nCustomize the settings: configure each setting of the "
        "release profile, and the configuration of its options. Settings override settings.\n",
        "enums.md": "# Enums\n\nSome text about enums.\n\n## The Option Enum\n\nThe `Option<T>` enum "
        "encodes a value that may be absent: Some or None.\n",
    })  # fmt: skip
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="book")
        assert index.search("Option<T>", repo="book")[0].title == "The Option Enum"
        ranker = Ranker(index._store.conn, "Option<T>", [index._store.repo_id("book")])
        assert "custom" not in ranker.weights and "option" in ranker.weights
        assert "custom" in Ranker(index._store.conn, "build options", [index._store.repo_id("book")]).weights


def test_a_camelcase_name_typed_in_lower_case_finds_the_page_titled_with_it(tmp_path: Path) -> None:
    tutorial = "# Deploying Cassandra\n\n" + "Scale the statefulset, then watch the statefulset pods. " * 8
    docs = write(tmp_path / "k8s", {
        "concepts/statefulset.md": "# StatefulSets\n\nA StatefulSet runs a group of Pods and keeps a "
        "sticky identity for each of them.\n",
        "tutorials/cassandra.md": tutorial,
        "concepts/namespaces.md": "# Namespaces\n\nA namespace isolates groups of resources in one "
        "cluster; names are unique within a namespace.\n",
    })  # fmt: skip
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="k8s")
        for query in ("what is a StatefulSet", "what is a statefulset", "statefulsets"):
            assert index.search(query, repo="k8s")[0].title == "StatefulSets", query
        from docmunch.index.truecase import truecased

        conn, ids = index._store.conn, [index._store.repo_id("k8s")]
        assert truecased(conn, ids, "what is a statefulset").startswith("what is a StatefulSet")  # or -Sets
        assert truecased(conn, ids, "what is a namespace") == "what is a namespace"  # one word in the docs
        long = "why does my statefulset " + " ".join(f"word{i}" for i in range(10))
        assert truecased(conn, ids, long) == long  # too many terms to equal a title's
