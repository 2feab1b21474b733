"""Why a search found nothing: one short, structured reason.

A search that returns no section is not an error (a query of stop words is a legitimate
string), but "nothing" alone does not tell an agent or a person what to change. When
:func:`docmunch.index.search.search` returns no hit, :func:`explain_empty` says which of
these happened, checked in this order:

* ``nothing_indexed`` — no repo is indexed at all;
* ``no_words`` — the query has no word (punctuation, symbols, emoji), and no section title
  holds its operators (:func:`~docmunch.index.identifiers.symbols`: ``=>``);
* ``stop_words`` — every word is a stop or question word (``how do I``, ``是什么``), which
  search ignores (:mod:`docmunch.index.stopwords`);
* ``unknown_words`` — no content word, stem, variant or CJK sub-word of the query occurs in
  the searched repos, or its only words that are no stop words are longer than
  :data:`~docmunch.index.analyze.MAX_TERM_CHARS`, which are never indexed;
* ``filtered`` — the words match sections, but none passes ``doc_path`` / ``path_glob`` /
  the level range.

A search that did find sections may still have words that occur nowhere in the searched repos
(``roll back zebra unicorn``): the score counts only the words a repo knows, so such a result
can look as confident as a good one. :func:`unmatched_words` names them, so that an agent can
tell it asked the wrong repo or used words the docs do not (MCP ``unmatched_words``, CLI
``--json`` the same and otherwise one note on stderr). A mistyped word among them was searched
as the repos' nearest word (:mod:`docmunch.index.spelling`); :func:`corrected_words` names
each correction (MCP and ``--json`` ``corrected_words``, the CLI's note).

An unknown repo, version or ``doc_path`` is not an empty result: those raise
(:class:`~docmunch.errors.RepoNotFound`, :class:`~docmunch.errors.UnknownVersion`,
:class:`~docmunch.errors.DocumentNotFound`). The CLI prints the message as one line on stderr;
the MCP tool returns :meth:`EmptyReason.to_json` as the result's ``no_results`` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docmunch.index.analyze import (
    CHAR_PREFIX,
    MAX_TERM_CHARS,
    TOKEN_PATTERN,
    WORD_PATTERN,
    cjk_words,
    content_words,
    is_cjk,
    terms,
    too_long_words,
)
from docmunch.index.identifiers import symbols
from docmunch.index.querytext import query_text
from docmunch.index.rank import PASTED_TEXT_TERMS, Ranker, query_weights
from docmunch.index.spelling import correctable, corrections, surface_word
from docmunch.index.store import Store
from docmunch.index.synonyms import variants

__all__ = [
    "MAX_REASON_WORDS",
    "REASONS",
    "EmptyReason",
    "corrected_words",
    "explain_empty",
    "unmatched_words",
]

REASONS = ("nothing_indexed", "no_words", "stop_words", "unknown_words", "filtered")
"""Every :attr:`EmptyReason.code`, in the order they are checked."""
MAX_REASON_WORDS = 8
"""Query words named in a reason at most (the message stays one short line)."""
_MAX_QUERY_CHARS = 60
"""Characters of the query quoted in a message at most."""
_MAX_WORD_CHARS = 24
"""Characters of a word longer than MAX_TERM_CHARS kept in a reason, its ``…`` included
(message and ``words``: a pasted hash or base64 blob is not echoed whole)."""


@dataclass(frozen=True, slots=True)
class EmptyReason:
    """Why a search returned no section."""

    code: str
    """One of :data:`REASONS`."""
    message: str
    """One line for a person or an agent, saying what to change."""
    words: tuple[str, ...] = ()
    """For ``unknown_words`` and ``filtered``: the query's content words as written (at most
    :data:`MAX_REASON_WORDS`; a word longer than MAX_TERM_CHARS is cut to its first
    ``_MAX_WORD_CHARS − 1`` characters and ``…``)."""

    def to_json(self) -> dict[str, Any]:
        """``{"reason": code, "message": …, "words": [...]}`` (``words`` only when there are any)."""
        out: dict[str, Any] = {"reason": self.code, "message": self.message}
        if self.words:
            out["words"] = list(self.words)
        return out


def _cut(word: str) -> str:
    """``word``, or its first ``_MAX_WORD_CHARS − 1`` characters and ``…`` when it is longer."""
    return word if len(word) <= _MAX_WORD_CHARS else word[: _MAX_WORD_CHARS - 1] + "…"


def _quoted(query: str) -> str:
    text = " ".join(query.split())
    if len(text) > _MAX_QUERY_CHARS:
        text = text[: _MAX_QUERY_CHARS - 1] + "…"
    return repr(text)


def _repo_ids(store: Store, repo: str | None) -> list[int]:
    """Ids of the repos a search over ``repo`` covers (every repo for ``None``)."""
    scope = store.repo_scope(repo)
    if scope is not None:
        return [row.id for row in scope]
    return [row[0] for row in store.conn.execute("SELECT id FROM repos ORDER BY id")]


def _word_terms(word: str) -> set[str]:
    """Every term one query word can match through (:class:`~docmunch.index.rank.Ranker`'s
    rules): its own terms and their general variants; for a CJK word also its dictionary
    sub-words and its characters (the fallbacks of an unknown CJK word)."""
    found = set(terms(word, query=True))
    for term in list(found):
        found.update(variants(term))
    if is_cjk(word):
        found.update(cjk_words(word))
        found.update(CHAR_PREFIX + ch for ch in word if is_cjk(ch))
    return found


def unmatched_words(store: Store, query: str, *, repo: str | None = None) -> tuple[str, ...]:
    """The query's content words (:func:`~docmunch.index.analyze.content_words`, as written —
    at most :data:`~docmunch.index.analyze.MAX_TERM_CHARS` characters each, longer ones are not
    content words —, at most :data:`MAX_REASON_WORDS` of them) that match nothing
    in the searched repos: none of their terms, general variants or, for CJK, sub-words and
    characters occurs there. ``()`` when every word matches something.

    Raises:
        RepoNotFound, UnknownVersion: ``repo`` is not indexed (as the search itself).
    """
    repo_ids = _repo_ids(store, repo)
    query = query_text(query)  # as the search analyses it (full-width forms folded)
    words = {word: _word_terms(word) for word in content_words(query)}
    wanted = sorted(set().union(*words.values())) if words else []
    if not repo_ids or not wanted:
        return ()
    known: set[str] = set()
    repos = ",".join("?" * len(repo_ids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT DISTINCT term FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks})"
        known.update(row[0] for row in store.conn.execute(sql, (*repo_ids, *chunk)))
    missing = [word for word, found in words.items() if not found & known]
    return tuple(missing[:MAX_REASON_WORDS])


def corrected_words(store: Store, query: str, *, repo: str | None = None) -> dict[str, str]:
    """``{word as written: the word searched in its place}`` for the query's mistyped words
    that the ranking corrected (:mod:`docmunch.index.spelling`: ``drian`` → ``drain``), at most
    :data:`MAX_REASON_WORDS`, in query order; ``{}`` when none was.

    Raises:
        RepoNotFound, UnknownVersion: ``repo`` is not indexed (as the search itself).
    """
    repo_ids = _repo_ids(store, repo)
    query = query_text(query)
    if not repo_ids or not correctable(query):  # the cheap test first: no ASCII word, no work
        return {}
    wanted = sorted(query_weights(query))
    if len(wanted) > PASTED_TEXT_TERMS:
        return {}  # pasted text (a log) is not corrected (Ranker)
    repos = ",".join("?" * len(repo_ids))
    marks = ",".join("?" * len(wanted))
    known = {row[0] for row in store.conn.execute(
        f"SELECT DISTINCT term FROM terms WHERE repo_id IN ({repos}) AND term IN ({marks})",
        (*repo_ids, *wanted),
    )}  # fmt: skip
    fixes = corrections(store.conn, repo_ids, query, known)
    out: dict[str, str] = {}
    for word in content_words(query):
        found = terms(word, query=True)
        if found and found[0] in fixes and word not in out:
            out[word] = surface_word(store.conn, repo_ids, fixes[found[0]], typed=word)
    return dict(list(out.items())[:MAX_REASON_WORDS])


def explain_empty(
    store: Store,
    query: str,
    *,
    repo: str | None = None,
    doc_path: str | None = None,
    path_glob: str | None = None,
    min_level: int | None = None,
    max_level: int | None = None,
) -> EmptyReason:
    """The reason a search with these arguments (as :func:`docmunch.index.search.search`'s)
    found nothing; call it only after an empty result.

    Raises:
        RepoNotFound, UnknownVersion: ``repo`` is not indexed (as the search itself).
    """
    repo_ids = _repo_ids(store, repo)
    query = query_text(query)
    where = f"repo {repo!r}" if repo is not None else "any repo"
    if not repo_ids:
        return EmptyReason(
            "nothing_indexed",
            "no repo is indexed yet; index one first (docmunch index SOURCE; MCP: index_local, "
            "index_url, index_repo)",
        )
    if not query_weights(query):
        if WORD_PATTERN.search(query) is None and not is_cjk(query):
            held = " and no section title holds it" if symbols(query) else ""
            return EmptyReason("no_words", f"the query {_quoted(query)} has no word to search for{held}")
        long = tuple(_cut(word) for word in too_long_words(query)[:MAX_REASON_WORDS])
        if long:  # no stop words: words the index leaves out for their length
            return EmptyReason(
                "unknown_words",
                f"no word of the query can occur in {where}: {', '.join(long)} "
                f"{'is' if len(long) == 1 else 'are'} longer than {MAX_TERM_CHARS} characters, "
                "which are not indexed; search for a shorter part",
                long,
            )
        ignored = list(dict.fromkeys(TOKEN_PATTERN.findall(query)))  # words and CJK runs, as written
        shown = ", ".join(ignored[:MAX_REASON_WORDS]) + (", …" if len(ignored) > MAX_REASON_WORDS else "")
        single = [w for w in ignored if len(w) == 1 and w.isascii() and w.isalpha() and w not in "aAI"]
        letters = f" (a single letter too: {single[0]}, as in <{single[0]}>)" if single else ""
        return EmptyReason(
            "stop_words",
            f"every word of {_quoted(query)} ({shown}) is a stop or question word, which search "
            f"ignores{letters}; add a word naming the topic",
        )
    words = tuple(content_words(query)[:MAX_REASON_WORDS])
    given: dict[str, object] = {"doc_path": doc_path, "path_glob": path_glob or None}
    given |= {"min_level": min_level, "max_level": max_level}
    filters = [name for name, value in given.items() if value is not None]
    if Ranker(store.conn, query, repo_ids).empty or not filters:
        named = ", ".join(words) if words else _quoted(query)
        return EmptyReason(
            "unknown_words",
            f"no word of the query occurs in {where} ({named}); try other words, or another repo",
            words,
        )
    scope = f"repo {repo!r}" if repo is not None else "the indexed repos"
    shown = ", ".join(f"{name} {given[name]!r}" for name in filters)
    return EmptyReason(
        "filtered",
        f"the query matches sections of {scope}, but none passes the filters ({shown})",
        words,
    )
