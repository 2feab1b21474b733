"""Spec-style search fixtures (``fixtures/search.txt``): query → expected best section.

Every case names the behaviour it pins (a Chinese sentence, a mixed query, a one-character
CJK query, identifiers with punctuation, stop words only, non-content sections); a failure
names the case. The corpus is ``fixtures/search-corpus`` (written for these tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmunch.index import Index
from docmunch.index.empty import REASONS

HERE = Path(__file__).parent / "fixtures"


def _cases() -> list[tuple[str, str, str]]:
    lines = [ln for ln in (HERE / "search.txt").read_text(encoding="utf-8").splitlines()]
    cases: list[tuple[str, str, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        title = line
        assert lines[i + 1] == "." and lines[i + 3] == "." and lines[i + 5] == ".", f"bad case {title!r}"
        cases.append((title, lines[i + 2], lines[i + 4]))
        i += 6
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    idx = Index.open(tmp_path_factory.mktemp("spec-home"))
    report = idx.index_path(HERE / "search-corpus", repo="spec")
    assert report.errors == () and report.docs_indexed == 12
    yield idx
    idx.close()


@pytest.mark.parametrize(("title", "query", "expected"), CASES, ids=[c[0] for c in CASES])
def test_spec(index: Index, title: str, query: str, expected: str) -> None:
    hits = index.search(query, repo="spec")
    if expected == "(no results)":
        assert hits == []
        return
    assert hits, f"{title}: no results for {query!r}"
    got = f"{hits[0].doc_path} # {hits[0].title}"
    assert got == expected, f"{title}: {query!r} → {[f'{h.doc_path} # {h.title}' for h in hits[:3]]}"


def test_fixture_file_has_every_behaviour() -> None:
    assert len(CASES) >= 10
    queries = [q for _, q, _ in CASES]
    assert any(len(q) == 1 for q in queries)  # one CJK character
    assert any("<" in q for q in queries) and any("--" in q for q in queries)


def test_legacy_ranking_stays_selectable(index: Index) -> None:
    # docmunch 0.1 required every word: the sentence finds nothing there, the question ranking finds it.
    assert index.search("调度器挑选节点时分为哪两个阶段", repo="spec", ranking="legacy") == []
    assert index.search("调度器挑选节点时分为哪两个阶段", repo="spec")
    with pytest.raises(ValueError):
        index.search("x", repo="spec", ranking="nope")


def test_scores_are_sorted_and_search_spans_repos(index: Index) -> None:
    hits = index.search("threads channel receiver", repo="spec", limit=20)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.repo for h in index.search("调度器")} == {"spec"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_any_user_string_is_safe(index: Index, query: str) -> None:
    for ranking in ("question", "legacy"):
        hits = index.search(query, repo="spec", ranking=ranking)
        assert isinstance(hits, list)
        assert all(h.repo == "spec" for h in hits)
        if not hits and ranking == "question":  # every empty result has a one-line reason
            reason = index.explain_empty(query, repo="spec")
            assert reason.code in REASONS and reason.code != "filtered" and "\n" not in reason.message
