"""The proximity bonus on real sections, whatever the thread's word index already holds.

The reference is the module docstring's definition computed the plain way: every word of the
title and of the first PROXIMITY_MAX_CHARS characters of the body analysed on its own, the
closest distance of each pair of neighbouring query terms (each unordered pair once),
``min(weight) / d`` within the window.
"""

from __future__ import annotations

import itertools
import re
import threading
from pathlib import Path

import pytest

import docmunch.index.proximity as proximity
from docmunch.index.analyze import terms, tokens, word_terms
from docmunch.index.proximity import PROXIMITY_MAX_CHARS, PROXIMITY_WEIGHT, PROXIMITY_WINDOW, Proximity

QUERIES = tuple(
    terms(query, query=True)
    for query in (
        "how do I share data between threads",
        "lock a mutex and get a guard",
        "use std::sync::Mutex with Arc<T>",  # an identifier: its whole form and its parts
        "send messages over a channel to the receiver",
        "lock the mutex, then mutex lock again",  # one pair written three times, both ways round
    )
)


def _sections(fixtures_dir: Path) -> list[tuple[str, str]]:
    """(title, text from the heading line) of every section of two real rust-book chapters."""
    out: list[tuple[str, str]] = []
    for name in ("ch16-02-message-passing.md", "ch16-03-shared-state.md"):
        text = (fixtures_dir / "corpora" / "rust-book" / name).read_text(encoding="utf-8")
        for part in re.split(r"(?m)^(?=#{1,6} )", text):
            if part.startswith("#"):
                out.append((part.split("\n", 1)[0].lstrip("#").strip(), part))
    return out


def _reference(sequence: list[str], weights: dict[str, float], title: str, text: str) -> float:
    body = re.sub(r"<!--.*?-->", " ", text.split("\n", 1)[1] if "\n" in text else "", flags=re.S)
    body = body[:PROXIMITY_MAX_CHARS]
    title_words, body_words = tokens(title), tokens(body)
    words = [*title_words, *[""] * 5, *body_words]  # the title kept apart by a gap of 5
    at: dict[str, list[int]] = {}
    for i, word in enumerate(words):
        for term in word_terms(word) if word else ():
            at.setdefault(term, []).append(i)
    total = 0.0
    pairs = {tuple(sorted(pair)) for pair in itertools.pairwise(sequence) if pair[0] != pair[1]}
    for a, b in pairs:
        if a in at and b in at:
            d = max(1, min(abs(x - y) for x in at[a] for y in at[b]))
            if d <= PROXIMITY_WINDOW:
                total += min(weights[a], weights[b]) / d
    return PROXIMITY_WEIGHT * total / sum(weights.values())


def _bonuses(sections: list[tuple[str, str]]) -> list[float]:
    out = []
    for sequence in QUERIES:
        weights = {t: 1.0 + i / 10 for i, t in enumerate(sequence)}
        scorer = Proximity(sequence, weights)
        out += [scorer.bonus(title, text, level=2) for title, text in sections]
    return out


def test_the_bonus_is_the_definition_computed_word_by_word(fixtures_dir: Path) -> None:
    sections = _sections(fixtures_dir)
    expected = []
    for sequence in QUERIES:
        weights = {t: 1.0 + i / 10 for i, t in enumerate(sequence)}
        expected += [_reference(sequence, weights, title, text) for title, text in sections]
    assert sum(1 for value in expected if value > 0) >= 8  # the queries do stand together here
    assert _bonuses(sections) == pytest.approx(expected)
    assert _bonuses(sections) == pytest.approx(expected)  # again, with every word already known


def test_the_bonus_does_not_depend_on_what_the_word_index_holds(
    fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sections = _sections(fixtures_dir)
    warm = _bonuses(sections)
    monkeypatch.setattr(proximity, "MAX_KNOWN_WORDS", 50)  # emptied before nearly every query
    assert _bonuses(sections) == warm
    other: list[list[float]] = []
    thread = threading.Thread(target=lambda: other.append(_bonuses(sections)))  # its own index
    thread.start()
    thread.join()
    assert other == [warm]


def test_a_pair_counts_once_however_often_the_query_repeats_it(fixtures_dir: Path) -> None:
    sections = _sections(fixtures_dir)
    for sequence in QUERIES:
        weights = dict.fromkeys(sequence, 1.0)
        once = [Proximity(sequence, weights).bonus(title, text, level=2) for title, text in sections]
        assert any(once)
        stutter = [term for term in sequence for _ in range(3)]  # "hash hash hash map map map"
        back_and_forth = (sequence + sequence[::-1]) * 100  # "hash map map hash hash map …"
        for repeated in (stutter, back_and_forth):
            scorer = Proximity(repeated, weights)
            assert [scorer.bonus(title, text, level=2) for title, text in sections] == once
