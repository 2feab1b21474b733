"""Spec-style converter fixtures: ``fixtures/<topic>.txt``, one case per title / HTML / Markdown.

Format (as markdown-it-py's fixture files): a title line, ``.``, the input HTML, ``.``, the
expected Markdown, ``.``. A failure names the file and the line of the case. Every expected
output is also checked to parse back with markdown-it-py without losing its structure rules
(ends with one newline, no trailing spaces outside code, at most one blank line in a row).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.convert import html_to_markdown

FIXTURES = Path(__file__).parent / "fixtures"
TOPICS = (
    "code",
    "inline_code",
    "lists",
    "tables",
    "links_images",
    "headings",
    "math",
    "escaping",
    "blocks",
    "whitespace",
)


def read_cases(path: Path) -> list[tuple[int, str, str, str]]:
    """(line number of the title, title, input, expected) for each case in ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cases: list[tuple[int, str, str, str]] = []
    section = 0
    last = 0
    current: list[str] = []
    title_line = 0
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


def _params() -> list[object]:
    params: list[object] = []
    for topic in TOPICS:
        path = FIXTURES / f"{topic}.txt"
        for line, title, html, expected in read_cases(path):
            params.append(pytest.param(html, expected, id=f"{topic}.txt:{line} {title}"))
    return params


def test_every_topic_has_cases() -> None:
    for topic in TOPICS:
        assert len(read_cases(FIXTURES / f"{topic}.txt")) >= 5, topic


@pytest.mark.parametrize(("html", "expected"), _params())
def test_fixture(html: str, expected: str) -> None:
    assert html_to_markdown(html) == expected


@pytest.mark.parametrize(("html", "expected"), _params())
def test_output_shape(html: str, expected: str) -> None:
    markdown = html_to_markdown(html)
    if not markdown:
        return
    assert markdown.endswith("\n") and not markdown.endswith("\n\n")
    fenced = False
    blank_run = 0
    for line in markdown.split("\n")[:-1]:
        stripped = line.lstrip(" >")
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        if fenced:
            continue
        assert line == line.rstrip(), f"trailing whitespace in {line!r}"
        blank_run = blank_run + 1 if not line.strip(" >") else 0
        assert blank_run <= 1, "two blank lines in a row"
