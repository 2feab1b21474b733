"""Scoring of labelled search queries: the hit rule, recall@10 and MRR@10.

The rule is the one of the dev set's README (``$DOCMUNCH_FIXTURES/queries/README.md``): a
result hits a gold section when its ``doc_path`` equals the gold ``doc_path`` and either its
title equals the gold ``heading`` (whitespace collapsed, casefolded) or its ``byte_start``
equals the byte offset of the gold ``line`` in the original file. A query's rank is the
position (1-based) of the first result hitting its target or one of its ``also`` sections,
0 when none of the first :data:`CUTOFF` does. recall@10 = share of ranks in 1..10; MRR@10 =
mean of 1/rank (0 for a miss).

Query files are JSON Lines with the fields of the dev set: ``query``, ``corpus``,
``doc_path``, ``heading``, ``line``, ``also`` (list of ``{doc_path, heading, line}``) and
``kind``. :func:`with_typos` derives a set of mistyped queries from labelled ones (spelling
correction, ``docmunch/index/spelling.py``). This module is shared by :mod:`bench.bench_search`
and the tests.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = ["CUTOFF", "Gold", "Labelled", "Scores", "language", "load", "rank_of", "score", "with_typos"]

CUTOFF = 10
"""Results looked at per query (the ``@10`` of recall@10 and MRR@10)."""


@dataclass(frozen=True, slots=True)
class Gold:
    """One section that answers a query."""

    doc_path: str
    heading: str
    """Heading text as written in the file (markup and ``{#id}`` kept)."""
    byte_start: int
    """UTF-8 byte offset of the heading line in the original file."""


@dataclass(frozen=True, slots=True)
class Labelled:
    """A query and the sections that answer it."""

    query: str
    corpus: str
    kind: str
    target: Gold
    also: tuple[Gold, ...]


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _line_offset(path: Path, line: int, cache: dict[Path, list[int]]) -> int:
    starts = cache.get(path)
    if starts is None:
        starts = [0]
        for raw in path.read_bytes().splitlines(keepends=True):
            starts.append(starts[-1] + len(raw))
        cache[path] = starts
    return starts[line - 1]


def load(path: Path, corpora: Path) -> list[Labelled]:
    """Read a query file; byte offsets are computed on the corpus files under ``corpora``."""
    cache: dict[Path, list[int]] = {}
    out: list[Labelled] = []

    def gold(corpus: str, item: dict[str, Any]) -> Gold:
        file = corpora / corpus / item["doc_path"]
        return Gold(item["doc_path"], item["heading"], _line_offset(file, int(item["line"]), cache))

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            Labelled(
                row["query"],
                row["corpus"],
                row.get("kind", "keyword"),
                gold(row["corpus"], row),
                tuple(gold(row["corpus"], a) for a in row.get("also", ())),
            )
        )
    return out


TYPO_SEED = 7
"""Seed of :func:`with_typos` (the same set on every run)."""
TYPO_MIN_CHARS = 5
"""Shortest word :func:`with_typos` mistypes."""


def with_typos(items: Sequence[Labelled], seed: int = TYPO_SEED) -> list[Labelled]:
    """The items whose query has an ASCII word of letters of at least :data:`TYPO_MIN_CHARS`
    characters, with its longest such word (the first of equals; stop words never, as
    :func:`docmunch.index.analyze.content_words` keeps them out) mistyped by one edit: a letter
    deleted, two neighbouring letters swapped, a letter replaced or one inserted, the kind and
    the place (the first letter included) drawn from a seeded generator, the letters from the
    ones most common in English text. Labels are kept: the same section answers."""
    from docmunch.index.analyze import content_words

    rng = random.Random(seed)
    out: list[Labelled] = []
    for item in items:
        words = [w for w in content_words(item.query) if w.isascii() and w.isalpha()]
        words = [w for w in words if len(w) >= TYPO_MIN_CHARS]
        if not words:
            continue
        word = max(words, key=len)
        at = rng.randrange(len(word) - 1)
        kind = rng.choice(("delete", "swap", "replace", "insert"))
        letter = rng.choice("etaoinshrdlu")
        typo = {
            "delete": word[:at] + word[at + 1 :],
            "swap": word[:at] + word[at + 1] + word[at] + word[at + 2 :],
            "replace": word[:at] + (letter if letter != word[at] else "x") + word[at + 1 :],
            "insert": word[:at] + letter + word[at:],
        }[kind]
        query = re.sub(rf"\b{re.escape(word)}\b", typo, item.query, count=1)
        out.append(replace(item, query=query))
    return out


def _hits(result: Any, gold: Gold) -> bool:
    if result.doc_path != gold.doc_path:
        return False
    return _key(result.title) == _key(gold.heading) or result.byte_start == gold.byte_start


def rank_of(results: Sequence[Any], item: Labelled, *, strict: bool = False) -> int:
    """1-based rank of the first result answering ``item`` (0 = none in the first CUTOFF).

    ``results`` are objects with ``doc_path``, ``title`` and ``byte_start`` (``SearchHit``),
    and a ``repo`` when they come from a search over several repos (a result of another repo
    than the item's corpus never answers it); ``strict`` accepts only the target, not the
    ``also`` sections.
    """
    golds = (item.target,) if strict else (item.target, *item.also)
    for position, result in enumerate(results[:CUTOFF], start=1):
        if getattr(result, "repo", item.corpus) != item.corpus:
            continue
        if any(_hits(result, g) for g in golds):
            return position
    return 0


def language(query: str) -> str:
    """``zh`` (CJK only, no Latin letters), ``mixed`` (both) or ``en`` (no CJK)."""
    cjk = any("\u3400" <= ch <= "\u9fff" for ch in query)
    latin = any(ch.isascii() and ch.isalpha() for ch in query)
    if cjk:
        return "mixed" if latin else "zh"
    return "en"


@dataclass(frozen=True, slots=True)
class Scores:
    """recall@10 and MRR@10 of a group of queries."""

    n: int
    recall: float
    mrr: float

    def to_json(self) -> dict[str, float]:
        return {"n": self.n, "recall@10": round(self.recall, 3), "mrr@10": round(self.mrr, 3)}


def _scores(ranks: Iterable[int]) -> Scores:
    values = list(ranks)
    if not values:
        return Scores(0, 0.0, 0.0)
    return Scores(
        len(values),
        sum(1 for r in values if r) / len(values),
        sum(1 / r for r in values if r) / len(values),
    )


def score(
    items: Sequence[Labelled], search: Callable[[Labelled], Sequence[Any]]
) -> tuple[dict[str, dict[str, float]], list[int]]:
    """Run every query through ``search`` and group the scores.

    Returns:
        ``({group: {"n", "recall@10", "mrr@10"}}, ranks)`` with groups ``all``,
        ``corpus:<name>``, ``kind:<kind>``, ``lang:<en|zh|mixed>``, plus ``strict`` (target
        only) and ``doc`` (any result from the target's file); ``ranks`` in input order.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    ranks: list[int] = []
    for item in items:
        results = search(item)
        rank = rank_of(results, item)
        ranks.append(rank)
        for group in ("all", f"corpus:{item.corpus}", f"kind:{item.kind}", f"lang:{language(item.query)}"):
            groups[group].append(rank)
        groups["strict"].append(rank_of(results, item, strict=True))
        doc_rank = next(
            (
                i
                for i, r in enumerate(results[:CUTOFF], 1)
                if r.doc_path == item.target.doc_path and getattr(r, "repo", item.corpus) == item.corpus
            ),
            0,
        )
        groups["doc"].append(doc_rank)
    return {name: _scores(values).to_json() for name, values in sorted(groups.items())}, ranks
