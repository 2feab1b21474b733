"""Spec-style extraction fixtures: ``spec/<topic>.txt``, one case per title / page / outcome.

Format (as the converter's fixtures and markdown-it-py's): a title line, ``.``, a whole HTML
page, ``.``, the expected outcome, ``.``. The outcome is a ``platform: NAME`` line, a blank
line, then the Markdown of the extracted content (``html_to_markdown(extract(page).content)``),
so a case shows at once what was kept, what was dropped, and how headings, code and blocks came
out. A failure names the file and the line of the case.

The pages are small but realistic imitations, written for these tests, of generators and
themes that are *not* among the real fixture sites (Hugo/Docsy, Jekyll just-the-docs,
GitBook, Antora, Nextra, Starlight, pdoc, rustdoc, Javadoc, Sphinx book theme, mdBook, plain
blogs); each topic file covers one behaviour of issue 11 (title, code, gutters, link grids,
heading anchors, blocks and tabs, math and images, detection).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.convert import html_to_markdown
from docmunch.extract import extract
from tests.convert.test_fixtures import read_cases

SPEC = Path(__file__).parent / "spec"
TOPICS = ("title", "code", "gutters", "link_grids", "anchors", "blocks", "math_images", "detection")
URL = "https://docs.example.org/guide/page.html"


def outcome(html: str) -> str:
    """``platform: NAME``, a blank line, then the Markdown of the extracted content."""
    article = extract(html, url=URL)
    return f"platform: {article.platform}\n\n" + html_to_markdown(article.content, base_url=URL)


def _params() -> list[object]:
    params: list[object] = []
    for topic in TOPICS:
        for line, title, html, expected in read_cases(SPEC / f"{topic}.txt"):
            params.append(pytest.param(html, expected, id=f"{topic}.txt:{line} {title}"))
    return params


def test_every_topic_has_cases() -> None:
    for topic in TOPICS:
        assert len(read_cases(SPEC / f"{topic}.txt")) >= 3, topic


@pytest.mark.parametrize(("html", "expected"), _params())
def test_fixture(html: str, expected: str) -> None:
    assert outcome(html) == expected
