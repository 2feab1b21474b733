"""The CI extraction gate: docmunch vs the oracle on the 20-page set, floors plus a no-regression rule.

Fails (non-zero exit from ``python -m oracle gate``) unless, over ``[[gate]]`` in
``fixtures/pages.toml``, scored against Readability.js:

- title accuracy ≥ 0.80, mean token similarity ≥ 0.85, mean noise residue ≤ 0.10
  (floors from the product brief, design brief §8);
- no metric of :data:`GATED` is worse than the committed ``fixtures/baseline.json`` by more than
  :data:`TOLERANCE` (``python -m oracle baseline`` rewrites that file on purpose);
- the **generic** column (docmunch with platform rules switched off, ``docmunch-generic``, on
  the 62 ``docs-sites`` pages against their ``truth.json``) meets :data:`GENERIC_FLOORS` and no
  metric of :data:`GENERIC_GATED` is worse than the baseline's ``generic`` block by more than
  :data:`TOLERANCE`. It measures what a page of an unknown generator gets, on every change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from oracle import REPO_ROOT
from oracle.pages import load_pages
from oracle.runner import oracle_version, run_oracle
from oracle.scoring import PageResult, Summary, score_pages, summarize

__all__ = [
    "BASELINE",
    "FLOORS",
    "GATED",
    "GENERIC_EXTRACTOR",
    "GENERIC_FLOORS",
    "GENERIC_GATED",
    "TOLERANCE",
    "GateOutcome",
    "baseline_document",
    "check",
    "check_generic",
    "generic_table",
    "run_gate",
    "run_generic",
    "table",
    "write_baseline",
]

BASELINE = REPO_ROOT / "fixtures" / "baseline.json"

FLOORS: dict[str, tuple[str, float]] = {
    "title_accuracy": (">=", 0.80),
    "token_similarity": (">=", 0.85),
    "noise_residue": ("<=", 0.10),
}
"""Metric → (direction, bound) that must hold on the gate set."""

GATED: tuple[str, ...] = ("title_accuracy", "token_similarity", "noise_residue", "precision", "recall", "f1")
"""Metrics compared with the baseline; ``noise_residue`` is lower-is-better, the rest higher-is-better."""

TOLERANCE = 0.01
"""Largest allowed regression of a gated metric against the baseline (absolute)."""

GENERIC_EXTRACTOR = "docmunch-generic"
"""The extractor of the generic column (see :mod:`oracle.extractors`)."""

GENERIC_FLOORS: dict[str, tuple[str, float]] = {
    "f1": (">=", 0.99),
    "heading_recall": (">=", 0.98),
    "code_exact": (">=", 0.98),
    "leak_pages": ("<=", 0),
}
"""Generic column vs docs truth: token F1, heading recall, code blocks verbatim, pages leaking
chrome (issue 11's targets)."""

GENERIC_GATED: tuple[str, ...] = ("f1", "precision", "recall", "heading_recall", "code_exact")
"""Generic-column metrics compared with the baseline (all higher-is-better)."""

_LOWER_IS_BETTER = frozenset({"noise_residue", "leak_pages"})


@dataclass(frozen=True, slots=True)
class GateOutcome:
    """Result of one gate run."""

    extractor: str
    summary: Summary
    """Means over the gate pages against the oracle."""
    results: list[PageResult]
    baseline: dict[str, Any] | None
    """The committed baseline document (``None`` when absent or for another extractor)."""
    failures: list[str]
    """Human-readable reasons; empty means the gate passes."""
    generic: Summary | None = None
    """The generic column (docmunch only; ``None`` when another extractor is gated)."""
    generic_results: list[PageResult] | None = None
    """Per docs page results of the generic column."""

    @property
    def passed(self) -> bool:
        """True when no floor or regression rule failed."""
        return not self.failures


def read_baseline(path: Path = BASELINE) -> dict[str, Any] | None:
    """The baseline document, or ``None`` when the file does not exist or is not valid JSON."""
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def check(summary: Summary, baseline: dict[str, Any] | None) -> list[str]:
    """Failure reasons of ``summary`` against :data:`FLOORS` and the (optional) baseline's ``metrics``."""
    failures: list[str] = []
    if summary.errors:
        failures.append(
            f"the extractor raised on {summary.errors} of {summary.pages} pages (scored as empty)"
        )
    for name, (direction, bound) in FLOORS.items():
        value = summary.metric(name) or 0.0
        ok = value >= bound if direction == ">=" else value <= bound
        if not ok:
            failures.append(f"{name} = {value:.4f}, floor is {direction} {bound:.2f}")
    for name in GATED if baseline else ():
        old = baseline["metrics"].get(name) if baseline else None
        new = summary.metric(name)
        if old is None or new is None:
            continue
        worse = new - old if name in _LOWER_IS_BETTER else old - new
        if worse > TOLERANCE + 1e-12:
            failures.append(
                f"{name} regressed {old:.4f} -> {new:.4f} (more than {TOLERANCE} vs fixtures/baseline.json)"
            )
    return failures


def check_generic(summary: Summary, baseline: dict[str, Any] | None) -> list[str]:
    """Failure reasons of the generic column against :data:`GENERIC_FLOORS` and the baseline's
    ``generic.metrics`` (when present)."""
    failures: list[str] = []
    if summary.errors:
        failures.append(f"generic: the extractor raised on {summary.errors} of {summary.pages} docs pages")
    for name, (direction, bound) in GENERIC_FLOORS.items():
        value = summary.metric(name)
        value = 0.0 if value is None else float(value)
        ok = value >= bound if direction == ">=" else value <= bound
        if not ok:
            failures.append(f"generic {name} = {value:.4f}, floor is {direction} {bound:g}")
    old_metrics = (baseline or {}).get("generic", {}).get("metrics", {})
    for name in GENERIC_GATED:
        old, new = old_metrics.get(name), summary.metric(name)
        if old is None or new is None:
            continue
        if old - new > TOLERANCE + 1e-12:
            failures.append(
                f"generic {name} regressed {old:.4f} -> {new:.4f} "
                f"(more than {TOLERANCE} vs fixtures/baseline.json)"
            )
    return failures


def run_generic() -> tuple[Summary, list[PageResult]]:
    """The generic column: ``docmunch-generic`` on every ``docs-sites`` page vs its truth.

    Needs no browser. Raises :class:`oracle.errors.OracleError` when fixtures are missing.
    """
    pages = [p for p in load_pages("wide") if p.kind == "docs"]
    results = score_pages(pages, None, extractors=[GENERIC_EXTRACTOR])
    summary = summarize(results, GENERIC_EXTRACTOR, "truth")
    assert summary is not None  # every docs page has truth
    return summary, results


def run_gate(*, extractor: str = "docmunch", baseline_path: Path = BASELINE) -> GateOutcome:
    """Score ``extractor`` on the gate set against the oracle and apply :func:`check`; for
    docmunch also the generic column (:func:`run_generic`, :func:`check_generic`).

    Raises :class:`oracle.errors.OracleError` when fixtures, Chromium or the npm package are missing.
    """
    pages = load_pages("gate")
    oracle, _ = run_oracle([(p.name, p.source()) for p in pages])
    results = score_pages(pages, oracle, extractors=[extractor])
    summary = summarize(results, extractor, "oracle")
    assert summary is not None  # every gate page has the oracle reference
    baseline = read_baseline(baseline_path)
    if baseline is not None and baseline.get("extractor") != extractor:
        baseline = None
    failures = check(summary, baseline)
    generic = generic_results = None
    if extractor == "docmunch":
        generic, generic_results = run_generic()
        failures += check_generic(generic, baseline)
    return GateOutcome(extractor, summary, results, baseline, failures, generic, generic_results)


def baseline_document(outcome: GateOutcome) -> dict[str, Any]:
    """The ``fixtures/baseline.json`` document for a gate run (metrics rounded to 6 decimals)."""
    per_page = {}
    for r in outcome.results:
        s = r.scores[outcome.extractor]["oracle"]
        per_page[r.page.name] = {
            "title_match": s.title_match,
            "token_similarity": round(s.token_similarity, 6),
            "noise_residue": round(s.noise_residue, 6),
            "f1": round(s.f1, 6),
        }
    doc: dict[str, Any] = {
        "format": "docmunch-oracle-baseline/1",
        "extractor": outcome.extractor,
        "reference": "oracle",
        "oracle_version": oracle_version(),
        "pages": outcome.summary.pages,
        "metrics": {name: round(outcome.summary.metric(name) or 0.0, 6) for name in GATED},
        "per_page": per_page,
    }
    if outcome.generic is not None:
        g = outcome.generic
        doc["generic"] = {
            "extractor": GENERIC_EXTRACTOR,
            "reference": "truth",
            "pages": g.pages,
            "metrics": {name: round(float(g.metric(name) or 0.0), 6) for name in GENERIC_GATED},
            "leak_pages": g.leak_pages,
        }
    return doc


def write_baseline(outcome: GateOutcome, path: Path = BASELINE) -> None:
    """Write :func:`baseline_document` to ``path`` (UTF-8, sorted, trailing newline)."""
    text = json.dumps(baseline_document(outcome), indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def table(outcome: GateOutcome) -> Table:
    """A rich table: one row per gate page, then the means, floors and baseline values."""
    t = Table(title=f"extraction gate: {outcome.extractor} vs Readability.js ({oracle_version()})")
    for col in ("page", "title", "token sim", "noise", "F1", "ms"):
        t.add_column(col, justify="left" if col == "page" else "right")
    for r in sorted(outcome.results, key=lambda r: r.scores[outcome.extractor]["oracle"].token_similarity):
        s = r.scores[outcome.extractor]["oracle"]
        ex = r.extractions[outcome.extractor]
        t.add_row(r.page.name, "yes" if s.title_match else "NO", f"{s.token_similarity:.3f}",
                  f"{s.noise_residue:.3f}", f"{s.f1:.3f}", f"{ex.ms:.0f}")  # fmt: skip
    m = outcome.summary
    t.add_section()
    t.add_row("mean", f"{m.title_accuracy:.3f}", f"{m.token_similarity:.3f}", f"{m.noise_residue:.3f}",
              f"{m.f1:.3f}", f"{m.ms_per_page:.0f}")  # fmt: skip
    t.add_row("floor", ">= 0.800", ">= 0.850", "<= 0.100", "", "")
    if outcome.baseline:
        b = outcome.baseline["metrics"]
        t.add_row("baseline", f"{b['title_accuracy']:.3f}", f"{b['token_similarity']:.3f}",
                  f"{b['noise_residue']:.3f}", f"{b['f1']:.3f}", "")  # fmt: skip
    return t


def _fmt(value: float | int | None) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def generic_table(outcome: GateOutcome) -> Table | None:
    """A rich table of the generic column: pages below target first, then means, floors, baseline."""
    if outcome.generic is None or outcome.generic_results is None:
        return None
    t = Table(title=f"generic column: {GENERIC_EXTRACTOR} (platform rules off) vs docs truth")
    for col in ("page", "F1", "headings", "code", "leaks"):
        t.add_column(col, justify="left" if col == "page" else "right")
    for r in outcome.generic_results:
        s = r.scores[GENERIC_EXTRACTOR]["truth"]
        if s.f1 < 0.99 or (s.heading_recall or 1.0) < 1.0 or (s.code_exact or 1.0) < 1.0 or s.leaked:
            t.add_row(r.page.name, f"{s.f1:.3f}", _fmt(s.heading_recall), _fmt(s.code_exact),
                      ", ".join(s.leaked or ()))  # fmt: skip
    g = outcome.generic
    t.add_section()
    t.add_row(
        f"mean of {g.pages}", f"{g.f1:.3f}", _fmt(g.heading_recall), _fmt(g.code_exact), _fmt(g.leak_pages)
    )
    floors = {k: f"{d} {v:g}" for k, (d, v) in GENERIC_FLOORS.items()}
    t.add_row("floor", floors["f1"], floors["heading_recall"], floors["code_exact"], floors["leak_pages"])
    base = (outcome.baseline or {}).get("generic", {}).get("metrics")
    if base:
        t.add_row("baseline", _fmt(base.get("f1")), _fmt(base.get("heading_recall")),
                  _fmt(base.get("code_exact")), "")  # fmt: skip
    return t
