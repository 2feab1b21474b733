"""Extraction benchmark: docmunch vs readability-lxml vs trafilatura, same pages, one run.

Pages: every ``readability-test-pages/*/source.html`` (reference: ``expected.html`` text and
``expected-metadata.json`` title, i.e. Readability.js output) and every page in
``docs-sites/*/truth.json`` (reference: the human ``main_text``). Per extractor and page set:
ms/page (median, p95; wall-clock ``time.perf_counter`` around the extractor call, parsing
included, one call per page, all extractors interleaved page by page so load hits them alike),
token precision/recall/F1 and Indel token similarity (:mod:`oracle.metrics`), title accuracy.

Peers are called the usual way: ``readability.Document(html).summary()`` (text of the returned
HTML) and ``trafilatura.extract(html, output_format="txt")``.
"""

from __future__ import annotations

import json
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import lxml.html
from rich.table import Table

from oracle.metrics import prf, title_match, token_similarity, tokens

PAGE_URL = "http://fakehost/test/page.html"
Extractor = Callable[[str], tuple[str | None, str]]


def _docmunch(html: str) -> tuple[str | None, str]:
    from docmunch.extract import extract

    article = extract(html, url=PAGE_URL)
    return article.title, article.text


def _readability_lxml(html: str) -> tuple[str | None, str]:
    from readability import Document

    doc = Document(html, url=PAGE_URL)
    summary = doc.summary(html_partial=True)
    return doc.short_title(), lxml.html.fromstring(summary).text_content() if summary.strip() else ""


def _trafilatura(html: str) -> tuple[str | None, str]:
    import trafilatura

    text = trafilatura.extract(html, output_format="txt", url=PAGE_URL) or ""
    meta = trafilatura.extract_metadata(html)
    return (meta.title if meta else None), text


EXTRACTORS: dict[str, Extractor] = {
    "docmunch": _docmunch,
    "readability-lxml": _readability_lxml,
    "trafilatura": _trafilatura,
}


def _pages(fixtures: Path) -> list[tuple[str, str, str, str | None]]:
    """(set, name, html, reference title) with reference text stored aside in ``_REFS``."""
    out: list[tuple[str, str, str, str | None]] = []
    rt = fixtures / "readability-test-pages"
    for folder in sorted(p for p in rt.iterdir() if (p / "source.html").is_file()):
        expected = lxml.html.fromstring((folder / "expected.html").read_text(encoding="utf-8"))
        meta = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))
        _REFS[("readability", folder.name)] = expected.text_content()
        out.append(
            (
                "readability",
                folder.name,
                (folder / "source.html").read_text(encoding="utf-8"),
                meta.get("title"),
            )
        )
    for site in sorted(p for p in (fixtures / "docs-sites").iterdir() if (p / "truth.json").is_file()):
        truth = json.loads((site / "truth.json").read_text(encoding="utf-8"))
        for page in truth["pages"]:
            name = f"{site.name}/{page['path']}"
            _REFS[("docs", name)] = page["main_text"]
            html = (site / page["path"]).read_bytes().decode("utf-8", errors="replace")
            out.append(("docs", name, html, None))
    return out


_REFS: dict[tuple[str, str], str] = {}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(fixtures: Path) -> dict:
    """Score and time every extractor on every page; returns summary + per-page rows (JSON-able)."""
    pages = _pages(fixtures)
    rows: list[dict] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, name, html, ref_title in pages:
            reference = tokens(_REFS[(kind, name)])
            for extractor, fn in EXTRACTORS.items():
                start = time.perf_counter()
                try:
                    title, text = fn(html)
                    error = None
                except Exception as exc:  # a peer failing on a page scores as empty output
                    title, text, error = None, "", f"{type(exc).__name__}: {exc}"
                ms = (time.perf_counter() - start) * 1000
                ours = tokens(text)
                score = prf(ours, reference)
                rows.append(
                    {
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
                )
    summary: dict[str, dict] = {}
    for kind in ("readability", "docs"):
        for extractor in EXTRACTORS:
            sel = [r for r in rows if r["set"] == kind and r["extractor"] == extractor]
            if not sel:
                continue
            titles = [r["title_ok"] for r in sel if r["title_ok"] is not None]
            summary[f"{kind}/{extractor}"] = {
                "pages": len(sel),
                "ms_median": statistics.median(r["ms"] for r in sel),
                "ms_p95": _p95([r["ms"] for r in sel]),
                "precision": statistics.fmean(r["precision"] for r in sel),
                "recall": statistics.fmean(r["recall"] for r in sel),
                "f1": statistics.fmean(r["f1"] for r in sel),
                "similarity": statistics.fmean(r["similarity"] for r in sel),
                "title_accuracy": statistics.fmean(titles) if titles else None,
                "errors": sum(1 for r in sel if r["error"]),
            }
    return {"summary": summary, "rows": rows}


def table(result: dict) -> Table:
    """One row per (page set, extractor): ms/page and accuracy against the set's reference."""
    out = Table(
        title="Extraction: ms/page and token accuracy (readability = vs expected.html; docs = vs truth.json)"
    )
    for column in (
        "set / extractor",
        "pages",
        "ms median",
        "ms p95",
        "precision",
        "recall",
        "F1",
        "similarity",
        "title acc",
        "errors",
    ):
        out.add_column(column, justify="left" if column == "set / extractor" else "right")
    for key, s in result["summary"].items():
        out.add_row(
            key,
            str(s["pages"]),
            f"{s['ms_median']:.1f}",
            f"{s['ms_p95']:.1f}",
            f"{s['precision']:.3f}",
            f"{s['recall']:.3f}",
            f"{s['f1']:.3f}",
            f"{s['similarity']:.3f}",
            "-" if s["title_accuracy"] is None else f"{s['title_accuracy']:.3f}",
            str(s["errors"]),
        )
    return out
