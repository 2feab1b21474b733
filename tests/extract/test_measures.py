"""Fast measures equal the slow definitions they replace; the page budget's knobs.

Case-folded patterns (:class:`FoldedPattern`) must answer exactly as the ``re.IGNORECASE``
compile of the same pattern, on the class names, ids and texts of real pages and on hypothesis
text with the letters whose case folding is special.

``inner_length`` (``str.split``) must equal ``len(inner_text)`` (Readability's regular
expression), and ``link_lengths`` (one pass) must give every element the link density
``link_density`` computes for it alone — on every element of real pages and on hypothesis
text, whitespace of every kind included.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docmunch.errors import PageTooComplex
from docmunch.extract import _dom as dom
from docmunch.extract import _prep, _weights, page_budget, parse_html
from docmunch.extract._boilerplate import by_class, captions, lines, orphans
from docmunch.extract._budget import BUDGET_ENV, PAGE_CPU_SECONDS, budget_seconds, check_budget
from docmunch.extract._clean import attributes, conditional, unconditional
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._parse import _clean_text
from docmunch.extract._readability import walk


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


def _folded_patterns() -> list[FoldedPattern]:
    found = [
        value
        for module in (by_class, captions, lines, orphans, conditional, unconditional, _prep, walk, _weights)
        for value in vars(module).values()
        if isinstance(value, FoldedPattern)
    ]
    assert len(found) >= 20
    return found


def _names_on_pages(root: Path) -> list[str]:
    names: set[str] = set()
    for path in _pages(root):
        for el in parse_html(path.read_bytes()).iter():
            names.add(f"{el.get('class') or ''} {el.get('id') or ''}")
            names.update((el.get("class") or "").split())
            names.add(dom.inner_text(el)[:80])
    return sorted(names)


def test_folded_patterns_answer_like_ignorecase_on_real_names(fixtures_dir: Path) -> None:
    names = _names_on_pages(fixtures_dir)
    assert len(names) > 1000
    for folded in _folded_patterns():
        slow = re.compile(folded.pattern, re.IGNORECASE)
        for name in names:
            assert folded.found_in(name) == (slow.search(name) is not None), (folded.pattern, name)
            assert folded.starts(name) == (slow.match(name) is not None), (folded.pattern, name)


# letters whose case folding is special (ſ ~ s, K ~ k, İ/ı ~ i), plus the patterns' own words
_TRICKY = st.sampled_from(
    ["ſ", "\u212a", "İ", "ı", "É", "é", "ß", "SHARE", "Comment", "Sidebar", "-Ad-", "Foto:", " "]
)


@given(st.lists(st.one_of(_TRICKY, st.text(max_size=4)), max_size=12))
def test_folded_patterns_answer_like_ignorecase_on_any_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    for folded in _folded_patterns():
        slow = re.compile(folded.pattern, re.IGNORECASE)
        assert folded.found_in(text) == (slow.search(text) is not None), (folded.pattern, text)
        assert folded.starts(text) == (slow.match(text) is not None), (folded.pattern, text)


@pytest.mark.parametrize("pattern", [r"sourceCode", r"[A-Z]+", "\u017fhare", "\u212aey"])
def test_folded_pattern_refuses_what_lower_casing_would_break(pattern: str) -> None:
    with pytest.raises(ValueError):
        FoldedPattern(pattern)


def test_folded_pattern_keeps_escapes_and_other_scripts() -> None:
    assert FoldedPattern(r"lang-\S+").starts("LANG-Python")
    assert FoldedPattern(r"\bad\b").found_in("An AD here")
    assert FoldedPattern(r"реклама").found_in("РЕКЛАМА")  # non-ASCII text: the IGNORECASE compile


def test_presentational_attributes_go_except_on_svg() -> None:
    root = parse_html(
        '<div style="color:red" align="center" data-x="1"><table width="9" border="1"><tr>'
        '<td height="3" valign="top">a</td></tr></table><img width="5" height="6" style="x">'
        '<svg width="7" style="y"><rect width="8" style="z"></rect></svg><pre width="2">c</pre></div>'
    ).find("body/div")
    assert root is not None
    attributes.clean_styles(root)
    assert dict(root.attrib) == {"data-x": "1"}
    assert [dict(el.attrib) for el in root.iterdescendants()] == [
        {},  # table: width and border go
        {},  # tbody (added by the parser)
        {},  # tr
        {},  # td: height and valign go
        {"width": "5", "height": "6"},  # an image keeps its size
        {"width": "7", "style": "y"},  # the <svg> element keeps its attributes
        {"width": "8"},  # inside it, only the presentational ones go
        {},  # pre
    ]


def test_share_candidates_match_class_or_id_in_any_case() -> None:
    root = parse_html(
        '<div><p class="SHARE-bar">a</p><p id="xShArEx">b</p><p class="sha re">c</p>'
        '<p class="ſhare">d</p><p data-share="1">e</p><span class="a" id="share">f</span></div>'
    ).find("body/div")
    assert root is not None
    assert [el.text for el in unconditional._share_candidates(root)] == ["a", "b", "f"]
