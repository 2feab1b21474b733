"""Spec-style fixtures for the Markdown sectioner (format: tests/section/fixtures/README.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from docmunch.section import split_markdown

from .checks import check_invariants

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Case:
    file: str
    line: int
    title: str
    data: bytes
    expected: tuple[str, ...]


def _unescape(text: str) -> bytes:
    text = text.replace("¶\n", "").replace("\\r", "\r").replace("\\t", "\t").replace("\\ufeff", "\ufeff")
    return text.encode("utf-8")


def read_cases(path: Path) -> list[Case]:
    """Parse ``title / . / input / . / expected / .`` blocks (blank lines between blocks)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        title, start = lines[i], i + 1
        if lines[i + 1] != ".":
            raise ValueError(f"{path.name}:{i + 2}: expected '.' after the title line")
        j = i + 2
        while lines[j] != ".":
            j += 1
        k = j + 1
        while lines[k] != ".":
            k += 1
        body = "".join(line + "\n" for line in lines[i + 2 : j])
        cases.append(Case(path.name, start, title, _unescape(body), tuple(lines[j + 1 : k])))
        i = k + 1
    return cases


ALL_CASES = [case for path in sorted(FIXTURES.glob("*.md")) if path.name != "README.md"
             for case in read_cases(path)]


def test_fixture_files_found() -> None:
    assert len(ALL_CASES) >= 40
    topics = {case.file for case in ALL_CASES}
    assert {"atx.md", "setext.md", "fences.md", "html.md", "front-matter.md", "encoding.md",
            "templates.md", "admonitions.md", "html-headings.md"} <= topics


@pytest.mark.parametrize("case", ALL_CASES, ids=[f"{c.file}:{c.line}:{c.title}" for c in ALL_CASES])
def test_fixture(case: Case) -> None:
    doc = split_markdown(case.data, repo="r", doc_path="doc.md")
    check_invariants(doc, case.data)
    expected_rows = [line for line in case.expected if not line.startswith("@")]
    got_rows = [
        f"{s.level}|{s.id.split('::')[2].rsplit('#', 1)[0]}|{s.title}|{s.byte_start}|{s.byte_end}"
        for s in doc.sections
    ]
    assert got_rows == [_core(row) for row in expected_rows], f"{case.file}:{case.line} {case.title}"
    for section, row in zip(doc.sections, expected_rows, strict=True):
        for key, value in _extras(row).items():
            got = getattr(section, key)
            want: object = int(value) if key in {"line", "subtree_end"} else value
            assert got == want, f"{case.file}:{case.line} {section.id} {key}: {got!r} != {want!r}"
    for line in case.expected:
        if line.startswith("@"):
            key, _, value = line[1:].partition("=")
            if key == "title":
                assert doc.title == (None if value == "None" else value)
            elif key == "body_start":
                assert doc.body_start == int(value)
            elif key == "front_matter":
                assert doc.front_matter == json.loads(value)
            else:
                raise ValueError(f"{case.file}:{case.line}: unknown document key {key!r}")


def _core(row: str) -> str:
    return "|".join(row.split("|")[:5])


def _extras(row: str) -> dict[str, str]:
    extras = {}
    for part in row.split("|")[5:]:
        key, sep, value = part.partition("=")
        if not sep or key not in {"anchor", "summary", "line", "subtree_end"}:
            raise ValueError(f"bad expected field {part!r}")
        extras[key] = value
    return extras
