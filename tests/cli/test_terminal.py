"""``terminal.printable``, the one escaping of control codes: documents' text (default) and the
progress line (``strict=True``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.terminal import printable


def test_default_escapes_what_breaks_or_restyles_a_line_and_keeps_other_text() -> None:
    assert printable("a\nb\x1b[31mc\u202ed\u2028e\ud800") == "a\\nb\\x1b[31mc\\u202ed\\u2028e\\ud800"
    assert printable("line\n\tcode\r", keep="\n\t") == "line\n\tcode\\r"
    kept = "non\u00a0breaking, zero\u200bwidth, 全角\u3000空格, \U000e0001"
    assert printable(kept) == kept


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_strict_escapes_every_unprintable_character_as_unicode_escape_spells_it(text: str) -> None:
    expected = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    assert printable(text, strict=True) == expected
    assert printable(text, strict=True).isprintable()
