"""Extraction benchmark: docmunch vs readability-lxml vs trafilatura, same pages, one run.

Pages: every ``readability-test-pages/*/source.html`` (article pages; reference: ``expected.html``
text and ``expected-metadata.json`` title, i.e. Readability.js output) and every page in
``docs-sites/*/truth.json`` (docs pages; reference: the human ``main_text``).

Timing: each extractor's **plain call alone** is timed — ``docmunch.extract.extract(html)``,
``readability.Document(html).summary()``, ``trafilatura.extract(html, output_format="txt")`` —
with ``time.perf_counter``, parsing included. Titles (``short_title()``,
``trafilatura.extract_metadata``, which parses the page a second time) are read outside the
timed region, so no extractor is charged for work a plain call does not do. Every page is run
:data:`REPEATS` times per extractor, extractors interleaved page by page so machine load hits
them alike, and the fastest run counts (the usual way to time code on a shared machine).

Reported per page set and extractor: ms/page (median, mean, p95), token precision/recall/F1 and
Indel token similarity (:mod:`oracle.metrics`), title accuracy; and docmunch's time as a share
of each peer's (``speed_ratio``: median of docmunch / median of the peer, and the same for
means; below 1 means docmunch is faster). ``docmunch-generic`` (platform rules off) is scored
on the docs pages too, untimed against the peers.
"""

from __future__ import annotations

import json
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html
from rich.table import Table

from oracle.metrics import prf, title_match, token_similarity, tokens

PAGE_URL = "http://fakehost/test/page.html"
REPEATS = 3
"""Timed runs per page and extractor; the fastest counts."""

Run = Callable[[str], object]
"""The timed call: HTML in, the extractor's own result out."""
Read = Callable[[str, object], tuple[str | None, str]]
"""Untimed: (HTML, result) → (title, text) for scoring."""


def _docmunch_run(html: str) -> object:
    from docmunch.extract import extract

    return extract(html, url=PAGE_URL)


def _docmunch_generic_run(html: str) -> object:
    from docmunch.extract import extract

    return extract(html, url=PAGE_URL, platform_rules=False)


def _docmunch_read(html: str, article: object) -> tuple[str | None, str]:
    from docmunch.extract import Article

    assert isinstance(article, Article), type(article)
    return article.title, article.text


def _readability_run(html: str) -> object:
    from readability import Document

    doc = Document(html, url=PAGE_URL)
    return doc, doc.summary(html_partial=True)


def _readability_read(html: str, result: object) -> tuple[str | None, str]:
    assert isinstance(result, tuple), type(result)
    doc, summary = result
    text = lxml.html.fromstring(summary).text_content() if summary.strip() else ""
    return doc.short_title(), text


def _trafilatura_run(html: str) -> object:
    import trafilatura

    return trafilatura.extract(html, output_format="txt", url=PAGE_URL) or ""


def _trafilatura_read(html: str, text: object) -> tuple[str | None, str]:
    import trafilatura

    meta = trafilatura.extract_metadata(html)  # a second parse: not part of the timed call
    return (meta.title if meta else None), str(text)


EXTRACTORS: dict[str, tuple[Run, Read]] = {
    "docmunch": (_docmunch_run, _docmunch_read),
    "readability-lxml": (_readability_run, _readability_read),
    "trafilatura": (_trafilatura_run, _trafilatura_read),
}
PEERS = ("readability-lxml", "trafilatura")
GENERIC = ("docmunch-generic", (_docmunch_generic_run, _docmunch_read))


def _pages(fixtures: Path) -> list[tuple[str, str, str, str | None, str]]:
    """(set, name, html, reference title, reference text) for every page."""
    out: list[tuple[str, str, str, str | None, str]] = []
    rt = fixtures / "readability-test-pages"
    for folder in sorted(p for p in rt.iterdir() if (p / "source.html").is_file()):
        expected = lxml.html.fromstring((folder / "expected.html").read_text(encoding="utf-8"))
        meta = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))
        html = (folder / "source.html").read_text(encoding="utf-8")
        out.append(("readability", folder.name, html, meta.get("title"), expected.text_content()))
    for site in sorted(p for p in (fixtures / "docs-sites").iterdir() if (p / "truth.json").is_file()):
        truth = json.loads((site / "truth.json").read_text(encoding="utf-8"))
        for page in truth["pages"]:
            html = (site / page["path"]).read_bytes().decode("utf-8", errors="replace")
            out.append(("docs", f"{site.name}/{page['path']}", html, None, page["main_text"]))
    return out


def _timed(run: Run, html: str) -> tuple[object, float, str | None]:
    """(result of the last run, fastest ms over :data:`REPEATS` runs, error or ``None``)."""
    best = float("inf")
    result: object = None
    for _ in range(REPEATS):
        start = time.perf_counter()
        try:
            result = run(html)
        except Exception as exc:  # a failing extractor scores as empty output
            return None, (time.perf_counter() - start) * 1000, f"{type(exc).__name__}: {exc}"
        best = min(best, (time.perf_counter() - start) * 1000)
    return result, best, None


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _row(kind: str, name: str, extractor: str, ms: float, title: str | None, text: str,
         ref_title: str | None, ref_text: str, error: str | None) -> dict[str, Any]:  # fmt: skip
    ours, reference = tokens(text), tokens(ref_text)
    score = prf(ours, reference)
    return {
        "set": kind,
        "page": name,
        "extractor": extractor,
        "ms": ms,
        "precision": score.precision,
        "recall": score.recall,
        "f1": score.f1,
        "similarity": token_similarity(ours, reference),
        "title_ok": title_match(title, ref_title) if ref_title is not None else None,
        "error": error,
    }


def run(fixtures: Path) -> dict[str, Any]:
    """Score and time every extractor on every page; returns summary + per-page rows (JSON-able)."""
    rows: list[dict[str, Any]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, name, html, ref_title, ref_text in _pages(fixtures):
            extractors = list(EXTRACTORS.items()) + ([GENERIC] if kind == "docs" else [])
            for extractor, (run_fn, read_fn) in extractors:
                result, ms, error = _timed(run_fn, html)
                title, text = (None, "") if error else read_fn(html, result)
                rows.append(_row(kind, name, extractor, ms, title, text, ref_title, ref_text, error))
    summary: dict[str, dict[str, Any]] = {}
    for kind in ("readability", "docs"):
        for extractor in (*EXTRACTORS, GENERIC[0]):
            sel = [r for r in rows if r["set"] == kind and r["extractor"] == extractor]
            if not sel:
                continue
            titles = [r["title_ok"] for r in sel if r["title_ok"] is not None]
            summary[f"{kind}/{extractor}"] = {
                "pages": len(sel),
                "ms_median": statistics.median(r["ms"] for r in sel),
                "ms_mean": statistics.fmean(r["ms"] for r in sel),
                "ms_p95": _p95([r["ms"] for r in sel]),
                "precision": statistics.fmean(r["precision"] for r in sel),
                "recall": statistics.fmean(r["recall"] for r in sel),
                "f1": statistics.fmean(r["f1"] for r in sel),
                "similarity": statistics.fmean(r["similarity"] for r in sel),
                "title_accuracy": statistics.fmean(titles) if titles else None,
                "errors": sum(1 for r in sel if r["error"]),
            }
    ratios: dict[str, dict[str, float]] = {}
    for kind in ("readability", "docs"):
        ours = summary[f"{kind}/docmunch"]
        for peer in PEERS:
            theirs = summary[f"{kind}/{peer}"]
            ratios[f"{kind}/docmunch:{peer}"] = {
                "median": ours["ms_median"] / theirs["ms_median"],
                "mean": ours["ms_mean"] / theirs["ms_mean"],
            }
    return {"repeats": REPEATS, "summary": summary, "speed_ratio": ratios, "rows": rows}


def table(result: dict[str, Any]) -> Table:
    """One row per (page set, extractor): ms/page and accuracy; then docmunch's time ratios."""
    out = Table(
        title=f"Extraction: ms/page (fastest of {result.get('repeats', 1)}) and token accuracy "
        "(readability = vs expected.html; docs = vs truth.json)"
    )
    columns = ("set / extractor", "pages", "ms median", "ms mean", "ms p95", "precision", "recall", "F1",
               "similarity", "title acc", "errors")  # fmt: skip
    for column in columns:
        out.add_column(column, justify="left" if column == "set / extractor" else "right")
    for key, s in result["summary"].items():
        title = "-" if s["title_accuracy"] is None else f"{s['title_accuracy']:.3f}"
        out.add_row(key, str(s["pages"]), f"{s['ms_median']:.1f}", f"{s['ms_mean']:.1f}",
                    f"{s['ms_p95']:.1f}", f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}",
                    f"{s['similarity']:.3f}", title, str(s["errors"]))  # fmt: skip
    out.add_section()
    for key, r in result.get("speed_ratio", {}).items():
        out.add_row(f"time ratio {key}", "", f"{r['median']:.2f}", f"{r['mean']:.2f}", *[""] * 7)
    return out
