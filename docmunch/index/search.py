"""Ranked search over sections (design brief §5): questions and keywords, any language.

Two rankings, chosen with ``ranking``:

* ``"question"`` (default) — :mod:`docmunch.index.rank` scores every section matching some of
  the query's content words (BM25F over title, heading path, document and body with
  coordination and priors) and every document; a section gains :data:`DOCUMENT_WEIGHT
  <docmunch.index.rank.DOCUMENT_WEIGHT>` of its document's score. The best sections of that
  pass feed pseudo-relevance feedback and the query is ranked again. On the final
  candidates this module adds :data:`EXACT_TITLE_BOOST` when the whole query equals the
  section title (:data:`TITLE_TERMS_BOOST` when only their terms are the same: ``what is a
  StatefulSet`` for ``StatefulSets``; more, :data:`DEFINING_PAGE_BOOST`, for a page so
  titled), multiplies by :data:`LANGUAGE_MISMATCH` a section not
  written in the query's script (CJK or not), adds a proximity bonus
  (:mod:`docmunch.index.proximity`) when query words stand together in a section, and :data:`IDENTIFIER_BOOST
  <docmunch.index.identifiers.IDENTIFIER_BOOST>` when the section contains a code identifier
  of the query verbatim (``Arc<Mutex<T>>``, ``--dry-run``; :mod:`docmunch.index.identifiers`).
* ``"legacy"`` — docmunch 0.1's FTS5 ranking (:mod:`docmunch.index.legacy`), for comparison.

A query of stop words only (``"how do I"``) or of punctuation has no terms: the result is
empty, never an error, unless it holds operators (``..=``, ``?``): then the sections whose
titles hold them as tokens are the result (:func:`~docmunch.index.identifiers.symbols`).
User text never reaches SQL or FTS5 syntax.
"""

from __future__ import annotations

import difflib
import fnmatch
from typing import Any

import numpy as np

from docmunch.errors import DocumentNotFound
from docmunch.index.analyze import is_cjk, stem, title_key, title_words
from docmunch.index.identifiers import (
    IDENTIFIER_BOOST,
    IDENTIFIER_CHECKS,
    SYMBOL_TITLE_BOOST,
    identifier_weights,
    identifiers,
    symbols,
    title_has_symbol,
)
from docmunch.index.legacy import legacy_search
from docmunch.index.proximity import PROXIMITY_CHECKS, Proximity
from docmunch.index.querytext import query_text, unicode_text
from docmunch.index.rank import DOCUMENT_WEIGHT, FEEDBACK_SECTIONS, Ranker
from docmunch.index.read import read_snippet
from docmunch.index.records import SearchHit
from docmunch.index.spelling import corrected_text
from docmunch.index.store import Store
from docmunch.index.synonyms import variants
from docmunch.index.truecase import truecased

__all__ = [
    "CANDIDATES",
    "COMMON_TITLE_WORDS",
    "DEFINING_PAGE_BOOST",
    "DOCUMENT_SUGGESTIONS",
    "EXACT_TITLE_BOOST",
    "LANGUAGE_MISMATCH",
    "MAX_HITS",
    "RANKINGS",
    "TITLED_CANDIDATES",
    "TITLE_TERMS_BOOST",
    "require_document",
    "search",
]

RANKINGS = ("question", "legacy")
"""Accepted values of ``ranking``."""
MAX_HITS = 200
"""Most hits one search returns (hits); :func:`search` clamps a larger ``limit`` to it. The
fronts refuse more instead of cutting silently: ``docmunch search --limit`` is a usage error
above it, ``search_sections``'s ``max_results`` an invalid-arguments tool error (its schema's
``maximum``)."""
EXACT_TITLE_BOOST = 1.0
"""Added when the query equals the section title (case, spacing and end punctuation ignored,
:func:`_title_keys`): ``kubectl drain`` and ``what is a pod`` put those sections first. Scores
are normalised to the query's total weight, so 1.0 is the score of a section with every term at
full impact."""
CANDIDATES = 100
"""Sections (best by their own score) whose rows are read and that can gain their document's
score; more are read in chunks of this size while filters drop candidates."""
TITLE_TERMS_BOOST = 0.5
"""Added instead when only the query's terms equal the title's (the same
:func:`~docmunch.index.analyze.title_key`: stop and question words, plurals, case and
punctuation aside): ``what is a StatefulSet`` → ``StatefulSets``, ``什么是 Pod？`` → ``Pod``.
Keywords MRR@10 0.877 → 0.898, dev and validation questions unchanged, at 0.3, 0.5 and 1.0
alike; half the exact boost, so that a section titled exactly like the query stays above one
titled only by its words (``what is a pod`` → ``What is a Pod?`` before ``Pods``;
docs/search.md, round 12). The words must be the same up to plurals, not only their stems
(:func:`~docmunch.index.analyze.title_words`; round 13): ``what is the scheduler`` gains
nothing from the four "Scheduling" subsections that stemming made its equals."""
DEFINING_PAGE_BOOST = 0.5
"""Added on top of :data:`TITLE_TERMS_BOOST` when the section so titled carries its page's own
title (level 0 or 1, title equal to the document title): a page named like the question is
about it as a whole, a subsection so named is about it inside another subject (``what is a
DaemonSet``: the DaemonSet page, glossary entry and API reference, not the "DaemonSet"
alternatives subsection of the ReplicaSet page). Dev, validation and keywords unchanged
(0.25 left the Service page below a "Services" subsection). Not for an exact title, nor when
some section is titled exactly like the query: a query typed as a title wants that section
wherever it is (``what is a pod`` → ``What is a Pod?``; the boost on exact titles too cost
the keyword ``PriorityClass`` two ranks, keywords MRR@10 0.898 → 0.880; docs/search.md,
round 12)."""
LANGUAGE_MISMATCH = 0.5
"""Score multiplier of a section whose title and summary are not in the query's script — a
query holding any CJK character against a section with none, or the other way round —
so that a Chinese question over every repo answers from the Chinese docs and an English one
from the English docs (all-repo dev questions: mixed MRR@10 0.719 → 0.785, validation
mixed 0.794 → 0.839; 0.7–0.9 gained less; the per-repo figures are unchanged)."""
COMMON_TITLE_WORDS = True
"""A page's own title may hold, besides the query's words, one word that most of its repo's
documents hold (``common_terms``, :data:`docmunch.index.postings.COMMON_TERM_SHARE`: the
product's name, ``Kubernetes`` in 65 % of k8s-en's pages) and still gain
:data:`TITLE_TERMS_BOOST` and :data:`DEFINING_PAGE_BOOST`: ``Kubernetes Scheduler`` for
``what is the scheduler``, ``Kubernetes 调度器`` for ``什么是调度器``. Such pages also join
the candidates. Dev, validation and keywords unchanged; not for subsections, where the common
word is mostly a verb (``When should you use a readiness probe?`` moved the keyword
``readiness probe`` 2 → 3; docs/search.md, round 13)."""
VARIANT_TITLE_BOOST = 0.3
"""Added when the query's terms equal the title's once one of them is replaced by one of its
general variants (:mod:`docmunch.index.synonyms`): ``remove a namespace`` → ``Deleting a
namespace``, ``stop a container`` → ``Terminating containers``. Less than
:data:`TITLE_TERMS_BOOST`: the user's own word, where a title has it, still wins. Only for
queries of at most :data:`VARIANT_TITLE_TERMS` terms (a title-like query)."""
VARIANT_TITLE_TERMS = 4
"""Most distinct query terms for which variant titles are looked for (:data:`VARIANT_TITLE_BOOST`)."""
TITLED_CANDIDATES = 30
"""Sections titled like the query (exactly, or by :data:`TITLE_TERMS_BOOST`'s terms) that join
the candidates, in each searched repo (the best by own score). Per repo, not in all: over eight
repos holding copies of one English tree, 30 English "DaemonSet" sections outscored (by their own
score, before :data:`LANGUAGE_MISMATCH`) the Chinese DaemonSet page that ``什么是 DaemonSet``
asks for, and it left the results (a new user's trial, 2026-12-04)."""
DOCUMENT_SUGGESTIONS = 3
"""Similar doc_paths named when a ``doc_path`` filter names no document (difflib ratio ≥ 0.6)."""

_ROW_SQL = (
    "SELECT s.id, s.sid, r.name, d.doc_path, s.title, s.level, s.summary, s.byte_start, s.byte_end, "
    "d.raw_hash, s.title_fold, s.doc_id, d.repo_id, s.title_key, d.title FROM sections s "
    "JOIN docs d ON d.id = s.doc_id JOIN repos r ON r.id = d.repo_id WHERE s.id IN ({ids})"
)
Row = tuple[Any, ...]




def require_document(store: Store, repo: str | None, doc_path: str) -> None:
    """Check that ``doc_path`` is a document of the repos a search over ``repo`` covers.

    Raises:
        DocumentNotFound: it is not (with up to :data:`DOCUMENT_SUGGESTIONS` doc_paths that end
            with it, ``deployment.md`` → ``concepts/workloads/controllers/deployment.md``, then
            similar ones).
        RepoNotFound, UnknownVersion: ``repo`` is not indexed.
    """
    scope = store.repo_scope(repo)
    where, args = "", []
    if scope is not None:
        where = f" AND repo_id IN ({','.join('?' * len(scope))})"
        args = [row.id for row in scope]
    sql = "SELECT 1 FROM docs WHERE doc_path = ?" + where + " LIMIT 1"
    if store.conn.execute(sql, (doc_path, *args)).fetchone() is not None:
        return
    paths = [row[0] for row in store.conn.execute("SELECT DISTINCT doc_path FROM docs WHERE 1" + where, args)]
    tail = "/" + doc_path.strip("/")  # a bare file name or a path without its first folders
    ending = sorted(p for p in paths if ("/" + p).endswith(tail))
    close = difflib.get_close_matches(doc_path, paths, n=DOCUMENT_SUGGESTIONS, cutoff=0.6)
    found = list(dict.fromkeys([*ending, *close]))[:DOCUMENT_SUGGESTIONS]
    raise DocumentNotFound(repo, doc_path, suggestions=tuple(found))


_TITLE_END = "?？.。!！:："
"""Sentence punctuation a title may end with that the query may leave out, or the reverse."""


def _title_keys(text: str) -> tuple[str, ...]:
    """The stored ``title_fold`` values (spacing collapsed, casefolded) that count as the query
    ``text`` itself for the exact-title boost: the query, and the query with its end
    punctuation left out or swapped (``什么是 Pod`` and ``what is a pod`` meet the titles
    ``什么是 Pod？`` and ``What is a Pod?``)."""
    key = " ".join(text.split()).casefold()
    core = key.rstrip(_TITLE_END)
    if not core:
        return (key,)
    return tuple(dict.fromkeys([key, core, *(core + mark for mark in _TITLE_END)]))


def search(
    store: Store,
    query: str,
    *,
    repo: str | None = None,
    limit: int = 10,
    doc_path: str | None = None,
    path_glob: str | None = None,
    min_level: int | None = None,
    max_level: int | None = None,
    snippet_bytes: int = 0,
    ranking: str = "question",
) -> list[SearchHit]:
    """Search sections; best first.

    Args:
        query: any user string (empty, punctuation-only or stop-words-only → no results);
            normalised and bounded first (:func:`~docmunch.index.querytext.query_text`: its first
            65,536 characters, full-width letters folded, zero-width characters removed).
        repo: ``NAME`` (its default version), ``NAME@VERSION``, ``NAME@*`` (every version), or
            ``None`` = the default version of every name (see :mod:`docmunch.index.versions`).
        limit: maximum number of hits (clamped to 1–:data:`MAX_HITS`).
        doc_path: restrict to one document (exact doc_path).
        path_glob: ``fnmatch`` pattern on doc_path (``*`` also crosses ``/``; ``concepts/**``).
        min_level, max_level: inclusive heading-level range (0 = preamble).
        snippet_bytes: when > 0, each hit carries the start of its section, at most N bytes
            (:func:`~docmunch.index.read.read_snippet`: never cut inside a character or a word).
        ranking: ``"question"`` (default) or ``"legacy"`` (docmunch 0.1's AND-then-OR FTS5 BM25).

    Raises:
        RepoNotFound: ``repo`` is not indexed. UnknownVersion: NAME is, that version is not.
        DocumentNotFound: ``doc_path`` is not a document of the searched repos.
        ValueError: unknown ``ranking`` (programmer error).
    """
    query = query_text(query)
    doc_path = None if doc_path is None else unicode_text(doc_path)
    path_glob = None if path_glob is None else unicode_text(path_glob)
    if doc_path is not None:
        require_document(store, repo, doc_path)
    limit = max(1, min(int(limit), MAX_HITS))
    if ranking == "legacy":
        return legacy_search(
            store, query, repo=repo, limit=limit, doc_path=doc_path, path_glob=path_glob,
            min_level=min_level, max_level=max_level, snippet_bytes=snippet_bytes,
        )
    if ranking != "question":
        raise ValueError(f"unknown ranking {ranking!r}; expected one of {RANKINGS}")
    scope = store.repo_scope(repo)
    if scope is not None:
        repo_ids = [row.id for row in scope]
    else:
        repo_ids = [row[0] for row in store.conn.execute("SELECT id FROM repos ORDER BY id")]
    ranker = Ranker(store.conn, query, repo_ids, store.term_stats)
    operators = symbols(query) if ranker.empty else []  # ``..=``, ``?``: no word, only code
    if ranker.empty and not operators:
        return []
    filters: list[str] = []
    args: list[Any] = []
    if doc_path is not None:
        filters.append("d.doc_path = ?")
        args.append(doc_path)
    if path_glob:
        filters.append("dm_regexp(?, d.doc_path)")
        args.append(fnmatch.translate(path_glob))
    if min_level is not None:
        filters.append("s.level >= ?")
        args.append(int(min_level))
    if max_level is not None:
        filters.append("s.level <= ?")
        args.append(int(max_level))
    where = "".join(f" AND {f}" for f in filters)

    # titles are matched as the repos write their names (``statefulset``: ``StatefulSets``)
    context = _Context(store, ranker, where, args, truecased(store.conn, repo_ids, query))
    if operators:  # a query of operators only: the sections titled with them
        scored = context.symbol_titles(operators)
    else:
        keys = _title_keys(query)
        if context.corrected_query is not None:  # ``WHvCreatPartition``: the page so titled
            keys = tuple(dict.fromkeys((*keys, *_title_keys(context.corrected_query))))
        scored = context.ranked(limit, keys)
        if scored and ranker.feedback([row[0] for _, row in scored[:FEEDBACK_SECTIONS]]):
            scored = context.ranked(limit, keys)
        scored = context.proximity(scored)
        wanted = identifiers(query)
        if wanted:
            scored = context.identifier_boost(scored, wanted)
    hits: list[SearchHit] = []
    for value, row in scored[:limit]:
        _, sid, name, path, title, level, summary, start, end, raw_hash = row[:10]
        snippet = None
        if snippet_bytes > 0:
            snippet = read_snippet(store, raw_hash, start, end, snippet_bytes)
        hits.append(SearchHit(name, sid, title, level, path, round(value, 4), summary, start, end, snippet))
    return hits


def _variant_keys(key: str | None) -> tuple[str, ...]:
    """Title keys made from the query's ``key`` by replacing one of its terms with one of its
    variants (:func:`~docmunch.index.synonyms.variants`), sorted as :func:`title_key` sorts;
    ``()`` for a query of more than :data:`VARIANT_TITLE_TERMS` terms."""
    if not key:
        return ()
    asked = key.split(" ")
    if len(asked) > VARIANT_TITLE_TERMS:
        return ()
    found: dict[str, None] = {}
    for term in asked:
        rest = [t for t in asked if t != term]
        for other in variants(term):
            if other not in rest:
                found[" ".join(sorted([*rest, other]))] = None
    found.pop(key, None)
    return tuple(found)


def _best_first(scores: Any) -> Any:
    """Index arrays of ``scores`` in chunks of :data:`CANDIDATES`, best first (the first chunk
    by a partial sort; the rest sorted only when filters make it needed)."""
    n = scores.size
    if n <= CANDIDATES:
        yield np.argsort(-scores, kind="stable")
        return
    first = np.argpartition(-scores, CANDIDATES - 1)[:CANDIDATES]
    yield first[np.argsort(-scores[first], kind="stable")]
    rest = np.ones(n, dtype=bool)
    rest[first] = False
    others = np.flatnonzero(rest)
    others = others[np.argsort(-scores[others], kind="stable")]
    for start in range(0, others.size, CANDIDATES):
        yield others[start : start + CANDIDATES]


class _Context:
    """Rows and section texts read for one query (shared by its passes and re-rankings)."""

    def __init__(self, store: Store, ranker: Ranker, where: str, args: list[Any], query: str) -> None:
        self.store, self.ranker, self.where, self.args = store, ranker, where, args
        self.query_words = title_words(query)
        """The query's :func:`~docmunch.index.analyze.title_words` (:data:`TITLE_TERMS_BOOST`)."""
        self.query_key = title_key(query) or None
        """The query's :func:`~docmunch.index.analyze.title_key` (:data:`TITLE_TERMS_BOOST`);
        ``None`` when it has no terms (``中``, a function word searched as a character), which
        no title matches."""
        self.variant_keys = _variant_keys(self.query_key)
        """Title keys of the query with one term replaced by a variant, or with its mistyped
        words corrected (:data:`VARIANT_TITLE_BOOST`)."""
        self.corrected_query: str | None = None
        """The query with its mistyped words corrected (:mod:`.spelling`), when some were: its
        title key counts as a variant's, its exact titles as the query's own."""
        if ranker.corrections:
            self.corrected_query = corrected_text(store.conn, ranker.repo_ids, query, ranker.corrections)
            spelled = title_key(self.corrected_query)
            if spelled and spelled != self.query_key and spelled not in self.variant_keys:
                self.variant_keys = (*self.variant_keys, spelled)
        self.query_cjk = is_cjk(query)
        """The query holds a CJK character (:data:`LANGUAGE_MISMATCH`)."""
        self._named: dict[int, bool] = {}
        """Section id → :meth:`_named_like_query`."""
        self._common: dict[int, frozenset[str]] | None = None
        """:meth:`_common_words`, once read."""
        self._words: dict[int, bool] = {}
        """Section id → :meth:`_same_words` (both passes ask)."""
        self._cjk: dict[int, bool] = {}
        """Section id → its title or summary holds a CJK character (both passes ask)."""
        self.rows: dict[int, Row | None] = {}
        """Section id → row, ``None`` when the filters drop it."""
        self.texts: dict[int, str] = {}
        self._title_ids: Any = None
        """Ids of the sections titled like the query (ascending numpy array), once read."""
        self._exact: Any = None
        """Per id of ``_title_ids``: titled exactly like the query (not only by its terms)."""
        self._title_repos: Any = None
        """Per id of ``_title_ids``: its repo id (:data:`TITLED_CANDIDATES` is per repo)."""
        self.exact_titled = False
        """A scored section of the searched repos is titled exactly like the query (then no
        :data:`DEFINING_PAGE_BOOST`)."""

    def _fetch(self, ids: list[int]) -> None:
        missing = [i for i in ids if i not in self.rows]
        if not missing:
            return
        sql = _ROW_SQL.format(ids=",".join("?" * len(missing))) + self.where
        self.rows.update(dict.fromkeys(missing))
        for row in self.store.conn.execute(sql, (*missing, *self.args)).fetchall():
            self.rows[row[0]] = row

    def text(self, row: Row) -> str:
        """The section's bytes as text (raw cache, read once per query)."""
        text = self.texts.get(row[0])
        if text is None:
            text = self.store.raw.read_range(row[9], row[7], row[8]).decode("utf-8", errors="replace")
            self.texts[row[0]] = text
        return text

    def _same_words(self, row: Row) -> bool:
        """The row's title has the query's :func:`~docmunch.index.analyze.title_words` (its
        title key is already known to be the query's): ``Scheduler``, not ``Scheduling``,
        for ``what is the scheduler``."""
        same = self._words.get(row[0])
        if same is None:
            same = self._words[row[0]] = title_words(row[4]) == self.query_words
        return same

    def _named_like_query(self, row: Row) -> bool:
        """The row is a page's own title made of the query's words and one of its repo's
        common words (:data:`COMMON_TITLE_WORDS`): ``Kubernetes Scheduler`` for ``what is the
        scheduler``."""
        key, asked_key = row[13], self.query_key
        if not COMMON_TITLE_WORDS or not key or asked_key is None or len(key) <= len(asked_key):
            return False
        if row[5] > 1 or row[4] != row[14]:  # a page's own title only
            return False
        named = self._named.get(row[0])
        if named is None:
            title_terms = set(key.split(" "))
            asked = set(asked_key.split(" "))
            extra = title_terms - asked
            named = len(extra) == 1 and asked <= title_terms
            if named:  # the same words (not only stems) besides the common one
                words = set(title_words(row[4]).split(" "))
                wanted = set(self.query_words.split(" "))
                named = wanted <= words and {stem(w) for w in words - wanted} == extra
            named = named and extra <= self._common_words().get(int(row[12]), frozenset())
            self._named[row[0]] = named
        return named

    def _common_words(self) -> dict[int, frozenset[str]]:
        """Repo id → its ``common_terms`` (:data:`COMMON_TITLE_WORDS`), for the searched repos."""
        if self._common is None:
            marks = ",".join("?" * len(self.ranker.repo_ids))
            sql = f"SELECT repo_id, term FROM common_terms WHERE repo_id IN ({marks})"
            found: dict[int, set[str]] = {}
            for repo_id, term in self.store.conn.execute(sql, self.ranker.repo_ids):
                found.setdefault(int(repo_id), set()).add(term)
            self._common = {repo_id: frozenset(terms) for repo_id, terms in found.items()}
        return self._common

    def _named_keys(self) -> list[str]:
        """The title keys of "the query's words and one common word" (``kubernet schedul``)."""
        if self.query_key is None or not COMMON_TITLE_WORDS:
            return []
        asked = set(self.query_key.split(" "))
        extra = set().union(*self._common_words().values()) - asked
        return [" ".join(sorted(asked | {term})) for term in sorted(extra)]

    def _titled(self, keys: tuple[str, ...], ids: Any, scores: Any) -> list[tuple[int, float]]:
        """``[(section id, own score)]`` of the candidates titled like the query (exactly or by
        their terms)."""
        if self._title_ids is None:
            marks = ",".join("?" * len(keys))
            exact = f"title_fold IN ({marks})"
            named = self._named_keys()
            pages = f" OR (level <= 1 AND title_key IN ({','.join('?' * len(named))}))" if named else ""
            varied = self.variant_keys
            others = f" OR title_key IN ({','.join('?' * len(varied))})" if varied else ""
            sql = (
                f"SELECT s.id, {exact}, d.repo_id FROM sections s JOIN docs d ON d.id = s.doc_id "
                f"WHERE {exact} OR title_key = ?{pages}{others}"
            )
            args = (*keys, *keys, self.query_key, *named, *varied)
            rows = sorted(self.store.conn.execute(sql, args).fetchall())
            self._title_ids = np.asarray([row[0] for row in rows], dtype=np.int64)
            self._exact = np.asarray([bool(row[1]) for row in rows], dtype=bool)
            self._title_repos = np.asarray([row[2] for row in rows], dtype=np.int64)
        if not self._title_ids.size or not ids.size:
            return []
        # ids ascend (Ranker.section_scores): a binary search per titled section, not a pass
        # over every scored section (k8s-en × 10 scores ~100k sections for a common word)
        pos = np.minimum(np.searchsorted(ids, self._title_ids), ids.size - 1)
        found = ids[pos] == self._title_ids
        at = pos[found]
        self.exact_titled = bool(self._exact[found].any())
        if at.size > TITLED_CANDIDATES:  # a common title ("Examples"): its best sections per repo
            repos = self._title_repos[found]
            order = np.argsort(-scores[at], kind="stable")
            kept = [
                order[repos[order] == repo][:TITLED_CANDIDATES] for repo in np.unique(repos).tolist()
            ]
            at = at[np.sort(np.concatenate(kept))]
        return list(zip(ids[at].tolist(), scores[at].tolist(), strict=True))

    def ranked(self, limit: int, keys: tuple[str, ...]) -> list[tuple[float, Row]]:
        """The best candidates with their rows: (section score + document share + title boost)
        × language match."""
        ids, scores = self.ranker.section_scores()
        if not ids.size:
            return []
        doc_ids, doc_scores = self.ranker.document_scores()
        scored: list[tuple[float, Row]] = []
        titled = self._titled(keys, ids, scores)
        for start, part in enumerate(_best_first(scores)):
            chunk = ids[part].tolist()
            pairs = list(zip(chunk, scores[part].tolist(), strict=True))
            if not start:  # sections titled like the query always compete (exact-title boost)
                seen = set(chunk)
                pairs.extend(p for p in titled if p[0] not in seen)
            self._fetch([sid for sid, _ in pairs])
            rows = [(own, row) for sid, own in pairs if (row := self.rows[sid]) is not None]
            if not rows:
                continue
            wanted = np.asarray([row[11] for _, row in rows], dtype=np.int64)
            at = np.minimum(np.searchsorted(doc_ids, wanted), max(doc_ids.size - 1, 0))
            found = doc_ids[at] == wanted if doc_ids.size else np.zeros(wanted.size, bool)
            shares = np.where(found, doc_scores[at] if doc_ids.size else 0.0, 0.0).tolist()
            for (own, row), share in zip(rows, shares, strict=True):
                value = own + DOCUMENT_WEIGHT * share
                if row[10] in keys:
                    value += EXACT_TITLE_BOOST
                elif (row[13] == self.query_key and self._same_words(row)) or self._named_like_query(row):
                    value += TITLE_TERMS_BOOST
                    if row[5] <= 1 and row[4] == row[14] and not self.exact_titled:  # the page's title
                        value += DEFINING_PAGE_BOOST
                elif row[13] in self.variant_keys:
                    value += VARIANT_TITLE_BOOST
                cjk = self._cjk.get(row[0])
                if cjk is None:
                    cjk = self._cjk[row[0]] = is_cjk(row[4]) or is_cjk(row[6])
                if cjk != self.query_cjk:
                    value *= LANGUAGE_MISMATCH
                scored.append((value, row))
            if len(scored) >= max(limit, FEEDBACK_SECTIONS):
                break
        scored.sort(key=lambda item: (-item[0], item[1][1]))
        return scored

    def proximity(self, scored: list[tuple[float, Row]]) -> list[tuple[float, Row]]:
        """Re-sort the best :data:`PROXIMITY_CHECKS` after adding their proximity bonus."""
        if len(self.ranker.sequence) < 2 or not scored:
            return scored
        head = scored[:PROXIMITY_CHECKS]
        scorer = Proximity(self.ranker.sequence, self.ranker.weights)
        boosted: list[tuple[float, Row]] = []
        for value, row in head:
            boosted.append((value + scorer.bonus(row[4], self.text(row), level=row[5]), row))
        boosted.sort(key=lambda item: (-item[0], item[1][1]))
        return boosted + scored[PROXIMITY_CHECKS:]

    def symbol_titles(self, wanted: list[str]) -> list[tuple[float, Row]]:
        """The sections whose titles hold the query's operators ``wanted``
        (:func:`~docmunch.index.identifiers.symbols`) as whole tokens, scored
        :data:`~docmunch.index.identifiers.SYMBOL_TITLE_BOOST` × the share of them held, then the
        shallowest and shortest titles first (a query of operators only has no term to rank by)."""
        repos = ",".join("?" * len(self.ranker.repo_ids))
        tests = " OR ".join(["instr(' ' || s.title_fold || ' ', ?)"] * len(wanted))
        sql = (
            "SELECT s.id FROM sections s JOIN docs d ON d.id = s.doc_id "
            f"WHERE d.repo_id IN ({repos}) AND ({tests})"
        )
        args = (*self.ranker.repo_ids, *(f" {symbol.casefold()} " for symbol in wanted))
        ids = [row[0] for row in self.store.conn.execute(sql, args)]
        self._fetch(ids)
        scored: list[tuple[float, Row]] = []
        for sid in ids:
            row = self.rows[sid]
            if row is not None:
                found = sum(1 for symbol in wanted if title_has_symbol(row[4], symbol))
                if found:
                    scored.append((SYMBOL_TITLE_BOOST * found / len(wanted), row))
        scored.sort(key=lambda item: (-item[0], item[1][5], len(item[1][4]), item[1][1]))
        return scored

    def identifier_boost(self, scored: list[tuple[float, Row]], wanted: list[str]) -> list[tuple[float, Row]]:
        """Re-sort the best :data:`IDENTIFIER_CHECKS` after adding :data:`IDENTIFIER_BOOST`."""
        head = scored[:IDENTIFIER_CHECKS]
        texts = [self.text(row).casefold() for _, row in head]
        weights = identifier_weights(wanted, texts)
        boosted: list[tuple[float, Row]] = []
        for (value, row), data in zip(head, texts, strict=True):
            found = sum(weights[ident] for ident in wanted if ident in data)
            boosted.append((value + IDENTIFIER_BOOST * found / len(wanted), row))
        boosted.sort(key=lambda item: (-item[0], item[1][1]))
        return boosted + scored[IDENTIFIER_CHECKS:]
