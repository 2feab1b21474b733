"""Title properties (:mod:`docmunch.formats.titles`): a declared title, unless a placeholder."""

from __future__ import annotations

import pytest

from docmunch.formats.titles import title_property


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Art in Machine Learning", "Art in Machine Learning"),
        ("  傳染病通報作業流程 \n", "傳染病通報作業流程"),
        ("Duck\n  holidays", "Duck holidays"),
        ("Title 42 of the CFR", "Title 42 of the CFR"),
        (None, None),
        ("", None),
        ("   ", None),
        ("Untitled", None),
        ("TITLE", None),
        ("Microsoft Word - report.doc", None),
        ("scan_0001.pdf", None),
        ("{{title}}", None),
        ("{{ info.title }}", None),
        ("${title}", None),
        ("[Document title]", None),
        ("<title>", None),
        ("«Title»", None),
    ],
)
def test_title_property(value: str | None, expected: str | None) -> None:
    assert title_property(value) == expected
