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
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import bm25s
import Stemmer

from bench import search_eval
from docmunch.index.analyze import terms

__all__ = ["PEERS", "Bm25Peer", "measure"]

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
            sections = list(self.index.toc(repo))
            texts = [_COMMENT.sub(" ", self.index.get_section(repo, s.id).content) for s in sections]
            corpus = [tokens or [""] for tokens in self._tokens(texts, False)]  # bm25s needs one token
            model = bm25s.BM25()
            model.index(corpus, show_progress=False)
            self._models[repo] = (model, sections, {t for tokens in corpus for t in tokens})
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


def measure(
    index: Any, sets: dict[str, list[search_eval.Labelled]], queries: Sequence[str], latency_repo: str
) -> dict[str, Any]:
    """Quality of both peers on every query set, and their latency on ``queries``.

    Args:
        index: the benchmark's index (every corpus the sets name, each a repo of that name).
        sets: ``{set name: labelled queries}``.
        queries: the mixed latency queries (limit 10, after 20 warm-up queries); none: no
            latency is measured.
        latency_repo: the repo they run in.

    Returns:
        ``{peer: {set name: groups (search_eval.score), "<repo>": {"p50_ms", "p95_ms",
        "index_s"}}}`` — ``index_s`` is the wall time, in seconds, of reading and tokenising
        the repo's sections and building its model.
    """
    out: dict[str, Any] = {}
    for name in PEERS:
        peer = Bm25Peer(index, name)
        started = time.perf_counter()
        peer.search("warm up", latency_repo)
        built = time.perf_counter() - started
        result: dict[str, Any] = {
            set_name: search_eval.score(items, _searcher(peer))[0] for set_name, items in sets.items()
        }
        if queries:
            result[latency_repo] = {**_latency(peer, queries, latency_repo), "index_s": round(built, 1)}
        out[name] = result
    return out


def _searcher(peer: Bm25Peer) -> Callable[[search_eval.Labelled], list[Any]]:
    """The query function :func:`search_eval.score` calls: each item in its own corpus."""
    return lambda item: peer.search(item.query, item.corpus)


def _latency(peer: Bm25Peer, queries: Sequence[str], repo: str) -> dict[str, float]:
    """p50/p95 wall time in ms of ``queries`` (limit 10) after 20 warm-up queries."""
    for q in queries[:20]:
        peer.search(q, repo)
    times: list[float] = []
    for q in queries:
        started = time.perf_counter()
        peer.search(q, repo)
        times.append((time.perf_counter() - started) * 1000)
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 3),
    }
