"""The CI extraction gate: docmunch vs the oracle on the 20-page set, floors plus a no-regression rule.

Fails (non-zero exit from ``python -m oracle gate``) unless, over ``[[gate]]`` in
``fixtures/pages.toml``, scored against Readability.js:

- title accuracy ≥ 0.80, mean token similarity ≥ 0.85, mean noise residue ≤ 0.10
  (floors from the product brief, design brief §8);
- no metric of :data:`GATED` is worse than the committed ``fixtures/baseline.json`` by more than
  :data:`TOLERANCE` (``python -m oracle baseline`` rewrites that file on purpose).
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
    "TOLERANCE",
    "GateOutcome",
    "baseline_document",
    "check",
    "run_gate",
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

_LOWER_IS_BETTER = frozenset({"noise_residue"})


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


def run_gate(*, extractor: str = "docmunch", baseline_path: Path = BASELINE) -> GateOutcome:
    """Score ``extractor`` on the gate set against the oracle and apply :func:`check`.

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
    return GateOutcome(extractor, summary, results, baseline, check(summary, baseline))


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
    return {
        "format": "docmunch-oracle-baseline/1",
        "extractor": outcome.extractor,
        "reference": "oracle",
        "oracle_version": oracle_version(),
        "pages": outcome.summary.pages,
        "metrics": {name: round(outcome.summary.metric(name) or 0.0, 6) for name in GATED},
        "per_page": per_page,
    }


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
