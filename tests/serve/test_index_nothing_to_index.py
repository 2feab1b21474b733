"""``index_local`` over a real stdio MCP session on a folder with no file of a known format:
a tool error naming the suffixes for a new repo; for a repo whose folder became empty, a
result that says its documents were removed. A folder whose every file was skipped (too large,
binary) is a tool error that leaves an existing repo whole."""

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


def test_index_local_when_every_file_is_skipped(tmp_path: Path) -> None:
    from docmunch.serve._hints import MAX_FILE_BYTES_HINT

    big = tmp_path / "big"
    big.mkdir()
    (big / "huge.md").write_bytes(b"# Huge\n\n" + b"word " * (2**20 + 1))  # over the 5 MiB cap
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nalpha words\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path / "home", "auto") as client:
            refused = await client.call_tool("index_local", {"path": str(big)})
            message = text_of(refused)
            assert refused.is_error
            assert message == (
                f"nothing to index in {big.resolve()}: every file of a known format was skipped "
                f"(1 file: larger than {5 * 2**20} bytes 1); {MAX_FILE_BYTES_HINT}; no repo was created"
            )
            assert "big" not in json.dumps((await client.call_tool("list_repos", {})).structured_content)

            first = await client.call_tool("index_local", {"path": str(docs)})
            assert not first.is_error and first.structured_content["docs_indexed"] == 1
            (docs / "a.md").write_bytes(b"# Alpha\n\x00 now binary\n")
            skipped = await client.call_tool("index_local", {"path": str(docs)})
            assert skipped.is_error
            assert text_of(skipped) == (
                f"nothing to index in {docs.resolve()}: every file of a known format was skipped "
                "(1 file: binary content (NUL byte) 1); repo 'docs' is unchanged"
            )
            listed = await client.call_tool("list_docs", {"repo": "docs"})
            assert "a.md" in json.dumps(listed.structured_content)  # still indexed
            found = await client.call_tool("search_sections", {"query": "alpha", "repo": "docs"})
            assert "docs::a.md::alpha#1" in json.dumps(found.structured_content)

    anyio.run(scenario)
