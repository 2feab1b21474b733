"""Question ranking: a query is a bag of content words, each matched on its own.

Algorithm (numbers behind each choice: ``docs/search.md``):

1. **Analysis** — the query goes through the same analyser as the text
   (:func:`docmunch.index.analyze.terms`): stop and question words dropped, English stems,
   identifiers kept whole as extra terms, CJK segmented into words. A CJK word the repo has
   never seen falls back to its dictionary sub-words, else (three characters or more) to its
   characters; a query that
   is one CJK character matches that character anywhere (``库`` finds ``代码库``).
2. **Term weights** — ``IDF^IDF_EXPONENT`` per repo, IDF = ``ln(1 + (N − df + ½)/(df + ½))``
   (Robertson–Spärck Jones with the +1 of Lucene's BM25, never negative). The square root
   flattens IDF: questions carry common but meaningful words ("memory", "node").
3. **Candidates** — for every term, the first :data:`MAX_POSTINGS_PER_TERM` postings of its
   impact-ordered list (:mod:`docmunch.index.postings`): a section matching *any* term is a
   candidate, and the work per term is bounded however common the term is.
4. **Score** — ``Σ weight · impact`` (BM25F with the term's weight as IDF), times
   coordination ``(matched weight / query weight)^COORDINATION_EXPONENT`` (more of the
   question's words → higher, without requiring all), times the section's content prior
   (non-content sections ×0.5). The best :data:`RESCORE_CANDIDATES` by the partial score are
   rescored exactly from their own term lists, so a term cut off by the postings cap still
   counts for them.
"""

from __future__ import annotations

import math
import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from docmunch.index.analyze import CHAR_PREFIX, cjk_words, is_cjk, terms
from docmunch.index.postings import IMPACT_LEVELS

__all__ = [
    "COORDINATION_EXPONENT",
    "IDF_EXPONENT",
    "MAX_POSTINGS_PER_TERM",
    "MIN_CHARACTER_FALLBACK",
    "RESCORE_CANDIDATES",
    "SUBWORD_WEIGHT",
    "Ranker",
    "query_weights",
]

MAX_POSTINGS_PER_TERM = 1000
"""Postings read per query term and repo (the best by impact). Bounds the work of a common
term; the dev set loses nothing against an unbounded read (exact rescoring, step 4)."""
RESCORE_CANDIDATES = 200
"""Candidates rescored exactly from their own term lists (per chunk when filters drop hits)."""
IDF_EXPONENT = 0.5
"""IDF is raised to this power (dev set MRR@10: 1.0 → 0.577, 0.75 → 0.588, 0.5 → 0.603)."""
COORDINATION_EXPONENT = 0.3
"""Exponent of the matched share of the query weight (0 → 0.825 recall, 0.3 → 0.842, 1 → 0.808;
larger values punish the filler words of Chinese questions)."""
MIN_CHARACTER_FALLBACK = 3
"""An unknown CJK word of at least this many characters (and no known sub-word) is matched
character by character; a shorter one is not (``设定`` must not match Japanese ``設定``)."""
SUBWORD_WEIGHT = 0.5
"""Weight of the sub-words and characters that replace a CJK word unknown to the repo."""


def query_weights(query: str) -> dict[str, float]:
    """Distinct query terms with weight 1.0, in query order (see :func:`terms`)."""
    out: dict[str, float] = {}
    for term in terms(query, query=True):
        out.setdefault(term, 1.0)
    return out


@dataclass(slots=True)
class _Term:
    id: int
    repo_id: int
    weight: float
    df: int


class Ranker:
    """One ranked query over the term index of some repos.

    Args:
        conn: an open connection.
        query: any user string.
        repo_ids: repos searched.
    """

    def __init__(self, conn: sqlite3.Connection, query: str, repo_ids: Sequence[int]) -> None:
        self.conn = conn
        self.repo_ids = list(repo_ids)
        self.terms: list[_Term] = []
        self.total: dict[int, float] = {}
        self.by_repo: dict[int, dict[int, float]] = {}
        if self.repo_ids:
            self._resolve(query_weights(query))

    @property
    def empty(self) -> bool:
        """No query term occurs in the searched repos."""
        return not self.terms

    # --- term resolution -------------------------------------------------------------------
    def _lookup(self, words: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        found: dict[str, list[tuple[int, int, int]]] = {}
        if not words:
            return found
        marks = ",".join("?" * len(words))
        repos = ",".join("?" * len(self.repo_ids))
        for tid, repo_id, term, df in self.conn.execute(
            f"SELECT id, repo_id, term, df FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks}) "
            "AND df > 0",
            (*self.repo_ids, *words),
        ):
            found.setdefault(term, []).append((tid, repo_id, df))
        return found

    def _resolve(self, weights: dict[str, float]) -> None:
        if len(weights) == 1:
            only = next(iter(weights))
            if len(only) == 1 and is_cjk(only):
                weights = {CHAR_PREFIX + only: 1.0}
        found = self._lookup(list(weights))
        fallback: dict[str, float] = {}
        for word, weight in weights.items():
            if word in found or not is_cjk(word) or word.startswith(CHAR_PREFIX):
                continue
            subs = [w for w in cjk_words(word) if w != word and len(w) > 1]
            if not subs and len(word) >= MIN_CHARACTER_FALLBACK:
                subs = [CHAR_PREFIX + ch for ch in word]
            for sub in subs:
                if sub not in weights:
                    fallback[sub] = max(fallback.get(sub, 0.0), weight * SUBWORD_WEIGHT)
        found.update(self._lookup(list(fallback)))
        weights = {**fallback, **weights}
        marks = ",".join("?" * len(self.repo_ids))
        sections = dict(
            self.conn.execute(
                f"SELECT repo_id, sections FROM repo_stats WHERE repo_id IN ({marks})", self.repo_ids
            ).fetchall()
        )
        for word, entries in found.items():
            for tid, repo_id, df in entries:
                n = max(int(sections.get(repo_id, 0)), df)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                weight = weights[word] * idf**IDF_EXPONENT
                if weight <= 0:
                    continue
                self.terms.append(_Term(tid, repo_id, weight, df))
                self.total[repo_id] = self.total.get(repo_id, 0.0) + weight
                self.by_repo.setdefault(repo_id, {})[tid] = weight

    def total_weight(self, repo_id: int) -> float:
        """Sum of the query's term weights in one repo (a section's best possible match)."""
        return self.total.get(repo_id, 0.0)

    # --- scoring ---------------------------------------------------------------------------
    def candidates(self, *, unbounded: bool = False) -> list[tuple[float, int, int]]:
        """``[(partial score, section id, repo id)]`` best first, from capped postings reads.

        Args:
            unbounded: read every posting (used when filters may drop the capped candidates).
        """
        limit = -1 if unbounded else MAX_POSTINGS_PER_TERM
        score: dict[int, float] = {}
        matched: dict[int, float] = {}
        repo_of: dict[int, int] = {}
        for term in self.terms:
            rows = self.conn.execute(
                "SELECT section_id, impact FROM postings WHERE term_id = ? LIMIT ?", (term.id, limit)
            ).fetchall()
            weight = term.weight
            for sid, impact in rows:
                score[sid] = score.get(sid, 0.0) + weight * impact
                matched[sid] = matched.get(sid, 0.0) + weight
                repo_of[sid] = term.repo_id
        out = []
        for sid, value in score.items():
            repo_id = repo_of[sid]
            total = self.total[repo_id]
            share = matched[sid] / total
            out.append((value / IMPACT_LEVELS / total * share**COORDINATION_EXPONENT, sid, repo_id))
        out.sort(key=lambda item: (-item[0], item[1]))
        return out

    def rescore(self, section_ids: Sequence[int]) -> dict[int, float]:
        """Exact scores (prior included) of some sections, from their own term lists."""
        out: dict[int, float] = {}
        for start in range(0, len(section_ids), 500):
            chunk = list(section_ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for sid, repo_id, prior, blob in self.conn.execute(
                f"SELECT section_id, repo_id, prior, terms FROM section_terms WHERE section_id IN ({marks})",
                chunk,
            ):
                wanted = self.by_repo.get(repo_id)
                if not wanted:
                    continue
                packed = array("Q")
                packed.frombytes(blob)
                value = 0.0
                matched = 0.0
                for tid, weight in wanted.items():
                    at = bisect_left(packed, tid << 8)
                    if at < len(packed) and packed[at] >> 8 == tid:
                        value += weight * (packed[at] & 0xFF)
                        matched += weight
                if matched:
                    total = self.total[repo_id]
                    # Divided by the repo's total query weight: scores of different repos compare.
                    coordination = (matched / total) ** COORDINATION_EXPONENT
                    out[sid] = value / IMPACT_LEVELS / total * coordination * prior
        return out
