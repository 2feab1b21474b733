"""A library peer for the search benchmark: Okapi BM25 as the ``bm25s`` package computes it.

``bm25s`` (Xing Han Lù, "BM25S: Orders of magnitude faster lexical search via eager sparse
scoring", 2024; MIT) is a maintained BM25 library for Python. It runs here with its defaults:
``method="lucene"`` (Lucene's BM25: IDF ``ln(1 + (N − df + 0.5) / (df + 0.5))``, term
frequency ``tf / (tf + k1 · (1 − b + b · len / avg len))``), k1 = 1.5, b = 0.75. One BM25
document per section of the docmunch index: its text as stored (heading line and body) with
HTML comments removed, which is what docmunch's body field sees. Two tokenisations:

* ``"bm25s"`` — the library's own, as its README shows it:
  ``bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"))``: lower-cased
  runs of two or more word characters, English stop words dropped, Snowball stems. A run of
  CJK characters is one token, so a Chinese sentence matches only itself.
* ``"bm25s + docmunch analyser"`` — :func:`docmunch.index.analyze.terms` for the sections and
  ``terms(query, query=True)`` for the queries (the same stems, stop words, identifiers and
  jieba words as docmunch's own ranking): the difference to docmunch is its ranking model
  alone (fields, coordination, document share, feedback, proximity, priors).

A query's terms the corpus does not hold are dropped before retrieval (``bm25s`` rejects
them); a query left with none has no results. Results with a score of 0 are not returned.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import bm25s
import Stemmer

from bench import search_eval
from docmunch.index.analyze import terms

__all__ = ["PEERS", "Bm25Peer", "quality"]

PEERS = ("bm25s", "bm25s + docmunch analyser")
"""The peer's two tokenisations, in report order (module docstring)."""
_COMMENT = re.compile(r"<!--.*?-->", re.S)


class Bm25Peer:
    """``bm25s`` models of an index's repos, built on first use.

    Args:
        index: an open :class:`docmunch.index.Index` (its sections are read once per repo).
        tokenisation: one of :data:`PEERS`.

    Raises:
        ValueError: an unknown ``tokenisation``.
    """

    def __init__(self, index: Any, tokenisation: str) -> None:
        if tokenisation not in PEERS:
            raise ValueError(f"unknown tokenisation {tokenisation!r}; one of {PEERS}")
        self.index = index
        self._stemmer = Stemmer.Stemmer("english")
        own = tokenisation == PEERS[0]
        self._tokens: Callable[[list[str], bool], list[list[str]]] = self._library if own else self._analyser
        self._models: dict[str, tuple[bm25s.BM25, list[Any], set[str]]] = {}
        self.build_s: dict[str, float] = {}
        """Wall time, in seconds, of reading, tokenising and indexing each repo's sections."""

    def _library(self, texts: list[str], query: bool) -> list[list[str]]:
        out = bm25s.tokenize(
            texts, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=False
        )
        return [list(tokens) for tokens in out]

    @staticmethod
    def _analyser(texts: list[str], query: bool) -> list[list[str]]:
        return [terms(text, query=query) for text in texts]

    def _model(self, repo: str) -> tuple[bm25s.BM25, list[Any], set[str]]:
        if repo not in self._models:
            started = time.perf_counter()
            sections = list(self.index.toc(repo))
            texts = [_COMMENT.sub(" ", self.index.get_section(repo, s.id).content) for s in sections]
            corpus = [tokens or [""] for tokens in self._tokens(texts, False)]  # bm25s needs one token
            model = bm25s.BM25()
            model.index(corpus, show_progress=False)
            self._models[repo] = (model, sections, {t for tokens in corpus for t in tokens})
            self.build_s[repo] = time.perf_counter() - started
        return self._models[repo]

    def search(self, query: str, repo: str, limit: int = 10) -> list[Any]:
        """Best sections for ``query`` in ``repo``.

        Returns:
            up to ``limit`` ``TocEntry`` objects (``id``, ``doc_path``, ``title``,
            ``byte_start``, …) of the index, best first; empty when no query term is known.
        """
        model, sections, vocabulary = self._model(repo)
        wanted = [t for t in self._tokens([query], True)[0] if t in vocabulary]
        if not wanted:
            return []
        docs, scores = model.retrieve([wanted], k=min(limit, len(sections)), show_progress=False)
        return [sections[int(i)] for i, s in zip(docs[0], scores[0], strict=True) if s > 0]


def quality(peer: Bm25Peer, sets: dict[str, list[search_eval.Labelled]]) -> dict[str, Any]:
    """``{set name: groups}`` (:func:`search_eval.score`) of ``peer`` on every query set, each
    query in its own corpus (a repo of that name in the peer's index)."""

    def run(item: search_eval.Labelled) -> list[Any]:
        return peer.search(item.query, item.corpus)

    return {name: search_eval.score(items, run)[0] for name, items in sets.items()}
