"""``python -m oracle report``: score every extractor on the wide set, write ``reports/extraction.json``
and the self-contained ``reports/extraction.html`` (rendered by :mod:`oracle.report_html`)."""

from __future__ import annotations

import datetime as dt
import json
import platform
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from oracle import REPO_ROOT
from oracle.extractors import EXTRACTORS
from oracle.htmltext import view
from oracle.pages import GATE_PAGES, load_pages
from oracle.report_html import render_html
from oracle.runner import RunStats, oracle_version, run_oracle
from oracle.scoring import REFERENCES, PageResult, score_pages, summarize
from oracle.selfcheck import EXCEPTIONS, THRESHOLD, similarities

__all__ = ["REPORT_HTML", "REPORT_JSON", "build_report", "write_report"]

REPORT_JSON = REPO_ROOT / "reports" / "extraction.json"
REPORT_HTML = REPO_ROOT / "reports" / "extraction.html"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _summaries(results: list[PageResult]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in EXTRACTORS:
        row = {}
        for ref in REFERENCES:
            s = summarize(results, name, ref)
            if s is not None:
                row[ref] = s.to_json()
        out[name] = row
    return out


def _page_json(r: PageResult) -> dict[str, Any]:
    return {
        "name": r.page.name,
        "kind": r.page.kind,
        "gate": r.page.name in GATE_PAGES and r.page.kind == "readability",
        "origin": r.page.origin,
        "extractions": {
            name: {"title": ex.title, "ms": round(ex.ms, 3), "error": ex.error}
            for name, ex in r.extractions.items()
        },
        "scores": {name: {ref: asdict(s) for ref, s in refs.items()} for name, refs in r.scores.items()},
    }


def build_report(*, refresh: bool = False) -> tuple[dict[str, Any], list[PageResult], RunStats]:
    """Run everything on the wide set; returns (report JSON document, page results, oracle run stats).

    ``refresh`` re-runs the oracle and the cached peers. Raises :class:`oracle.errors.OracleError`.
    """
    pages = load_pages("wide")
    oracle, stats = run_oracle([(p.name, p.source()) for p in pages], refresh=refresh)
    results = score_pages(pages, oracle, refresh=refresh)
    gate_results = [r for r in results if r.page.name in GATE_PAGES and r.page.kind == "readability"]
    sims = similarities(pages, oracle)
    doc = {
        "format": "docmunch-extraction-report/1",
        "generated": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "oracle_version": oracle_version(),
        "versions": {
            "docmunch": _version("docmunch"),
            "readability-lxml": _version("readability-lxml"),
            "trafilatura": _version("trafilatura"),
            "playwright": _version("playwright"),
            "python": platform.python_version(),
        },
        "oracle_run": asdict(stats),
        "summary": {"wide": _summaries(results), "gate": _summaries(gate_results)},
        "self_check": {
            "threshold": THRESHOLD,
            "exceptions": EXCEPTIONS,
            "similarity": {name: round(s, 6) for name, s in sims.items()},
            "failing": sorted(name for name, s in sims.items() if s < THRESHOLD),
        },
        "pages": [_page_json(r) for r in results],
        "articles": _articles(),
    }
    return doc, results, stats


def _articles() -> dict[str, Any] | None:
    """articles-dev snippet scores per extractor (peers from cache), ``None`` without the fixtures."""
    from oracle.articles import load_articles, score_all, summary_json
    from oracle.pages import fixtures_root

    root = fixtures_root()
    if not (root / "articles-dev" / "truth.json").is_file():
        return None
    return summary_json(score_all(load_articles(root), cache=True))


def write_report(
    *, refresh: bool = False, json_path: Path = REPORT_JSON, html_path: Path = REPORT_HTML
) -> tuple[dict[str, Any], RunStats]:
    """Build the report and write both files (parents created); returns (JSON document, oracle stats)."""
    doc, results, stats = build_report(refresh=refresh)
    texts = {r.page.name: {name: view(ex.html).text for name, ex in r.extractions.items()} for r in results}
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    html_path.write_text(render_html(doc, texts), encoding="utf-8")
    return doc, stats
