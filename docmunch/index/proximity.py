"""Proximity bonus: query words that stand together in a section (re-ranking the best few).

For each pair of consecutive query terms (in query order, both known to the repo), the
closest distance ``d`` between them in the section — title, then body, in words (analysed
terms for CJK text), the title kept apart from the body by a gap — adds ``min(weight_a, weight_b) / d``
when ``d`` ≤ :data:`PROXIMITY_WINDOW`; the sum is divided by the query's total weight and
scaled by :data:`PROXIMITY_WEIGHT`. A pair counts once, either way round (``d`` is the same):
``hash map hash map …`` has the one pair of ``hash map``, so a repeated pair of words is never
counted twice (counted at each occurrence, it gave that query 23.2 against 0.99). This is the
term-pair part of BM25TP (Rasolofo & Savoy, "Term proximity scoring for keyword-based retrieval
systems", ECIR 2003), simplified to the closest occurrence and applied to the
:data:`PROXIMITY_CHECKS` best candidates, whose text is read back from the raw cache (positions
are not stored). Each thread keeps the analysis of every word it has seen and, per term, the
words yielding it (:class:`_WordIndex`), so a section's words that hold a query term are found
with set operations, without looking at each of its words again on every query.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_left
from collections.abc import Sequence

from docmunch.index.analyze import CHAR_PREFIX, is_cjk, terms, tokens, word_terms

__all__ = ["PROXIMITY_CHECKS", "PROXIMITY_MAX_CHARS", "PROXIMITY_WEIGHT", "PROXIMITY_WINDOW", "Proximity"]

PROXIMITY_CHECKS = 15
"""Best candidates that get the bonus (dev set: 20 and 100 rank the same)."""
PROXIMITY_WEIGHT = 0.2
"""Scale of the bonus (dev set MRR@10 0.645 → 0.665 with it; 0.3 lower on Chinese questions)."""
PROXIMITY_WINDOW = 3
"""Largest distance, in words, that counts as standing together (2 measured lower)."""
PROXIMITY_MAX_CHARS = 1500
"""Characters of a section body looked at, HTML comments removed (a long section's answer is
near its start; bounds the work per candidate, CJK text included)."""
_TITLE_GAP = 5
_COMMENT_SCAN_CHARS = 4 * PROXIMITY_MAX_CHARS
"""Characters of a body cleared of HTML comments before its first PROXIMITY_MAX_CHARS are
read (translated docs keep the original text in comments before each paragraph)."""
_COMMENT = re.compile(r"<!--.*?-->", re.S)
MAX_KNOWN_WORDS = 200_000
"""Distinct words whose analysis a thread keeps for proximity (≈ 200 bytes each with the reverse
index); its word index is emptied once it holds more (k8s-en's section heads have ≈ 30,000)."""


class _WordIndex:
    """One thread's analysed words: ``terms`` (word → its terms, :func:`word_terms`) and
    ``words`` (term → the words yielding it)."""

    __slots__ = ("terms", "words")

    def __init__(self) -> None:
        self.terms: dict[str, tuple[str, ...]] = {}
        self.words: dict[str, set[str]] = {}

    def holding(self, distinct: set[str], wanted: set[str]) -> set[str]:
        """The words of ``distinct`` with a term in ``wanted`` (analysing the new ones first)."""
        for word in distinct.difference(self.terms):
            found = word_terms(word)
            self.terms[word] = found
            for term in found:
                self.words.setdefault(term, set()).add(word)
        holding: set[str] = set()
        for term in wanted:
            words = self.words.get(term)
            if words:
                holding |= distinct & words  # set & set walks the smaller one
        return holding


_PER_THREAD = threading.local()
"""Holds each thread's own :class:`_WordIndex` (``.words``), so that no thread reads a set another
is adding to."""


def _word_index() -> _WordIndex:
    """This thread's word index, emptied first when it has grown beyond :data:`MAX_KNOWN_WORDS`."""
    index: _WordIndex | None = getattr(_PER_THREAD, "words", None)
    if index is None or len(index.terms) > MAX_KNOWN_WORDS:
        index = _PER_THREAD.words = _WordIndex()
    return index


class Proximity:
    """The proximity bonus of one query in one repo (memoises the analysis of each word seen).

    Args:
        sequence: the query's analysed terms in order, repeats included (those the repo lacks
            are skipped, so their neighbours pair up).
        weights: ``{term: weight}`` of the query in the repo (unknown terms absent).
    """

    def __init__(self, sequence: Sequence[str], weights: dict[str, float]) -> None:
        known = [t for t in sequence if t in weights]
        neighbours = ((a, b) if a < b else (b, a) for a, b in itertools.pairwise(known) if a != b)
        self.pairs = list(dict.fromkeys(neighbours))
        """Distinct unordered pairs of neighbouring query terms, in query order (``hash map map
        hash`` → ``[("hash", "map")]``)."""
        self.wanted = {t for pair in self.pairs for t in pair}
        self.weights = weights
        self.total = sum(weights.values())
        self._memo: dict[str, tuple[str, ...]] = {}
        """``{word: its terms in wanted}`` for the words seen holding one."""
        self._words = _word_index()

    def _positions(self, text: str, found: dict[str, list[int]], offset: int) -> int:
        """Add the positions of wanted terms in ``text`` (from ``offset``); returns the end."""
        wanted = self.wanted
        text = text[:PROXIMITY_MAX_CHARS]
        if is_cjk(text):
            at = offset
            for term in terms(text):
                if not term.startswith(CHAR_PREFIX):
                    if term in wanted:
                        found.setdefault(term, []).append(at)
                    at += 1
            return at
        memo = self._memo
        words = tokens(text)  # no CJK here: the words of WORD_PATTERN
        holding = self._words.holding(set(words), wanted)
        if holding:
            for word in holding.difference(memo):
                memo[word] = tuple(t for t in self._words.terms[word] if t in wanted)
            for at, word in enumerate(words, start=offset):
                if word in holding:
                    for term in memo[word]:
                        found.setdefault(term, []).append(at)
        return offset + len(words)

    def bonus(self, title: str, text: str, *, level: int) -> float:
        """Bonus of one section.

        Args:
            title: the section title.
            text: the section's bytes as text (heading line included for ``level`` > 0).
            level: the section's heading level.
        """
        if not self.pairs or not self.total:
            return 0.0
        start = text.find("\n") + 1 if level > 0 else 0  # after the heading line; none: no body
        body = _COMMENT.sub(" ", text[start : start + _COMMENT_SCAN_CHARS] if start or not level else "")
        unclosed = body.find("<!--")  # a comment cut by the scan limit
        if unclosed >= 0:
            body = body[:unclosed]
        found: dict[str, list[int]] = {}
        end = self._positions(title, found, 0)
        self._positions(body, found, end + _TITLE_GAP)
        bonus = 0.0
        for a, b in self.pairs:
            if a in found and b in found:
                d = max(1, _closest(found[a], found[b]))  # a compound and its part share a word
                if d <= PROXIMITY_WINDOW:
                    bonus += min(self.weights[a], self.weights[b]) / d
        return PROXIMITY_WEIGHT * bonus / self.total


def _closest(a: list[int], b: list[int]) -> int:
    """Smallest ``|x − y|`` for x in ``a``, y in ``b`` (``b`` sorted)."""
    best = 1 << 30
    for x in a:
        i = bisect_left(b, x)
        if i < len(b):
            best = min(best, b[i] - x)
        if i:
            best = min(best, x - b[i - 1])
    return best
