"""Question ranking: a query is a bag of content words, each matched on its own.

Algorithm (numbers behind each choice: ``docs/search.md``):

1. **Analysis** — the query goes through the same analyser as the text
   (:func:`docmunch.index.analyze.terms`): stop and question words dropped, English stems,
   identifiers kept whole as extra terms, CJK segmented into words. A CJK word the repo has
   never seen falls back to its dictionary sub-words; without any, a function character the
   segmenter glued to its end is stripped (``卷里`` → ``卷``, :data:`FUNCTION_CHARACTERS`), else
   (three characters or more) it falls back to its characters, at :data:`SUBWORD_WEIGHT`; a
   query that is one CJK character matches that character anywhere (``库`` finds ``代码库``).
   General variants of English words join at :data:`~docmunch.index.synonyms.SYNONYM_WEIGHT`
   (:mod:`docmunch.index.synonyms`), except for the words of a piece written as code
   (:func:`~docmunch.index.identifiers.identifiers`: ``Option<T>``, ``&str``), which are names.
2. **Term weights** — ``IDF^IDF_EXPONENT``, IDF = ``ln(1 + (N − df + ½)/(df + ½))``
   (Robertson–Spärck Jones with the +1 of Lucene's BM25, never negative). The square root
   flattens IDF: questions carry common but meaningful words ("memory", "node"). N and df
   are those of all the searched repos together (one collection, see :class:`Ranker`), so
   scores of different repos compare.
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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from docmunch.index.analyze import CHAR_PREFIX, cjk_words, is_cjk, terms
from docmunch.index.identifiers import identifiers
from docmunch.index.impacts import IMPACT_LEVELS
from docmunch.index.postings import read_postings, unpack_postings
from docmunch.index.spelling import CORRECTION_WEIGHT, corrections
from docmunch.index.stopwords import CHINESE
from docmunch.index.synonyms import expansions
from docmunch.index.termstats import TermStats

__all__ = [
    "COORDINATION_EXPONENT",
    "DOCUMENT_WEIGHT",
    "FEEDBACK_POOL",
    "FEEDBACK_SECTIONS",
    "FEEDBACK_TERMS",
    "FEEDBACK_WEIGHT",
    "FUNCTION_CHARACTERS",
    "IDF_EXPONENT",
    "MIN_CHARACTER_FALLBACK",
    "PASTED_TEXT_TERMS",
    "QUERY_K3",
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
FUNCTION_CHARACTERS = "".join(sorted(w for w in CHINESE if len(w) == 1))
"""One-character Chinese function words (的, 里, 前, 时, 着, …): stripped from both ends of a query
word the searched repos do not know, which the segmenter glued to its neighbour
(``组里`` → ``组``, ``卡着`` → ``卡``, ``时想`` → nothing)."""
PASTED_TEXT_TERMS = 24
"""A query of more distinct terms is pasted text (a log, compiler output), not a question: no
question of the dev and validation sets has more than 15. Its terms are weighted by how often
it repeats them (:func:`query_weights`)."""
QUERY_K3 = 7.0
"""BM25's query-term-frequency constant k3 (Robertson, Walker, Jones, Hancock-Beaulieu & Gatford,
"Okapi at TREC-3", 1994, used 7 and 1000): a term five times in a pasted log weighs 3.3, so
five lines of one ``CrashLoopBackOff`` error that differ in a pod name and a line number rank
like one line of it (they ranked the StatefulSet scaling steps, which name ``web-0``,
``web-1``, …). For questions it stays off: weighting their repeated words lost a dev question
(``让同一个 Deployment 的多个 Pod 不要跑在同一个节点上``, 8 → out; ``docs/search.md`` round 15)."""
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

_TERM_DF_SQL = (
    "SELECT t.id, t.repo_id, t.term, "
    "(SELECT sum(length(p.sections)) FROM postings p WHERE p.term_id = t.id) / 5 FROM terms t WHERE "
)
"""Terms with their document frequency (section postings over all segments); a condition follows."""

Ids = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


def query_weights(query: str) -> dict[str, float]:
    """Distinct query terms, in query order (see :func:`terms`), with weight 1.0; in pasted
    text (more than :data:`PASTED_TEXT_TERMS` distinct terms) a term met ``n`` times weighs
    ``(k3 + 1)·n / (k3 + n)`` (:data:`QUERY_K3`). A query that is a single CJK character
    becomes that character's term."""
    out: dict[str, float] = {}
    found = terms(query, query=True)
    for term in found:
        out.setdefault(term, 1.0)
    if len(out) > PASTED_TEXT_TERMS:  # a log: the words it repeats are what it is about
        counts = Counter(found)
        out = {term: (QUERY_K3 + 1) * counts[term] / (QUERY_K3 + counts[term]) for term in out}
    stripped = "".join(ch for ch in query if ch.isalnum())
    if len(stripped) == 1 and is_cjk(stripped) and set(out) <= {stripped}:
        return {CHAR_PREFIX + stripped: 1.0}
    return out


@dataclass(slots=True)
class _Term:
    """One query term in one repo: its postings there and its weight in the whole search."""

    id: int
    repo_id: int
    term: str
    weight: float
    sections: tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]
    docs: tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]
    feedback: bool = False
    """Added by pseudo-relevance feedback: re-weights candidates, makes none."""


def _weighted_counts(at: npt.NDArray[np.intp], weights: Floats, minlength: int = 0) -> Floats:
    """``np.bincount`` with ``weights``: the float64 sum of the weights at each index."""
    # numpy's stub types every bincount as intp; with weights it returns float64
    return np.bincount(at, weights=weights, minlength=minlength)  # type: ignore[return-value]


_Entry = tuple[int, int, int, bytes, bytes]
"""A term's row in one repo: ``(term id, repo id, df, sections blob, docs blob)``."""


def _idf(n: int, df: int) -> float:
    """``ln(1 + (N − df + ½)/(df + ½))`` with ``N`` at least ``df``."""
    n = max(n, df)
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


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

    The searched repos are scored as **one collection**: a term's document frequency is the
    sum of its frequencies in every searched repo, N the sum of their section counts, and the
    query's total weight (which normalises every score and its coordination) counts each term
    once, whichever repos hold it. Per-repo statistics made scores of different repos
    incomparable: a one-document repo knowing one query word matched "all" of the words it
    knew and outranked the repo that answers. This is what Elasticsearch's
    ``dfs_query_then_fetch`` does for shards ("gather the term frequencies from all shards to
    calculate global term frequencies, then execute the query on each shard using these
    global frequencies", Elasticsearch reference, *Search type*); with one repo nothing changes.
    Impacts need no change: their length norms use fixed reference lengths
    (:mod:`docmunch.index.impacts`), the same in every repo.

    Args:
        conn: an open connection.
        query: any user string.
        repo_ids: repos searched.
        stats: the connection's :class:`~docmunch.index.termstats.TermStats`, to keep the
            rows of feedback's pool terms between queries (same results, less time).
    """

    def __init__(
        self, conn: sqlite3.Connection, query: str, repo_ids: Sequence[int], stats: TermStats | None = None
    ) -> None:
        self.conn = conn
        self.stats = stats
        """Term rows kept between queries (:mod:`docmunch.index.termstats`); ``None``: read each time."""
        self.repo_ids = list(repo_ids)
        self.terms: list[_Term] = []
        self.weights: dict[str, float] = {}
        """``{term: weight}`` of every term known to the searched repos (feedback terms included)."""
        self.sections = 0
        """N of IDF: sections of the searched repos together."""
        self._base: dict[bool, tuple[Ids, Floats, Floats]] = {}
        """Per kind (documents?): the accumulated postings of the query's own terms."""
        self.corrections: dict[str, str] = {}
        """``{query term: the repos' term searched in its place}`` (:mod:`.spelling`)."""
        self._query = query
        weights = query_weights(query)
        self.sequence = [t for t in terms(query, query=True) if t in weights]
        """The query's own terms in order (proximity)."""
        if self.repo_ids:
            marks = ",".join("?" * len(self.repo_ids))
            row = self.conn.execute(
                f"SELECT sum(sections) FROM repo_stats WHERE repo_id IN ({marks})", self.repo_ids
            ).fetchone()
            self.sections = int(row[0] or 0)
            self._resolve(weights)

    @property
    def empty(self) -> bool:
        """No query term occurs in the searched repos."""
        return not self.terms

    @property
    def total(self) -> float:
        """Sum of the query's term weights (a section's best possible match)."""
        return sum(self.weights.values())

    # --- term resolution -------------------------------------------------------------------
    def _lookup(self, words: Sequence[str]) -> dict[str, list[_Entry]]:
        found: dict[str, list[_Entry]] = {}
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
        subwords: dict[str, list[str]] = {}
        glued: dict[str, str] = {}
        """Unknown CJK words without dictionary sub-words whose ends are function characters."""
        for word in weights:
            if word in found or not is_cjk(word) or word.startswith(CHAR_PREFIX):
                continue
            subwords[word] = [w for w in cjk_words(word) if w != word and len(w) > 1]
            stripped = word.strip(FUNCTION_CHARACTERS)
            if not subwords[word] and stripped != word:
                glued[word] = stripped
        if glued:
            found.update(self._lookup([c for c in glued.values() if len(c) > 1 and c not in weights]))
        for word, subs in subwords.items():
            weight = weights[word]
            core = glued.get(word)
            if core is not None:  # the segmenter glued a function character to the word
                if core in found:
                    extra[core] = max(extra.get(core, 0.0), weight)
                elif len(core) == 1:
                    char = CHAR_PREFIX + core
                    extra[char] = max(extra.get(char, 0.0), weight * SUBWORD_WEIGHT)
                continue
            if not subs and len(word) >= MIN_CHARACTER_FALLBACK:
                subs = [CHAR_PREFIX + ch for ch in word]
            for sub in subs:
                if sub not in weights:
                    extra[sub] = max(extra.get(sub, 0.0), weight * SUBWORD_WEIGHT)
        # a word written as code (``Option<T>``, ``&String``) is a name: no vocabulary variants
        named = {t for piece in identifiers(self._query) for t in terms(piece, query=True)}
        for word, weight in expansions([w for w in weights if w not in named]).items():
            if word not in weights and word not in extra:
                extra[word] = weight
        typed = len(weights) <= PASTED_TEXT_TERMS  # pasted text (a log) is not corrected
        fixes = corrections(self.conn, self.repo_ids, self._query, found) if typed else {}
        for term, fixed in fixes.items():
            if term in weights and fixed not in weights:  # a mistyped word: the repos' nearest
                self.corrections[term] = fixed
                extra[fixed] = max(extra.get(fixed, 0.0), weights[term] * CORRECTION_WEIGHT)
        found.update(self._lookup(list(extra)))
        weights = {**extra, **weights}
        for word, entries in found.items():
            self._add(word, weights[word], entries)

    def _add(self, word: str, weight: float, entries: Sequence[_Entry], *, feedback: bool = False) -> None:
        """Add one term with its rows in the searched repos (df summed over them)."""
        value = weight * _idf(self.sections, sum(e[2] for e in entries)) ** IDF_EXPONENT
        if value <= 0:
            return
        self.weights[word] = value
        for tid, repo_id, _, sections, docs in entries:
            postings = (unpack_postings(sections), unpack_postings(docs))
            self.terms.append(_Term(tid, repo_id, word, value, *postings, feedback))

    # --- scoring ---------------------------------------------------------------------------
    def _scores(self, *, docs: bool) -> tuple[Ids, Floats]:
        if not self.terms:
            return np.empty(0, np.int64), np.empty(0)
        base = self._base.get(docs)
        if base is None:  # the query's own terms, accumulated once (ids are unique across repos)
            base = self._base[docs] = _accumulate(
                [(*(t.docs if docs else t.sections), t.weight) for t in self.terms if not t.feedback]
            )
        ids, acc, matched = base
        extra = [t for t in self.terms if t.feedback]
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
        total = self.total
        return ids, acc / IMPACT_LEVELS / total * (matched / total) ** COORDINATION_EXPONENT

    def section_scores(self) -> tuple[Ids, Floats]:
        """``(section ids ascending, scores)`` of every section matching a term (priors applied)."""
        return self._scores(docs=False)

    def document_scores(self) -> tuple[Ids, Floats]:
        """``(document ids ascending, scores)`` of every document matching a term."""
        return self._scores(docs=True)

    def feedback(self, section_ids: Sequence[int]) -> bool:
        """Add the feedback terms of the given (best) sections; ``False`` when none was added.

        A feedback term is a word: its mass is summed over the repos of the given sections,
        its document frequency over the searched repos, and it re-weights candidates of every
        searched repo that holds it.
        """
        if not section_ids:
            return False
        marks = ",".join("?" * len(section_ids))
        blobs = [
            unpack_postings(row[0])
            for row in self.conn.execute(
                f"SELECT terms FROM section_terms WHERE section_id IN ({marks})", list(section_ids)
            )
        ]
        if not blobs:
            return False
        all_ids = np.concatenate([b[0] for b in blobs]).astype(np.int64)
        all_impacts = np.concatenate([b[1] for b in blobs]).astype(np.float64) / IMPACT_LEVELS
        keep = ~np.isin(all_ids, np.asarray([t.id for t in self.terms], dtype=np.int64))
        uniq, first, inverse = np.unique(all_ids[keep], return_index=True, return_inverse=True)
        if not uniq.size:
            return False
        mass = np.bincount(inverse, weights=all_impacts[keep])
        order = np.lexsort((first, -mass))[:FEEDBACK_POOL]  # by mass, then first appearance
        pool = uniq[order].tolist()
        pool_mass = dict(zip(pool, mass[order].tolist(), strict=True))
        words: dict[str, float] = {}
        rank: dict[str, int] = {}
        ids: dict[str, dict[int, tuple[int, int]]] = {}
        """word → {term id: (repo id, df)} in the searched repos."""
        def fetch(chunk: list[int]) -> list[tuple[Any, ...]]:
            return self._rows(_TERM_DF_SQL + "t.id IN ({})", chunk)

        rows = self.stats.rows(self.conn, pool, fetch) if self.stats is not None else fetch(pool)
        for tid, repo_id, term, df in rows:
            if term.startswith(CHAR_PREFIX) or term in self.weights:
                continue
            words[term] = words.get(term, 0.0) + pool_mass[tid]
            rank[term] = min(rank.get(term, tid), tid)
            ids.setdefault(term, {})[tid] = (repo_id, int(df or 0))
        if not words:
            return False
        if len(self.repo_ids) > 1:  # the same words in the other searched repos
            repos = ",".join(str(int(r)) for r in self.repo_ids)
            sql = _TERM_DF_SQL + f"t.repo_id IN ({repos}) AND t.term IN ({{}})"
            for tid, repo_id, term, df in self._rows(sql, list(words)):
                ids[term][tid] = (repo_id, int(df or 0))
        scored: dict[str, float] = {}
        for term, found in ids.items():
            df = sum(entry[1] for entry in found.values())
            if df >= 2:
                scored[term] = words[term] * _idf(self.sections, df)
        best = sorted(scored, key=lambda w: (-scored[w], rank[w]))[:FEEDBACK_TERMS]
        if not best or scored[best[0]] <= 0:
            return False
        top = scored[best[0]]
        postings = read_postings(self.conn, [tid for term in best for tid in ids[term]])
        for term in best:
            entries = []
            for tid, (repo_id, _) in ids[term].items():
                sections, docs = postings.get(tid, (b"", b""))
                if sections:
                    entries.append((tid, repo_id, len(sections) // 5, sections, docs))
            self._add(term, FEEDBACK_WEIGHT * scored[term] / top, entries, feedback=True)
        return True

    def _rows(self, sql: str, ids: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` (one ``IN ({})`` placeholder) over ``ids`` in chunks of 500."""
        out: list[tuple[Any, ...]] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            out.extend(self.conn.execute(sql.format(",".join("?" * len(chunk))), chunk).fetchall())
        return out
