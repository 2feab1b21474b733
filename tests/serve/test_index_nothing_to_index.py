"""``index_local`` over a real stdio MCP session on a folder with no file of a known format:
a tool error naming the suffixes for a new repo; for a repo whose folder became empty, a
result that says its documents were removed."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(120)


def test_index_local_on_a_folder_without_known_files(tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "diagram.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nalpha words\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path / "home", "auto") as client:
            refused = await client.call_tool("index_local", {"path": str(shots), "name": "shots"})
            message = text_of(refused)
            assert refused.is_error
            assert message.startswith(f"nothing to index in {shots.resolve()}: no file of a known format (")
            assert ".md" in message and ".pdf" in message and message.endswith("1 skipped by type (.svg 1)")
            repos = await client.call_tool("list_repos", {})
            assert "shots" not in json.dumps(repos.structured_content)

            first = await client.call_tool("index_local", {"path": str(docs)})
            assert not first.is_error and first.structured_content["docs_indexed"] == 1
            (docs / "a.md").unlink()
            emptied = await client.call_tool("index_local", {"path": str(docs)})
            report = emptied.structured_content
            assert not emptied.is_error and report["docs_removed"] == 1 and report["sections"] == 0
            assert "removed its 1 documents" not in report["nothing_to_index"]
            assert report["nothing_to_index"].endswith(
                "looked at 0 files; removed its 1 document; repo 'docs' is kept with no document "
                "(delete it with docmunch delete docs; MCP: delete_index)"
            )

    anyio.run(scenario)
