"""Spelling correction of query words that no searched repo holds (``drian`` → ``drain``).

A mistyped word matched nothing and silently dropped out of the ranking (``how do I drian a
node`` ranked by ``node`` alone; ``lifetmes elison`` found nothing). A query word is corrected
when all of these hold:

- it is a word of ASCII letters whose term (its stem; for a camelCase word, the stem of its
  whole form) has at least :data:`MIN_CHARS` characters — not an identifier joined by ``-``,
  ``_``, ``.``, ``/`` or ``::``, nor CJK (matched verbatim, or through sub-words and
  characters);
- none of the searched repos holds its term, and the query is typed, not pasted (at most
  :data:`~docmunch.index.rank.PASTED_TEXT_TERMS` distinct terms: a log's unknown words are
  names and ids, not typos);
- the repos hold a term it likely misspells (:func:`correct`), starting with the same
  letter: first, the stem of a word one edit from the word as typed (a letter deleted, two
  neighbours swapped, a letter replaced or inserted: Norvig's ``edits1``), because a
  misspelled word is stemmed unlike the word it misspells; else a term within
  :func:`max_edits` edits of its stem, counting a swap of two neighbouring letters as one edit
  (optimal string alignment distance, ``rapidfuzz``).

The edit budget is Elasticsearch's ``fuzziness: AUTO`` (one edit for terms of 3–5
characters, two from 6; Elasticsearch reference, *Common options: Fuzziness*), here applied to
stems and from 4 characters: three-letter words have too many neighbours (``nod``: ``node``,
``pod``, ``not``). The same first letter is the usual restriction of spelling correctors
(Lucene's ``DirectSpellChecker`` defaults to ``minPrefix`` 1): first letters are mistyped less
often, and words the docs lack are then less often "corrected" (with first-letter edits,
``vtable`` became ``table`` and ``glue`` ``blue``; ``docs/search.md`` round 15). Among the
candidates of a step the fewest edits win, then the term in the most sections: Norvig's
choice ("How to Write a Spelling Corrector", 2007: the known word of least edit distance, then
of greatest frequency). Breaking ties by the query's other words instead (their
co-occurrence with each candidate) was measured and not kept (``docs/search.md`` round 15).

The correction joins the query at :data:`CORRECTION_WEIGHT` of the word's weight
(:class:`~docmunch.index.rank.Ranker`), and search answers name it
(:func:`docmunch.index.empty.corrected_words`: MCP ``corrected_words``, the CLI's note).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Mapping, Sequence

from rapidfuzz.distance import OSA

from docmunch.index.analyze import WORD_PATTERN, word_terms
from docmunch.index.postings import read_postings, unpack_postings

__all__ = [
    "CORRECTION_WEIGHT",
    "MAX_ATTEMPTS",
    "MIN_CHARS",
    "correct",
    "correctable",
    "corrected_text",
    "corrections",
    "max_edits",
    "surface_word",
]

MIN_CHARS = 4
"""Shortest term (characters of the stem) that is corrected."""
CORRECTION_WEIGHT = 0.7
"""Weight of a corrected term, relative to the word it replaces (a guess weighs less than what
was typed; ``docs/search.md`` round 15 has the measurements)."""
MAX_ATTEMPTS = 3
"""Unknown words of one query that are looked up for a correction at most (each lookup takes
5-20 ms; a pasted log can hold hundreds of words no repo knows)."""
SURFACE_SECTIONS = 20
"""Sections (those where the term weighs most) whose titles and summaries are searched for a
word that spells the corrected term, to show the user a word rather than a stem."""


def max_edits(term: str) -> int:
    """Edits allowed to correct ``term``: 0 below :data:`MIN_CHARS` characters, 1 up to 5, 2
    from 6 (Elasticsearch's ``AUTO``)."""
    if len(term) < MIN_CHARS:
        return 0
    return 1 if len(term) < 6 else 2


def correctable(query: str) -> dict[str, str]:
    """``{term: word}`` of the words of ``query`` that may be corrected, in query order: its
    ASCII words of letters (casefolded), whose term — their stem; for a camelCase word
    (``WHvCreatePartition``) the stem of its whole form, which is indexed beside its parts — has
    at least :data:`MIN_CHARS` characters (see the module doc); a term met twice keeps its
    first word."""
    out: dict[str, str] = {}
    for word in WORD_PATTERN.findall(query):
        found = word_terms(word)  # a camelCase word: its whole form first, then its parts
        if found and found[0].isascii() and found[0].isalpha() and max_edits(found[0]):
            out.setdefault(found[0], word.casefold())
    return out


def _one_edit(word: str) -> set[str]:
    """Every string one edit from ``word`` that keeps its first letter: a letter deleted, two
    neighbours swapped, a letter replaced or inserted (a–z), as Norvig's ``edits1`` (which
    also edits the first letter: ``54n + 25`` strings at most)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: set[str] = set()
    for i in range(1, len(word) + 1):
        left, right = word[:i], word[i:]
        if right:
            out.add(left + right[1:])
            out.update(left + c + right[1:] for c in letters)
        if len(right) > 1:
            out.add(left + right[1] + right[0] + right[2:])
        out.update(left + c + right for c in letters)
    out.discard(word)
    return out


def correct(conn: sqlite3.Connection, repo_ids: Sequence[int], term: str, word: str) -> str | None:
    """The term of the repos ``repo_ids`` that the query word ``word`` (casefolded; its term
    ``term``) most likely misspells, or ``None``.

    Candidates, in two steps (the first that finds any decides):

    1. the terms of the words one edit from ``word`` (:func:`_one_edit`, the first letter
       kept) that the repos hold, looked up by value: the edit is made on the word as typed
       and the result stemmed, because a misspelled word is stemmed differently from the word
       it misspells (``operaeor`` keeps its ending, ``operator`` is indexed as ``oper``).
       Of several, those whose length is within :func:`max_edits` of the typed term's or of
       the typed word's are kept when there are any: ``statefulst`` is one edit from
       ``statefulset`` and from ``statefuls``, which Snowball stems to ``state``, a commoner
       term five letters shorter than both (``containexd`` → ``contain``, ``kubeedm`` →
       ``kube`` alike; ``docs/search.md`` round 16);
    2. the repos' terms of ASCII letters that start with ``term``'s first letter and lie
       within :func:`max_edits` edits of ``term`` (optimal string alignment distance), the
       fewest edits first.

    A word one edit from a stop or question word (``betwen``, ``thier``) is that word mistyped:
    ``None`` (stop words are not searched). Ties go to the term in the most sections (summed
    over the repos), then alphabetical order.
    ``term`` itself is never returned (call this for terms the repos do not hold).
    """
    budget = max_edits(term)
    if not budget or not repo_ids:
        return None
    repos = ",".join("?" * len(repo_ids))
    edits = _one_edit(word)
    if any(not word_terms(edited) for edited in edits):
        return None  # one edit from a stop word ("betwen", "thier"): a stop word mistyped
    edited_terms = sorted({t for edited in edits for t in word_terms(edited)} - {term})
    tied: list[str] = []
    for start in range(0, len(edited_terms), 500):
        chunk = edited_terms[start : start + 500]
        marks = ",".join("?" * len(chunk))
        tied.extend(row[0] for row in conn.execute(
            f"SELECT DISTINCT term FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks})",
            (*repo_ids, *chunk),
        ))  # fmt: skip
    tied = sorted(set(tied))
    if len(tied) > 1:  # an edit the stemmer cut far short (``statefuls`` → ``state``): no word
        kept = [
            c for c in tied
            if abs(len(c) - len(term)) <= budget or abs(len(c) - len(word)) <= max_edits(word)
        ]
        tied = kept or tied
    if not tied:
        first = term[0]
        vocabulary = {
            row[0]
            for row in conn.execute(
                f"SELECT DISTINCT term FROM terms WHERE repo_id IN ({repos}) AND term >= ? AND term < ?",
                (*repo_ids, first, chr(ord(first) + 1)),
            )
            if row[0].isascii() and row[0].isalpha() and row[0] != term
        }
        best: dict[str, int] = {}
        for candidate in vocabulary:
            if abs(len(candidate) - len(term)) <= budget:
                distance = OSA.distance(term, candidate, score_cutoff=budget)
                if distance <= budget:
                    best[candidate] = distance
        if not best:
            return None
        fewest = min(best.values())
        tied = sorted(c for c, d in best.items() if d == fewest)
    if len(tied) == 1:
        return tied[0]
    marks = ",".join("?" * len(tied))
    counts = dict.fromkeys(tied, 0)
    for candidate, size in conn.execute(
        f"SELECT t.term, sum(length(p.sections)) FROM terms t JOIN postings p ON p.term_id = t.id "
        f"WHERE t.repo_id IN ({repos}) AND t.term IN ({marks}) GROUP BY t.term",
        (*repo_ids, *tied),
    ):
        counts[candidate] = int(size or 0)
    return max(tied, key=lambda c: counts[c])


def corrections(
    conn: sqlite3.Connection, repo_ids: Sequence[int], query: str, known: Collection[str]
) -> dict[str, str]:
    """``{term: the repos' term searched in its place}`` for the words of ``query`` that may
    be corrected (:func:`correctable`) and whose term is not in ``known`` (the query terms the
    repos hold): the first :data:`MAX_ATTEMPTS` such words are tried (:func:`correct`), in
    query order; a word without a correction is left out."""
    out: dict[str, str] = {}
    unknown = [(t, w) for t, w in correctable(query).items() if t not in known]
    for term, word in unknown[:MAX_ATTEMPTS]:
        fixed = correct(conn, repo_ids, term, word)
        if fixed is not None:
            out[term] = fixed
    return out


def corrected_text(
    conn: sqlite3.Connection, repo_ids: Sequence[int], query: str, fixes: Mapping[str, str]
) -> str:
    """``query`` with each word whose term ``fixes`` corrects replaced by the word of the
    repos that spells the correction (:func:`surface_word`): ``WHvCreatPartition`` →
    ``WHvCreatePartition``, ``drian a node`` → ``drain a node``."""
    if not fixes:
        return query
    spelled: dict[str, str] = {}

    def fixed(match: re.Match[str]) -> str:
        word = match.group()
        found = word_terms(word)
        if not found or found[0] not in fixes:
            return word
        if found[0] not in spelled:
            spelled[found[0]] = surface_word(conn, repo_ids, fixes[found[0]], typed=word)
        return spelled[found[0]]

    return WORD_PATTERN.sub(fixed, query)


def surface_word(conn: sqlite3.Connection, repo_ids: Sequence[int], term: str, *, typed: str = "") -> str:
    """A word of the indexed text whose term is ``term`` (``lifetim`` → ``lifetimes``), to
    name a correction; ``term`` itself when none is found.

    Looks in the titles, then the summaries, of the :data:`SURFACE_SECTIONS` sections of the
    repos where ``term`` has the highest impact, for words of letters whose term (a camelCase
    word's whole form) is ``term``, not an identifier holding it, and returns the one nearest
    ``typed`` (the word it corrects: ``patern`` → ``pattern`` where titles also say
    ``Patterns``), the first found on a tie; a capitalised word is shown in lower case. A
    term met only inside camelCase names is shown as that part (``balancer`` of
    ``LoadBalancer``).
    """
    repos = ",".join("?" * len(repo_ids))
    ids = [row[0] for row in conn.execute(
        f"SELECT id FROM terms WHERE repo_id IN ({repos}) AND term = ?", (*repo_ids, term)
    )]  # fmt: skip
    best: list[tuple[int, int]] = []
    for sections, _docs in read_postings(conn, ids).values():
        section_ids, impacts = unpack_postings(sections)
        best.extend(zip(impacts.tolist(), section_ids.tolist(), strict=True))
    chosen = [sid for _, sid in sorted(best, reverse=True)[:SURFACE_SECTIONS]]
    if not chosen:
        return term
    marks = ",".join("?" * len(chosen))
    rows = conn.execute(f"SELECT title, summary FROM sections WHERE id IN ({marks})", chosen).fetchall()
    for column, parts in ((0, False), (1, False), (0, True), (1, True)):
        spelled: dict[str, None] = {}
        for row in rows:
            words: list[str] = WORD_PATTERN.findall(row[column])
            if parts:  # the word is only a part of camelCase names: "Balancer" of LoadBalancer
                words = [p for w in words if w.isalpha() for p in _CAMEL_PART.findall(w)]
            for word in words:
                if word.isalpha() and word_terms(word)[:1] == (term,):
                    spelled[word.lower() if word[:1].isupper() and word[1:].islower() else word] = None
        if spelled:  # the form nearest the typed word: "patern" → "pattern", not "patterns"
            return min(spelled, key=lambda w: OSA.distance(typed.casefold(), w.casefold()))
    return term


_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+")
"""A part of a camelCase word: ``Load``, ``Balancer`` of ``LoadBalancer``."""
