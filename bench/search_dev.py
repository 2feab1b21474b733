"""Quality only, fast: the dev questions and keyword queries on a reusable index, A/B halves.

For tuning the question ranking: the corpora the query files name are indexed once into
``--home`` (a folder of your own; kept between runs, so a ranking-only change is re-scored in
a few seconds), then every query runs with limit 10 and :mod:`bench.search_eval` scores it.
Printed: recall@10 / MRR@10 of all dev questions, per corpus and per language, of the odd
(A: rows 1, 3, …) and even (B) rows separately — ``docs/search.md`` keeps a change only when
it helps both halves — of the keyword queries, and of the same questions and keyword queries
with one word mistyped (``typos``, :func:`bench.search_eval.with_typos`). ``--reindex``
rebuilds the index (needed after a change to what is stored: analysis, impacts, priors). No
latency, no other ranking: ``python -m bench search`` measures those.

Run: ``python -m bench.search_dev --home /tmp/my-dev-home [--reindex] [--ranks FILE]``
(``--ranks`` writes every query's rank as JSON, to diff two variants row by row).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from bench import bench_search, search_eval
from bench.bench_search import EXCLUDE, ROOT

__all__ = ["halves", "main"]


def halves(ranks: Sequence[int]) -> dict[str, tuple[float, float]]:
    """``{"A": (recall@10, MRR@10) of rows 1, 3, …, "B": … of rows 2, 4, …}``."""

    def scores(values: Sequence[int]) -> tuple[float, float]:
        if not values:
            return 0.0, 0.0
        hits = sum(1 for r in values if r)
        return round(hits / len(values), 3), round(sum(1 / r for r in values if r) / len(values), 4)

    return {"A": scores(ranks[0::2]), "B": scores(ranks[1::2])}


def main(argv: Sequence[str] | None = None) -> int:
    """Score the query files on the index in ``--home``; returns the exit status."""
    from docmunch.index import Index

    parser = argparse.ArgumentParser(prog="python -m bench.search_dev", description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="DOCMUNCH_HOME to (re)use")
    parser.add_argument("--reindex", action="store_true", help="delete --home and index again")
    parser.add_argument("--ranks", type=Path, help="write every query's rank here (JSON)")
    args = parser.parse_args(argv)
    fixtures = Path(os.environ.get("DOCMUNCH_FIXTURES") or ROOT.parent / "shared" / "fixtures")
    corpora = fixtures / "corpora"
    sets = bench_search.load_sets(fixtures)
    if args.reindex and args.home.exists():
        shutil.rmtree(args.home)
    fresh = not args.home.exists()
    index = Index.open(args.home)
    try:
        if fresh:
            for name in sorted({it.corpus for items in sets.values() for it in items}):
                index.index_path(corpora / name, exclude=EXCLUDE)
        out: dict[str, list[int]] = {}
        for set_name, items in sets.items():
            groups, ranks = search_eval.score(
                items, lambda it: index.search(it.query, repo=it.corpus, limit=search_eval.CUTOFF)
            )
            out[set_name] = ranks
            shown = {k: (v["recall@10"], v["mrr@10"]) for k, v in groups.items() if not k.startswith("kind:")}
            print(set_name, json.dumps(shown, ensure_ascii=False))
            print(set_name, "halves", json.dumps(halves(ranks)))
            every = bench_search.all_repos_quality(index, items, "question")
            shown = {k: (v["recall@10"], v["mrr@10"]) for k, v in every.items()}
            print(set_name, "all repos", json.dumps(shown))
    finally:
        index.close()
    if args.ranks is not None:
        args.ranks.write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
