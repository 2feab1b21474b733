"""The CI gate: floors, the no-regression rule, the baseline file and the CLI's exit codes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from oracle.__main__ import main
from oracle.gate import (
    FLOORS,
    GATED,
    GENERIC_FLOORS,
    GENERIC_GATED,
    TOLERANCE,
    baseline_document,
    check,
    check_generic,
    read_baseline,
    run_gate,
    write_baseline,
)
from oracle.pages import GATE_PAGES
from oracle.scoring import Summary

GOOD = Summary(
    pages=20, title_accuracy=0.9, token_similarity=0.95, noise_residue=0.03, precision=0.97, recall=0.93,
    f1=0.95, heading_recall=None, code_exact=None, ms_per_page=10.0, errors=0,
)  # fmt: skip


def _baseline(summary: Summary) -> dict[str, object]:
    keys = ("title_accuracy", "token_similarity", "noise_residue", "precision", "recall", "f1")
    return {"extractor": "docmunch", "metrics": {k: getattr(summary, k) for k in keys}}


def test_floors() -> None:
    assert check(GOOD, None) == []
    assert FLOORS["title_accuracy"] == (">=", 0.80)
    low = replace(GOOD, title_accuracy=0.79, token_similarity=0.84, noise_residue=0.11)
    reasons = check(low, None)
    assert len(reasons) == 3
    assert any(r.startswith("title_accuracy = 0.7900") for r in reasons)
    assert any(r.startswith("noise_residue = 0.1100") for r in reasons)


def test_regression_beyond_tolerance_fails_in_either_direction_of_goodness() -> None:
    base = _baseline(GOOD)
    assert check(replace(GOOD, f1=GOOD.f1 - TOLERANCE + 0.001), base) == []
    assert check(replace(GOOD, f1=0.99, noise_residue=0.0), base) == []  # improvements pass
    worse = check(replace(GOOD, f1=GOOD.f1 - 0.02), base)
    assert worse == [f"f1 regressed 0.9500 -> 0.9300 (more than {TOLERANCE} vs fixtures/baseline.json)"]
    noisier = check(replace(GOOD, noise_residue=GOOD.noise_residue + 0.02), base)
    assert len(noisier) == 1
    assert noisier[0].startswith("noise_residue regressed")


GENERIC = Summary(
    pages=62, title_accuracy=0.0, token_similarity=0.99, noise_residue=0.001, precision=0.999,
    recall=0.998, f1=0.998, heading_recall=0.995, code_exact=1.0, ms_per_page=9.0, errors=0,
    leak_pages=0,
)  # fmt: skip


def test_generic_column_floors_and_regressions() -> None:
    assert GENERIC_FLOORS["f1"] == (">=", 0.99) and GENERIC_FLOORS["leak_pages"] == ("<=", 0)
    assert check_generic(GENERIC, None) == []
    low = replace(GENERIC, f1=0.985, heading_recall=0.97, code_exact=0.97, leak_pages=2)
    reasons = check_generic(low, None)
    assert len(reasons) == 4
    assert "generic leak_pages = 2.0000, floor is <= 0" in reasons
    base = {"generic": {"metrics": {name: GENERIC.metric(name) for name in GENERIC_GATED}}}
    assert check_generic(replace(GENERIC, recall=GENERIC.recall - TOLERANCE + 0.001), base) == []
    worse = check_generic(replace(GENERIC, heading_recall=0.982), base)
    assert worse == [
        f"generic heading_recall regressed 0.9950 -> 0.9820 (more than {TOLERANCE} vs fixtures/baseline.json)"
    ]


def test_extractor_errors_fail_the_gate() -> None:
    assert check(replace(GOOD, errors=2), None) == ["the extractor raised on 2 of 20 pages (scored as empty)"]


def test_gate_scores_a_real_extractor_and_writes_a_baseline(tmp_path: Path) -> None:
    # readability-lxml stands in for docmunch: the same code path, real pages, real oracle.
    path = tmp_path / "baseline.json"
    outcome = run_gate(extractor="readability-lxml", baseline_path=path)
    assert outcome.summary.pages == 20
    assert outcome.baseline is None
    assert outcome.summary.token_similarity > 0.9
    write_baseline(outcome, path)
    doc = read_baseline(path)
    assert doc == baseline_document(outcome)
    assert doc is not None
    assert set(doc["per_page"]) == {r.page.name for r in outcome.results}
    again = run_gate(extractor="readability-lxml", baseline_path=path)
    assert again.baseline == doc
    assert not [f for f in again.failures if "regressed" in f]


def test_cli_exit_codes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # readability-lxml's titles differ from Readability.js's on this set: the title floor fails.
    assert main(["gate", "--extractor", "readability-lxml"]) == 1
    out = capsys.readouterr().out
    assert "gate FAILED" in out
    assert "title_accuracy" in out
    monkeypatch.setenv("DOCMUNCH_FIXTURES", str(tmp_path / "nowhere"))
    assert main(["gate"]) == 2
    assert "fixtures folder" in capsys.readouterr().err


def test_committed_baseline_is_docmunch_on_the_gate_set() -> None:
    doc = read_baseline()
    assert doc is not None, "fixtures/baseline.json missing: run `make baseline`"
    assert (doc["extractor"], doc["reference"], doc["pages"]) == ("docmunch", "oracle", 20)
    assert tuple(doc["per_page"]) == GATE_PAGES
    assert set(doc["metrics"]) == set(GATED)
    generic = doc["generic"]
    assert (generic["extractor"], generic["reference"], generic["pages"]) == ("docmunch-generic", "truth", 62)
    assert set(generic["metrics"]) == set(GENERIC_GATED) and generic["leak_pages"] == 0
