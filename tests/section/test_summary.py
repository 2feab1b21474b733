"""Summaries are the first sentence: abbreviations, initials, numbers and a stand-alone ``?`` or
``!`` (an operator the text is about) do not end one."""

from __future__ import annotations

import pytest

from docmunch.section.plain import first_sentence


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("Drain it (e.g. before maintenance). Then uncordon it.", "Drain it (e.g. before maintenance)."),
        ("Register / Vol. 85, No. 12 / Rules. More text.", "Register / Vol. 85, No. 12 / Rules."),
        ("See Fig. 3 for the layout. After that.", "See Fig. 3 for the layout."),
        ("J. Smith wrote the guide. Others edited it.", "J. Smith wrote the guide."),
        ("Versions 1.2 and 1.3 differ. Read on.", "Versions 1.2 and 1.3 differ."),
        ("It works! Really.", "It works!"),
        ("What is it? A tool.", "What is it?"),
        (
            "The ? operator can only be used where the ? fits. Then more.",
            "The ? operator can only be used where the ? fits.",
        ),
        ("Use the ! never type here. More.", "Use the ! never type here."),
        ("Macros like println! and vec! are used. Next.", "Macros like println! and vec! are used."),
        ("Add :? within {} placeholders. More.", "Add :? within {} placeholders."),
        ("Is it safe? Yes. It is.", "Is it safe?"),
        ("调度器挑选节点。然后绑定。", "调度器挑选节点。"),
        ("A sentence without an end", "A sentence without an end"),
        ("Ends at the end.", "Ends at the end."),
    ],
)
def test_first_sentence(text: str, summary: str) -> None:
    assert first_sentence(text) == summary


def test_a_long_sentence_is_cut_at_a_space_with_an_ellipsis() -> None:
    cut = first_sentence("word " * 100, limit=50)
    assert cut.endswith("…") and len(cut) <= 50 and not cut[:-1].endswith(" ")
