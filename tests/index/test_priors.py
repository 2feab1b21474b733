"""Section priors (:mod:`docmunch.index.priors`): spec cases from ``fixtures/priors.txt`` and
the short-prose rule's definition checked against random bodies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.index.priors import (
    LINK_ITEM_MAX_WORDS,
    MIN_CONTENT_WORDS,
    NON_CONTENT_PRIOR,
    PAGE_TITLE_PRIOR,
    content_prior,
    is_link_list,
    section_prior,
)

HERE = Path(__file__).parent / "fixtures"
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _cases() -> list[tuple[str, str, float]]:
    lines = (HERE / "priors.txt").read_text(encoding="utf-8").splitlines()
    cases: list[tuple[str, str, float]] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip() or lines[i].startswith("#"):
            i += 1
            continue
        title = lines[i]
        assert lines[i + 1] == ".", f"bad case {title!r}"
        end = lines.index(".", i + 2)
        body = "\n".join(lines[i + 2 : end])
        assert lines[end + 2] == ".", f"bad case {title!r}"
        cases.append((title, body, float(lines[end + 1])))
        i = end + 3
    return cases


CASES = _cases()


@pytest.mark.parametrize(("title", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_spec(title: str, body: str, expected: float) -> None:
    assert content_prior(body) == expected, title


def test_the_spec_covers_both_outcomes() -> None:
    assert {expected for _, _, expected in CASES} == {1.0, NON_CONTENT_PRIOR}
    assert len(CASES) >= 8


def test_item_length_bound() -> None:
    short = " ".join(["word"] * LINK_ITEM_MAX_WORDS)
    long = " ".join(["word"] * (LINK_ITEM_MAX_WORDS + 1))
    assert is_link_list(f"* [a](x) {short}\n* [b](y) {short}\n")
    assert not is_link_list(f"* [a](x) {long}\n* [b](y) {short}\n")


def test_page_title_prior_multiplies() -> None:
    prose = "one two three four five six seven eight nine"
    assert section_prior(prose, page_title=True) == PAGE_TITLE_PRIOR
    assert section_prior(prose, page_title=False) == 1.0
    assert section_prior("* [a](x)\n* [b](y)\n", page_title=True) == NON_CONTENT_PRIOR * PAGE_TITLE_PRIOR


_PRIOR_PIECES = [
    "word", "Pods", " ", "\n", "  ", "[", "]", "(", ")", "!", "{{", "}}", "<", ">", "%", ":", "[text](x.md)",
    "![alt](i.png)", "[ref]: https://x", "{{< note >}}", "{{% tab %}}", "<!-- c -->", "a_b", "é", "调度",
]


def _reference_prior(body: str) -> float:
    """The prior's definition, applied whole: comments, shortcodes, reference definitions and
    links removed, then the words counted."""
    text = _COMMENT.sub(" ", body)
    text = re.sub(r"\{\{[<%].*?[%>]\}\}", " ", text, flags=re.S)
    text = re.sub(r"^\s*\[[^\]]+\]:\s*\S+.*$", " ", text, flags=re.M)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", " ", text)
    return 1.0 if len(re.findall(r"\w+", text)) >= MIN_CONTENT_WORDS else NON_CONTENT_PRIOR


@given(st.lists(st.sampled_from(_PRIOR_PIECES), max_size=40))
@settings(max_examples=500, deadline=None)
def test_content_prior_follows_its_definition(pieces: list[str]) -> None:
    body = "".join(pieces)
    assert content_prior(body) == _reference_prior(body)


def test_content_prior_of_link_lists_and_prose() -> None:
    assert content_prior("[one](a.md) [two](b.md) [three](c.md) [four](d.md)\n- [five six seven](e)") == 0.5
    assert content_prior("{{< note >}} one two three four five six seven eight {{< /note >}}") == 1.0
    assert content_prior("one two three [four](x) five six seven") == 0.5
    assert content_prior("one two three four five six seven eight [nine](x)") == 1.0
