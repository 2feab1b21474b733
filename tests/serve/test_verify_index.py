"""``verify_index`` over a real stdio MCP session: its description, and docs/mcp.md, name every
key its answer has (an agent reads the shape from the description, a person from the docs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import REPO_ROOT, connect

pytestmark = pytest.mark.timeout(180)

GUIDE = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Use\n\nUse it.\n"


def _keys(answer: dict[str, Any]) -> set[str]:
    """Every key of the answer and of its mismatches."""
    keys = set(answer)
    for mismatch in answer["mismatches"]:
        keys |= set(mismatch)
    return keys


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


def test_the_description_and_the_docs_name_every_key_of_the_answer(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    (docs / "notes.md").write_text("# Notes\n\nA first note.\n", encoding="utf-8")
    with Index.open(tmp_path / "home") as index:
        index.index_path(docs, repo="d")
    (docs / "guide.md").write_text(GUIDE.replace("installer", "INSTALLER"), encoding="utf-8")  # changed
    (docs / "notes.md").write_text("# No", encoding="utf-8")  # shorter: `actual` is null

    async def scenario() -> tuple[str, dict[str, Any]]:
        async with connect(tmp_path / "home") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool("verify_index", {"repo": "d"})
            assert not result.is_error
            description = tools["verify_index"].description
            assert description is not None
            return description, result.structured_content

    description, answer = anyio.run(scenario)
    assert answer["ok"] is False
    mismatches = answer["mismatches"]
    assert {m["where"] for m in mismatches} == {"original"}
    assert any(m["actual"] is None for m in mismatches) and any(m["actual"] for m in mismatches)
    assert all(m["reason"] for m in mismatches)
    keys = _keys(answer)
    assert keys >= {"repo", "sections_checked", "ok", "mismatches", "id", "doc_path", "expected"}
    assert keys >= {"actual", "reason", "where"}
    assert keys <= _words(description), keys - _words(description)
    row = next(
        line for line in (REPO_ROOT / "docs" / "mcp.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `verify_index(")
    )  # fmt: skip
    assert keys <= _words(row), keys - _words(row)
