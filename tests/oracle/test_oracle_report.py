"""The report: JSON with every number, and an offline HTML page that renders and sorts in Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle.report import write_report
from oracle.report_html import word_diff
from oracle.runner import CHROMIUM

pytestmark = pytest.mark.browser


def test_word_diff_marks_only_changed_words() -> None:
    left, right = word_diff("menu a b c <x>", "a b c d")
    assert left == "<del>menu</del> a b c <del>&lt;x&gt;</del>"
    assert right == "a b c <ins>d</ins>"
    long_left, _ = word_diff(" ".join(f"w{i}" for i in range(100)), " ".join(f"w{i}" for i in range(100)))
    assert "[… 76 equal words …]" in long_left


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], Path]:
    out = tmp_path_factory.mktemp("report")
    doc, _ = write_report(json_path=out / "extraction.json", html_path=out / "extraction.html")
    return doc, out


def test_json_has_every_number(report: tuple[dict[str, object], Path]) -> None:
    doc, out = report
    saved = json.loads((out / "extraction.json").read_text(encoding="utf-8"))
    assert saved["oracle_version"] == doc["oracle_version"]
    assert len(saved["pages"]) == 122
    wide = saved["summary"]["wide"]
    assert set(wide) == {"docmunch", "docmunch-generic", "readability-lxml", "trafilatura", "oracle"}
    assert wide["oracle"]["expected"]["token_similarity"] > 0.99
    assert wide["trafilatura"]["truth"]["pages"] == 62
    generic = wide["docmunch-generic"]["truth"]  # the generic column: platform rules off
    assert generic["pages"] == 62 and isinstance(generic["leak_pages"], int)
    assert generic["f1"] > 0.9 and generic["heading_recall"] is not None
    assert saved["self_check"]["failing"] == sorted(saved["self_check"]["exceptions"])
    page = saved["pages"][0]
    assert {"title_match", "token_similarity", "noise_residue", "f1"} <= set(
        page["scores"]["oracle"]["expected"]
    )


def test_html_renders_offline_without_errors_and_sorts(report: tuple[dict[str, object], Path]) -> None:
    from playwright.sync_api import sync_playwright

    _, out = report
    url = (out / "extraction.html").as_uri()
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda req: requests.append(req.url))
        page.goto(url)
        assert page.title() == "docmunch extraction report"
        assert page.locator("#pages tbody tr").count() == 122
        names = "#pages tbody tr td:first-child"
        page.click("#pages th:first-child")
        ascending = page.locator(names).all_inner_texts()
        page.click("#pages th:first-child")
        descending = page.locator(names).all_inner_texts()
        page.click("#pages th:nth-child(9)")  # numeric column: rl sim
        sims = [float(v) for v in page.locator("#pages tbody tr td:nth-child(9)").evaluate_all(
            "cells => cells.map(c => c.dataset.v)")]  # fmt: skip
        browser.close()
    assert errors == []
    assert requests == [url]
    assert (ascending[0], ascending[-1]) == ("001", "wikipedia-4")
    assert descending == list(reversed(ascending))
    assert sims == sorted(sims)
