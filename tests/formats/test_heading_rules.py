"""The shared heading vetoes of DOCX and PDF inference (:mod:`docmunch.formats.heading_rules`):
one row per case, so a failure names the text."""

from __future__ import annotations

import pytest

from docmunch.formats.heading_rules import is_continuation, vetoed_text

CONTINUATIONS = [
    "ESTIMATED COSTS—Continued",  # Federal Register table caption on its second page
    "ESTIMATED COSTS – CONTINUED",
    "Table 2 (continued)",
    "Results (Cont.)",
    "Results [cont'd]",
    "Results (cont’d)",
    "Part 2 - contd",
    "Results, continued",
    "Continued",
    "CONTINUED",
    "(Continued) Table 3",
    "Continued from page 4",
    "Continued on next page",
]
"""Marked as going on with an earlier heading or caption: never a heading."""

HEADINGS = [
    "To Be Continued",  # a chapter title: a bare trailing word is no mark
    "Continued Fractions",
    "Continued education credits",
    "Discontinued features",
    "Continuous integration",
    "Contents",
    "Cont",
    "Results (contract)",
    "Estimated Costs",
]
"""Ordinary heading texts that merely contain the letters."""


@pytest.mark.parametrize("text", CONTINUATIONS)
def test_a_continuation_mark_vetoes_a_heading(text: str) -> None:
    assert is_continuation(text) and vetoed_text(text)


@pytest.mark.parametrize("text", HEADINGS)
def test_other_texts_stay_candidates(text: str) -> None:
    assert not is_continuation(text) and not vetoed_text(text)
