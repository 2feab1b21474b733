"""Truecasing of camelCase names typed in lower case (``statefulset`` → ``StatefulSet``).

Docs name API kinds and types in camelCase (``StatefulSet``, ``ConfigMap``, ``DaemonSet``), and
the analyser indexes such a word as its whole form and its parts
(:func:`~docmunch.index.analyze.word_terms`); a section title's key counts its parts only
(:func:`~docmunch.index.analyze.title_key`), so ``what is a StatefulSet`` meets the page
titled ``StatefulSets``. Typed in lower case, as agents and people often type, the same
question had no parts: it missed the title boosts and the concept page fell out of the top 20
behind tutorials that say ``statefulset`` often (a new user's trial, ``docs/search.md`` round 16).

A query word is written as the repos write it when all of these hold (restoring the case
of a word from the text that uses it is *truecasing*: Lita, Ittycheriah, Roukos & Kambhatla,
"tRuEcasIng", ACL 2003):

- it is a word of lower-case ASCII letters, at least :data:`MIN_CHARS` long;
- its term, and the terms of the two halves of at least one split of it into parts of at
  least :data:`MIN_PART_CHARS` letters, are all held by the searched repos (``stateful`` +
  ``set``) — a cheap test that leaves most words (``deployment``, ``container``) without a
  further lookup;
- the word the repos' titles and summaries use for its term
  (:func:`~docmunch.index.spelling.surface_word`) is camelCase and the same word up to a
  plural ending (``StatefulSet``, ``StatefulSets``); ``namespace`` (``name`` + ``space``)
  stays as typed, since the docs write it in one word.

Only the title boosts see the truecased query (:mod:`docmunch.index.search`); its terms are
matched as typed: searched whole, the truecased query (its camelCase parts as extra terms)
moved ranks of the lower-cased dev, validation and keyword queries both ways (MRR@10 0.784 →
0.772), where for titles alone it moved none. At most :data:`MAX_WORDS` words of a query of at
most :data:`MAX_QUERY_TERMS` terms are looked up (a lookup reads the term's postings and 20
titles: about 1 ms; a longer query equals no title's terms anyway).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docmunch.index.analyze import WORD_PATTERN, singular, stem, terms
from docmunch.index.spelling import surface_word

__all__ = ["MAX_QUERY_TERMS", "MAX_WORDS", "MIN_CHARS", "MIN_PART_CHARS", "truecased"]

MIN_CHARS = 6
"""Shortest lower-case word that is looked up."""
MIN_PART_CHARS = 3
"""Shortest part of a split (``Set`` of ``DaemonSet``; two letters split too many words)."""
MAX_WORDS = 4
"""Most words of one query that are looked up."""
MAX_QUERY_TERMS = 8
"""A query of more distinct terms is not truecased (no section title has as many)."""


def _camel(word: str) -> bool:
    return word.isascii() and word.isalpha() and not word.islower() and not word.isupper() and any(
        ch.isupper() for ch in word[1:]
    )


def truecased(conn: sqlite3.Connection, repo_ids: Sequence[int], query: str) -> str:
    """``query`` with each lower-case word that the repos write in camelCase written so
    (module doc); ``query`` itself when none is.

    Args:
        conn: an open connection to the index.
        repo_ids: the searched repos.
        query: the query as :func:`~docmunch.index.querytext.query_text` left it.
    """
    words = [
        w for w in dict.fromkeys(WORD_PATTERN.findall(query))
        if len(w) >= MIN_CHARS and w.isascii() and w.isalpha() and w.islower()
    ][:MAX_WORDS]  # fmt: skip
    if not words or not repo_ids or len(set(terms(query, query=True))) > MAX_QUERY_TERMS:
        return query
    splits = {
        w: [(stem(w[:i]), stem(w[i:])) for i in range(MIN_PART_CHARS, len(w) - MIN_PART_CHARS + 1)]
        for w in words
    }
    wanted = {stem(w) for w in words} | {t for pairs in splits.values() for pair in pairs for t in pair}
    repos = ",".join("?" * len(repo_ids))
    marks = ",".join("?" * len(wanted))
    known = {row[0] for row in conn.execute(
        f"SELECT DISTINCT term FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks})",
        (*repo_ids, *sorted(wanted)),
    )}  # fmt: skip
    found: dict[str, str] = {}
    for w in words:
        if stem(w) not in known or not any(a in known and b in known for a, b in splits[w]):
            continue
        written = surface_word(conn, repo_ids, stem(w), typed=w)
        if _camel(written) and singular(written) == singular(w):
            found[w] = written
    if not found:
        return query
    return WORD_PATTERN.sub(lambda m: found.get(m.group(), m.group()), query)
