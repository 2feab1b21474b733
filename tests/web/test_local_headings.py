"""Spec-style fixtures for HTML headings indexed as local files: ids, titles, links.

Format (as ``tests/convert/fixtures``): a title line, ``.``, a whole HTML page, ``.``, the
expected outcome, ``.``. The page is written to ``page.html`` in a temporary folder and rendered
as a local file (:func:`docmunch.formats.html.render_html_file`), then sectioned. The outcome
is one line per heading section, ``level|slug_path|title|fragment`` (``fragment`` is the
locator URL's ``#…`` part, empty for none), then one ``link: URL`` line per link of the
rendition, in order, with the ``file://`` URL of the page's folder written as ``DIR``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docmunch.formats.html import render_html_file
from docmunch.section import split_markdown
from tests.convert.test_fixtures import read_cases

FIXTURES = Path(__file__).parent / "fixtures" / "local_headings.txt"
_LINK = re.compile(r"\]\(<?([^)\s>]+)")


def outcome(folder: Path, html: str) -> str:
    page = folder / "page.html"
    page.write_text(html, encoding="utf-8")
    rendition = render_html_file(page, page.read_bytes())
    folder_uri = folder.resolve().as_uri()
    lines: list[str] = []
    for section in split_markdown(rendition.markdown, repo="r", doc_path="page.html").sections:
        if section.level == 0:
            continue
        locator = rendition.locator_for(section.byte_start, section.byte_end, anchor=section.anchor)
        assert locator is not None  # a web page always has its URL
        url = locator["url"]
        slug_path = section.id.split("::")[2].rpartition("#")[0]
        lines.append(f"{section.level}|{slug_path}|{section.title}|{url.partition('#')[2]}")
    for link in _LINK.findall(rendition.markdown.decode("utf-8")):
        lines.append("link: " + link.replace(folder_uri, "DIR"))
    return "\n".join(lines) + "\n"


def test_there_are_cases() -> None:
    assert len(read_cases(FIXTURES)) >= 4


@pytest.mark.parametrize(
    ("html", "expected"),
    [pytest.param(html, want, id=f"{line} {title}") for line, title, html, want in read_cases(FIXTURES)],
)
def test_local_heading_case(tmp_path: Path, html: str, expected: str) -> None:
    assert outcome(tmp_path, html) == expected
