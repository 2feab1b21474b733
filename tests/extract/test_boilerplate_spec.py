"""Spec-style fixtures for article boilerplate (``fixtures/boilerplate.txt``, hand-written pages).

Format (as ``tests/convert/fixtures``, after markdown-it-py's fixture files): a title line, ``.``,
the input HTML, ``.``, the expectations, ``.``. The input is a fragment of an article body; the
test puts it after :data:`LEAD` (four paragraphs of article text, so the generic scorer picks
the article) inside ``<body><div class="story">…</div></body>``, unless the input is a whole
page (starts with ``<!DOCTYPE`` or ``<html``). Expectation lines: ``+ text`` must occur in
``Article.text`` and ``- text`` must not (whitespace-normalised substring, as the articles
benchmark scores); ``= N img`` checks the number of ``<img>`` left in the content. A failure names
the file and line of the case.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docmunch.extract import extract

FIXTURES = Path(__file__).parent / "fixtures"
LEAD = "".join(
    f"<p>Paragraph {i} of the reported story goes on, with clauses, details and quotes, and it has "
    f"enough words and commas to score as the article's own text for the extractor.</p>"
    for i in range(4)
)
_SPACE = re.compile(r"\s+")


def read_cases(path: Path) -> list[tuple[int, str, str, str]]:
    """(line of the title, title, input, expectations) for each case in ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cases: list[tuple[int, str, str, str]] = []
    section, last, title_line = 0, 0, 0
    current: list[str] = []
    for index, line in enumerate(lines):
        if line.rstrip("\n") != ".":
            continue
        if section == 0:
            title_line = index
            current = [lines[index - 1].strip()]
        else:
            current.append("".join(lines[last + 1 : index]))
        if section == 2:
            cases.append((title_line, current[0], current[1], current[2]))
        section = (section + 1) % 3
        last = index
    return cases


def _page(fragment: str) -> str:
    if fragment.lstrip().lower().startswith(("<!doctype", "<html")):
        return fragment
    return (
        "<!DOCTYPE html><html lang='en'><head><title>The reported story of the day</title></head>"
        f"<body><div class='story'>{LEAD}{fragment}</div></body></html>"
    )


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


CASES = read_cases(FIXTURES / "boilerplate.txt")


def test_fixture_file_has_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize(
    ("html", "expectations"),
    [pytest.param(html, exp, id=f"boilerplate.txt:{line} {title}") for line, title, html, exp in CASES],
)
def test_fixture(html: str, expectations: str) -> None:
    article = extract(_page(html), url="https://news.example.org/2026/story.html")
    text = _norm(article.text)
    for line in expectations.splitlines():
        if not line.strip():
            continue
        kind, value = line[0], _norm(line[1:])
        if kind == "+":
            assert value in text, f"missing {value!r} in {text!r}"
        elif kind == "-":
            assert value not in text, f"boilerplate {value!r} kept in {text!r}"
        elif kind == "=":
            count, tag = value.split()
            assert sum(1 for _ in article.content.iter(tag)) == int(count), f"expected {count} <{tag}>"
        else:
            raise AssertionError(f"bad expectation line {line!r}")
