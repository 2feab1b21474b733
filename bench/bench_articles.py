"""Article benchmark: docmunch vs trafilatura (standard, favor_precision) vs readability-lxml, one run.

Pages: ``$DOCMUNCH_FIXTURES/articles-dev/`` (330 news/blog pages with hand-picked ``with`` /
``without`` snippets). Metric and feeding exactly as the folder's README (upstream trafilatura's
evaluation): micro-averaged precision/recall/F1 over snippet counts, exact substring on
whitespace-normalised plain text (:mod:`oracle.articles`). Every extractor runs live on every page
(no cache), interleaved page by page; ms/page is ``time.perf_counter`` around the extractor's own
call (trafilatura: its ``extract`` alone, no second parse for metadata).

Writes the per-page counts and the missed/leaked snippets of every extractor to
``reports/articles.json`` (the file to read when working on a page).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from oracle.articles import EXTRACTORS, load_articles, page_rows, score_all, summary_json

ROOT = Path(__file__).resolve().parent.parent
PAGES_REPORT = ROOT / "reports" / "articles.json"
"""Per-page results of the last run (git-ignored, like every report)."""


def run(fixtures: Path) -> dict[str, Any]:
    """Score and time every extractor on every article page; summary per extractor (JSON-able)."""
    pages = load_articles(fixtures)
    started = time.perf_counter()
    scores = score_all(pages, EXTRACTORS, cache=False)
    wall = time.perf_counter() - started
    summary = summary_json(scores)
    PAGES_REPORT.parent.mkdir(exist_ok=True)
    PAGES_REPORT.write_text(
        json.dumps({"summary": summary, "pages": page_rows(scores)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    traf = summary.get("trafilatura", {}).get("ms_median")
    ours = summary.get("docmunch", {}).get("ms_median")
    return {
        "pages": len(pages),
        "wall_s": round(wall, 1),
        "summary": summary,
        "docmunch_time_vs_trafilatura": round(ours / traf, 3) if ours and traf else None,
        "per_page": str(PAGES_REPORT.relative_to(ROOT)),
    }


def table(result: dict[str, Any]) -> Table:
    """One row per extractor: P/R/F1/accuracy, pooled counts, ms/page."""
    out = Table(title=f"Articles ({result['pages']} pages, articles-dev snippets, micro-averaged)")
    for column in ("extractor", "precision", "recall", "F1", "accuracy", "TP/FP/FN/TN", "leaking pages",
                   "errors", "ms median", "ms mean"):  # fmt: skip
        out.add_column(column, justify="left" if column == "extractor" else "right")
    for name, s in result["summary"].items():
        out.add_row(
            name,
            f"{s['precision']:.3f}",
            f"{s['recall']:.3f}",
            f"{s['f1']:.3f}",
            f"{s['accuracy']:.3f}",
            f"{s['tp']}/{s['fp']}/{s['fn']}/{s['tn']}",
            str(s["leaking_pages"]),
            f"{s['errors']} (+{s['empty']} empty)",
            f"{s['ms_median']:.1f}",
            f"{s['ms_mean']:.1f}",
        )
    return out
