"""An unknown repo over a real stdio MCP session: the tool error suggests the stored names."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(120)


def test_unknown_repo_errors_suggest_near_names(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Index.open(home) as index:
        for name in ("k8s-en", "k8s-zh", "rust"):
            folder = tmp_path / name
            folder.mkdir()
            (folder / "a.md").write_text(f"# {name}\n\nScheduler threads.\n", encoding="utf-8")
            index.index_path(folder, repo=name)

    async def scenario() -> None:
        async with connect(home, "auto") as client:
            for tool, args, said in (
                ("search_sections", {"repo": "k8s", "query": "threads"}, "(did you mean k8s-en, k8s-zh?)"),
                ("search_sections", {"repo": "RUST", "query": "threads"}, "(did you mean rust?)"),
                ("get_toc", {"repo": "rust "}, "(did you mean rust?)"),
                ("verify_index", {"repo": "k8s-eN"}, "did you mean k8s-en"),
            ):
                result = await client.call_tool(tool, args)
                assert result.is_error and said in text_of(result), (tool, args, text_of(result))
            far = await client.call_tool("search_sections", {"repo": "python", "query": "threads"})
            assert far.is_error and "did you mean" not in text_of(far)

    anyio.run(scenario)
