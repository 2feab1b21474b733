"""Question ranking: a query is a bag of content words, each matched on its own.

Algorithm (numbers behind each choice: ``docs/search.md``):

1. **Analysis** — the query goes through the same analyser as the text
   (:func:`docmunch.index.analyze.terms`): stop and question words dropped, English stems,
   identifiers kept whole as extra terms, CJK segmented into words. A CJK word the repo has
   never seen falls back to its dictionary sub-words, else (three characters or more) to its
   characters, at :data:`SUBWORD_WEIGHT`; a query that is one CJK character matches that
   character anywhere (``库`` finds ``代码库``). General variants of English words join at
   :data:`~docmunch.index.synonyms.SYNONYM_WEIGHT` (:mod:`docmunch.index.synonyms`).
2. **Term weights** — ``IDF^IDF_EXPONENT`` per repo, IDF = ``ln(1 + (N − df + ½)/(df + ½))``
   (Robertson–Spärck Jones with the +1 of Lucene's BM25, never negative). The square root
   flattens IDF: questions carry common but meaningful words ("memory", "node").
3. **Section score** — over *every* posting of every term (one blob per term, numpy):
   ``Σ weight · impact`` (BM25F with the term's weight as IDF; impacts include the section's
   prior) divided by the query's total weight, times coordination ``(matched weight / query
   weight)^COORDINATION_EXPONENT`` — more of the question's words rank higher, none is required.
4. **Document score** — the same formula over the documents' own impacts
   (:mod:`docmunch.index.impacts`); :mod:`docmunch.index.search` adds
   :data:`DOCUMENT_WEIGHT` times it to each of the document's sections.
5. **Pseudo-relevance feedback** (RM3-like: Lavrenko & Croft 2001, Abdul-Jaleel et al. 2004) —
   the :data:`FEEDBACK_SECTIONS` best sections of the first pass give their
   :data:`FEEDBACK_TERMS` best terms by ``Σ impact · IDF``, which join the query at up to
   :data:`FEEDBACK_WEIGHT` for a second pass. They re-weight the sections that match the
   query; a section matching only feedback terms is not a candidate.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from docmunch.index.analyze import CHAR_PREFIX, cjk_words, is_cjk, terms
from docmunch.index.impacts import IMPACT_LEVELS
from docmunch.index.postings import read_postings, unpack_postings
from docmunch.index.synonyms import expansions

__all__ = [
    "COORDINATION_EXPONENT",
    "DOCUMENT_WEIGHT",
    "FEEDBACK_POOL",
    "FEEDBACK_SECTIONS",
    "FEEDBACK_TERMS",
    "FEEDBACK_WEIGHT",
    "IDF_EXPONENT",
    "MIN_CHARACTER_FALLBACK",
    "SUBWORD_WEIGHT",
    "Ranker",
    "query_weights",
]

IDF_EXPONENT = 0.5
"""IDF is raised to this power (dev set MRR@10: 1.0 → 0.577, 0.75 → 0.588, 0.5 → 0.603)."""
COORDINATION_EXPONENT = 0.3
"""Exponent of the matched share of the query weight (0 → 0.825 recall, 0.3 → 0.842, 1 → 0.808;
larger values punish the filler words of Chinese questions)."""
DOCUMENT_WEIGHT = 0.2
"""Share of the document's score added to each of its sections (dev set recall@10 0.900 → 0.925
with it; 0.1 and 0.4 both lower)."""
MIN_CHARACTER_FALLBACK = 3
"""An unknown CJK word of at least this many characters (and no known sub-word) is matched
character by character; a shorter one is not (``设定`` must not match Japanese ``設定``)."""
SUBWORD_WEIGHT = 0.5
"""Weight of the sub-words and characters that replace a CJK word unknown to the repo."""
FEEDBACK_SECTIONS = 5
"""Sections of the first pass whose terms feed the second (pseudo-relevance feedback)."""
FEEDBACK_TERMS = 10
"""Terms added by feedback (the best by summed impact × IDF, in at least 2 sections)."""
FEEDBACK_POOL = 200
"""Terms of the feedback sections, by summed impact, whose document frequency is looked up."""
FEEDBACK_WEIGHT = 0.1
"""Weight of the best feedback term (the others in proportion to their feedback score; dev set
recall@10 0.867 → 0.925 with feedback, MRR@10 0.651 → 0.665; 0.2 and 0.3 measured lower)."""

Ids = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


def query_weights(query: str) -> dict[str, float]:
    """Distinct query terms with weight 1.0, in query order (see :func:`terms`); a query that is
    a single CJK character becomes that character's term."""
    out: dict[str, float] = {}
    for term in terms(query, query=True):
        out.setdefault(term, 1.0)
    stripped = "".join(ch for ch in query if ch.isalnum())
    if len(stripped) == 1 and is_cjk(stripped) and set(out) <= {stripped}:
        return {CHAR_PREFIX + stripped: 1.0}
    return out


@dataclass(slots=True)
class _Term:
    id: int
    repo_id: int
    term: str
    weight: float
    df: int
    sections: tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]
    docs: tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]
    feedback: bool = False
    """Added by pseudo-relevance feedback: re-weights candidates, makes none."""


def _weighted_counts(at: npt.NDArray[np.intp], weights: Floats, minlength: int = 0) -> Floats:
    """``np.bincount`` with ``weights``: the float64 sum of the weights at each index."""
    # numpy's stub types every bincount as intp; with weights it returns float64
    return np.bincount(at, weights=weights, minlength=minlength)  # type: ignore[return-value]


def _accumulate(
    parts: Sequence[tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8], float]],
) -> tuple[Ids, Floats, Floats]:
    """``(ids, Σ weight·impact, Σ weight)`` over postings ``(ids, impacts, weight)``, by id."""
    parts = [p for p in parts if p[0].size]
    if not parts:
        return np.empty(0, np.int64), np.empty(0), np.empty(0)
    ids = np.concatenate([p[0] for p in parts]).astype(np.int64)
    contrib = np.concatenate([p[1] * p[2] for p in parts])
    match = np.concatenate([np.full(p[0].size, p[2]) for p in parts])
    lo = int(ids.min())
    span = int(ids.max()) - lo + 1
    if span <= 4 * ids.size + 4096:
        at = ids - lo
        acc = _weighted_counts(at, contrib, span)
        matched = _weighted_counts(at, match, span)
        hit = np.flatnonzero(matched)
        return (hit + lo).astype(np.int64, copy=False), acc[hit], matched[hit]
    uniq, inverse = np.unique(ids, return_inverse=True)
    return uniq, _weighted_counts(inverse, contrib), _weighted_counts(inverse, match)


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
        self.sizes: dict[int, int] = {}
        self._base: dict[bool, dict[int, tuple[Ids, Floats, Floats]]] = {False: {}, True: {}}
        """Per kind (documents?) and repo: the accumulated postings of the query's own terms."""
        weights = query_weights(query)
        self.sequence = [t for t in terms(query, query=True) if t in weights]
        """The query's own terms in order (proximity)."""
        if self.repo_ids:
            marks = ",".join("?" * len(self.repo_ids))
            self.sizes = dict(
                self.conn.execute(
                    f"SELECT repo_id, sections FROM repo_stats WHERE repo_id IN ({marks})", self.repo_ids
                ).fetchall()
            )
            self._resolve(weights)

    @property
    def empty(self) -> bool:
        """No query term occurs in the searched repos."""
        return not self.terms

    def total(self, repo_id: int) -> float:
        """Sum of the query's term weights in one repo (a section's best possible match)."""
        return sum(t.weight for t in self.terms if t.repo_id == repo_id)

    def weight_of(self, repo_id: int) -> dict[str, float]:
        """``{term: weight}`` of the query in one repo."""
        return {t.term: t.weight for t in self.terms if t.repo_id == repo_id}

    # --- term resolution -------------------------------------------------------------------
    def _lookup(self, words: Sequence[str]) -> dict[str, list[tuple[int, int, int, bytes, bytes]]]:
        found: dict[str, list[tuple[int, int, int, bytes, bytes]]] = {}
        if not words:
            return found
        marks = ",".join("?" * len(words))
        repos = ",".join("?" * len(self.repo_ids))
        rows = self.conn.execute(
            f"SELECT id, repo_id, term FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks})",
            (*self.repo_ids, *words),
        ).fetchall()
        blobs = read_postings(self.conn, [row[0] for row in rows])
        for tid, repo_id, term in rows:
            sections, docs = blobs.get(tid, (b"", b""))
            if sections:  # df = the number of section postings
                found.setdefault(term, []).append((tid, repo_id, len(sections) // 5, sections, docs))
        return found

    def _resolve(self, weights: dict[str, float]) -> None:
        found = self._lookup(list(weights))
        extra: dict[str, float] = {}
        for word, weight in weights.items():
            if word in found or not is_cjk(word) or word.startswith(CHAR_PREFIX):
                continue
            subs = [w for w in cjk_words(word) if w != word and len(w) > 1]
            if not subs and len(word) >= MIN_CHARACTER_FALLBACK:
                subs = [CHAR_PREFIX + ch for ch in word]
            for sub in subs:
                if sub not in weights:
                    extra[sub] = max(extra.get(sub, 0.0), weight * SUBWORD_WEIGHT)
        for word, weight in expansions(list(weights)).items():
            if word not in weights and word not in extra:
                extra[word] = weight
        found.update(self._lookup(list(extra)))
        weights = {**extra, **weights}
        for word, entries in found.items():
            for tid, repo_id, df, sections, docs in entries:
                self._add(tid, repo_id, word, df, weights[word], (sections, docs))

    def _add(
        self,
        tid: int,
        repo_id: int,
        word: str,
        df: int,
        weight: float,
        blobs: tuple[bytes, bytes],
        *,
        feedback: bool = False,
    ) -> None:
        n = max(int(self.sizes.get(repo_id, 0)), df)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        value = weight * idf**IDF_EXPONENT
        if value > 0:
            sections, docs = (unpack_postings(blob) for blob in blobs)
            self.terms.append(_Term(tid, repo_id, word, value, df, sections, docs, feedback))

    # --- scoring ---------------------------------------------------------------------------
    def _scores(self, *, docs: bool) -> tuple[Ids, Floats]:
        out_ids: list[Ids] = []
        out_scores: list[Floats] = []
        cache = self._base[docs]
        for repo_id in dict.fromkeys(t.repo_id for t in self.terms):
            mine = [t for t in self.terms if t.repo_id == repo_id]
            if repo_id not in cache:  # the query's own terms, accumulated once
                cache[repo_id] = _accumulate(
                    [(*(t.docs if docs else t.sections), t.weight) for t in mine if not t.feedback]
                )
            ids, acc, matched = cache[repo_id]
            extra = [t for t in mine if t.feedback]
            if extra:  # feedback terms re-weight the candidates, they make none
                acc, matched = acc.copy(), matched.copy()
                for t in extra:
                    term_ids, impacts = t.docs if docs else t.sections
                    at = np.searchsorted(ids, term_ids)
                    inside = at < ids.size
                    at, impacts = at[inside], impacts[inside]
                    hit = ids[at] == term_ids[inside]
                    acc[at[hit]] += impacts[hit] * t.weight
                    matched[at[hit]] += t.weight
            total = sum(t.weight for t in mine)
            out_ids.append(ids)
            out_scores.append(acc / IMPACT_LEVELS / total * (matched / total) ** COORDINATION_EXPONENT)
        if not out_ids:
            return np.empty(0, np.int64), np.empty(0)
        return np.concatenate(out_ids), np.concatenate(out_scores)

    def section_scores(self) -> tuple[Ids, Floats]:
        """``(section ids, scores)`` of every section matching a term (unordered; priors applied)."""
        return self._scores(docs=False)

    def document_scores(self) -> tuple[Ids, Floats]:
        """``(document ids ascending, scores)`` of every document matching a term."""
        ids, scores = self._scores(docs=True)
        if ids.size > 1 and bool(np.any(ids[1:] < ids[:-1])):  # several repos
            order = np.argsort(ids, kind="stable")
            ids, scores = ids[order], scores[order]
        return ids, scores

    def feedback(self, section_ids: Sequence[int]) -> bool:
        """Add the feedback terms of the given (best) sections; ``False`` when none was added."""
        if not section_ids:
            return False
        known = {t.id for t in self.terms}
        mass: dict[int, float] = {}
        repo_of: dict[int, int] = {}
        marks = ",".join("?" * len(section_ids))
        for repo_id, blob in self.conn.execute(
            f"SELECT repo_id, terms FROM section_terms WHERE section_id IN ({marks})", list(section_ids)
        ):
            term_ids, impacts = unpack_postings(blob)
            for tid, impact in zip(term_ids.tolist(), impacts.tolist(), strict=True):
                if tid not in known:
                    mass[tid] = mass.get(tid, 0.0) + impact / IMPACT_LEVELS
                    repo_of[tid] = repo_id
        if not mass:
            return False
        scored: dict[int, tuple[float, str]] = {}
        ids = sorted(mass, key=lambda tid: -mass[tid])[:FEEDBACK_POOL]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sizes = dict(
                self.conn.execute(
                    f"SELECT term_id, sum(length(sections)) / 5 FROM postings WHERE term_id IN ({marks}) "
                    "GROUP BY term_id",
                    chunk,
                ).fetchall()
            )
            for tid, term in self.conn.execute(f"SELECT id, term FROM terms WHERE id IN ({marks})", chunk):
                df = int(sizes.get(tid) or 0)
                if df < 2 or term.startswith(CHAR_PREFIX):
                    continue
                n = max(int(self.sizes.get(repo_of[tid], 0)), df)
                scored[tid] = (mass[tid] * math.log(1 + (n - df + 0.5) / (df + 0.5)), term)
        best = sorted(scored, key=lambda tid: (-scored[tid][0], tid))[:FEEDBACK_TERMS]
        if not best or scored[best[0]][0] <= 0:
            return False
        top = scored[best[0]][0]
        marks = ",".join("?" * len(best))
        sql = f"SELECT id, repo_id, term FROM terms WHERE id IN ({marks})"
        rows = self.conn.execute(sql, best).fetchall()
        blobs = read_postings(self.conn, best)
        for tid, repo_id, term in rows:
            sections, docs = blobs.get(tid, (b"", b""))
            df = len(sections) // 5
            weight = FEEDBACK_WEIGHT * scored[tid][0] / top
            self._add(tid, repo_id, term, df, weight, (sections, docs), feedback=True)
        return bool(rows)
