"""Fast measures equal the slow definitions they replace; the page budget's knobs.

``inner_length`` (``str.split``) must equal ``len(inner_text)`` (Readability's regular
expression), and ``link_lengths`` (one pass) must give every element the link density
``link_density`` computes for it alone — on every element of real pages and on hypothesis
text, whitespace of every kind included.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docmunch.errors import PageTooComplex
from docmunch.extract import _dom as dom
from docmunch.extract import page_budget, parse_html
from docmunch.extract._budget import BUDGET_ENV, PAGE_CPU_SECONDS, budget_seconds, check_budget
from docmunch.extract._parse import _clean_text


def _pages(root: Path) -> list[Path]:
    return sorted((root / "readability-test-pages").glob("*/source.html"))[:20] + sorted(
        (root / "docs-sites").glob("*/index.html")
    )


def test_fast_measures_match_their_definitions_on_real_pages(fixtures_dir: Path) -> None:
    checked = 0
    for path in _pages(fixtures_dir):
        body = parse_html(path.read_bytes()).find("body")
        assert body is not None
        links = dom.link_lengths(body)
        for el in body.iter():
            length = dom.inner_length(el)
            assert length == len(dom.inner_text(el)), (path, el.tag)
            expected = dom.link_density(el)
            got = links.get(el, 0.0) / length if length else 0.0
            assert got == expected, (path, el.tag)
            checked += 1
    assert checked > 10_000


_WHITESPACE = st.sampled_from([" ", "\n", "\t", "\r", "\xa0", "\u2003", "\u3000", "\u2028", "\x85"])


@given(st.lists(st.one_of(_WHITESPACE, st.text(min_size=1, max_size=5)), max_size=30))
def test_inner_length_equals_regex_normalisation(pieces: list[str]) -> None:
    root = parse_html("<p></p>").find("body/p")
    assert root is not None
    root.text = _clean_text("".join(pieces))  # as the parser stores it (no XML-forbidden chars)
    assert dom.inner_length(root) == len(dom.inner_text(root))


def test_budget_seconds_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    assert budget_seconds() == PAGE_CPU_SECONDS
    monkeypatch.setenv(BUDGET_ENV, "2.5")
    assert budget_seconds() == 2.5
    for bad in ("0", "-1", "soon", ""):
        monkeypatch.setenv(BUDGET_ENV, bad)
        assert budget_seconds() == PAGE_CPU_SECONDS


def test_check_budget_outside_a_budget_does_nothing_and_inner_budgets_defer() -> None:
    check_budget()  # no budget open: never raises
    with (
        pytest.raises(PageTooComplex) as caught,
        page_budget(url="https://example.org/outer", seconds=0.0),
        page_budget(url="https://example.org/inner", seconds=1000.0),  # the outer one counts
    ):
        for _ in range(1000):
            check_budget()
    assert caught.value.url == "https://example.org/outer"
