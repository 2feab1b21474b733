"""An encrypted PDF over a real stdio MCP session: the index report's per-file error tells the
agent how the user can index it (a terminal, ``--password-stdin``), not the CLI flags the core's
message names, which no tool takes."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from docmunch.serve._hints import PASSWORD_HINT
from tests.serve.conftest import connect

pytestmark = pytest.mark.timeout(120)


def test_index_local_on_an_encrypted_pdf_names_the_terminal_command(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    shutil.copy(fixtures_dir / "office" / "pdf" / "password-example.pdf", folder / "locked.pdf")
    (folder / "open.md").write_text("# Open\n\nopen words\n", encoding="utf-8")

    async def scenario() -> None:
        async with connect(tmp_path / "home", "auto") as client:
            result = await client.call_tool("index_local", {"path": str(folder)})
            assert not result.is_error
            report = result.structured_content
            assert report["docs_indexed"] == 1
            assert report["errors"] == [{"path": "locked.pdf", "error": f"encrypted PDF; {PASSWORD_HINT}"}]

    anyio.run(scenario)
