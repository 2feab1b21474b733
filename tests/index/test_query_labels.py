"""The labels of the query files written for docmunch point at real heading sections.

Every row of ``fixtures/queries/keywords.jsonl``, ``questions-validation.jsonl`` and
``questions-unseen-corpus.jsonl``: its
``line`` (and every ``also`` line) starts a section that docmunch's own sectioning finds in the
corpus file, and the line's text is the ATX heading the row names. The validation questions
must also stay apart from the dev set: no target (or ``also``) section of theirs is a dev
target, or the set would not check what the dev set does not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from docmunch.section import split_markdown

QUERIES = Path(__file__).resolve().parents[2] / "fixtures" / "queries"
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t\r]*$")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _labels(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [row, *row.get("also", ())]


@pytest.mark.parametrize(
    "name", ["keywords.jsonl", "questions-validation.jsonl", "questions-unseen-corpus.jsonl"]
)
def test_every_label_is_a_heading_section(fixtures_dir: Path, name: str) -> None:
    starts: dict[Path, set[int]] = {}
    for row in _rows(QUERIES / name):
        for label in _labels(row):
            file = fixtures_dir / "corpora" / row["corpus"] / label["doc_path"]
            data = file.read_bytes()
            if file not in starts:
                parsed = split_markdown(data, repo=row["corpus"], doc_path=label["doc_path"])
                starts[file] = {s.byte_start for s in parsed.sections}
            lines = data.split(b"\n")
            offset = sum(len(line) + 1 for line in lines[: label["line"] - 1])
            assert offset in starts[file], f"{name}: {row['query']!r}: line {label['line']} starts no section"
            heading = _ATX.match(lines[label["line"] - 1].decode("utf-8"))
            assert heading is not None and heading.group(2) == label["heading"], (name, row["query"])


def test_validation_questions_target_no_dev_section(fixtures_dir: Path) -> None:
    dev = _rows(fixtures_dir / "queries" / "nl-questions-dev.jsonl")
    taken = {(row["corpus"], label["doc_path"], label["line"]) for row in dev for label in _labels(row)}
    rows = _rows(QUERIES / "questions-validation.jsonl")
    assert len(rows) == 90 and len({row["query"] for row in rows}) == 90
    for row in rows:
        for label in _labels(row):
            assert (row["corpus"], label["doc_path"], label["line"]) not in taken, row["query"]



def test_unseen_corpus_questions_are_questions_on_one_corpus() -> None:
    rows = _rows(QUERIES / "questions-unseen-corpus.jsonl")
    assert len(rows) == 40 and len({row["query"] for row in rows}) == 40
    assert {row["corpus"] for row in rows} == {"ms-virt-api"}
    assert all(4 <= len(row["query"].split()) <= 20 for row in rows)
