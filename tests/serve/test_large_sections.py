"""A section larger than the response ceiling, over a real stdio MCP session: ``get_section``
cuts it with ``next_offset`` and reads on from ``offset``; ``get_section_context`` returns it
cut the same way instead of no section at all (a user trial: a 1.8 MB changelog section could
not be read past its first 524 KB, and ``get_section_context`` answered only a message)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(180)

CEILING = 65_536


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("large-sections")
    docs = root / "docs"
    docs.mkdir()
    lines = "".join(f"- fixed bug {i} in the café's naïve résumé parser ✓\n" for i in range(6000))
    (docs / "CHANGELOG.md").write_text(f"# Changelog\n\n{lines}\n## Older\n\nNothing.\n", encoding="utf-8")
    with Index.open(root / "home") as index:
        index.index_path(docs, repo="log")
    return root / "home"


def _section_bytes(home: Path) -> tuple[str, bytes]:
    with Index.open(home) as index:
        first = index.toc("log", "CHANGELOG.md")[0]
        read = index.get_section("log", first.id)
    return first.id, read.content.encode("utf-8")


def test_get_section_reads_on_from_next_offset_to_the_exact_bytes(home: Path) -> None:
    section_id, whole = _section_bytes(home)
    assert len(whole) > 4 * CEILING

    async def scenario() -> list[dict[str, Any]]:
        pages: list[dict[str, Any]] = []
        async with connect(home, "auto", DOCMUNCH_MAX_RESPONSE_BYTES=str(CEILING)) as client:
            args: dict[str, Any] = {"section_id": section_id}
            while True:
                result = await client.call_tool("get_section", args)
                assert not result.is_error, text_of(result)
                pages.append(result.structured_content)
                if not result.structured_content.get("truncated"):
                    return pages
                args = {"section_id": section_id, "offset": result.structured_content["next_offset"]}

    pages = anyio.run(scenario)
    assert len(pages) > 4
    joined = "".join(page["content"] for page in pages).encode("utf-8")
    assert joined == whole
    assert hashlib.sha256(joined).hexdigest() == pages[0]["content_hash"]
    assert [page.get("offset", 0) for page in pages[1:]] == [page["next_offset"] for page in pages[:-1]]


def test_get_section_context_cuts_the_section_instead_of_dropping_it(home: Path) -> None:
    section_id, whole = _section_bytes(home)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], Any]:
        async with connect(home, "auto", DOCMUNCH_MAX_RESPONSE_BYTES=str(CEILING)) as client:
            context = await client.call_tool("get_section_context", {"section_id": section_id})
            assert not context.is_error, text_of(context)
            section = context.structured_content["section"]
            rest = await client.call_tool(
                "get_section", {"section_id": section_id, "offset": section["next_offset"]}
            )
            past = await client.call_tool("get_section", {"section_id": section_id, "offset": len(whole) + 1})
            return context.structured_content, rest.structured_content, past

    context, rest, past = anyio.run(scenario)
    assert context["truncated"] is True and context["following"] == []
    section = context["section"]
    assert section["truncated"] is True and section["content"]
    assert whole.startswith(section["content"].encode("utf-8"))
    assert section["next_offset"] == len(section["content"].encode("utf-8"))
    assert whole[section["next_offset"] :].startswith(rest["content"].encode("utf-8"))
    assert past.is_error and "past the end of the section" in text_of(past)


def test_an_offset_inside_a_character_starts_at_the_next_one(home: Path) -> None:
    section_id, whole = _section_bytes(home)
    inside = whole.index("é".encode()) + 1  # the second byte of a two-byte character

    async def scenario() -> dict[str, Any]:
        async with connect(home, "auto") as client:
            result = await client.call_tool("get_section", {"section_id": section_id, "offset": inside})
            assert not result.is_error, text_of(result)
            return result.structured_content

    page = anyio.run(scenario)
    assert page["offset"] == inside + 1
    assert page["content"].encode("utf-8") == whole[inside + 1 :]


def test_get_sections_names_what_the_ceiling_left_out(home: Path) -> None:
    """A batch over the ceiling names the ids it did not return, and a first section too large
    on its own comes back cut rather than dropped with every id after it (a second trial)."""
    big, whole = _section_bytes(home)
    with Index.open(home) as index:
        small = index.toc("log", "CHANGELOG.md")[1].id

    async def scenario() -> list[Any]:
        async with connect(home, "auto", DOCMUNCH_MAX_RESPONSE_BYTES=str(CEILING)) as client:
            return [
                await client.call_tool("get_sections", {"section_ids": ids})
                for ids in ([big, small], [small, big])
            ]

    first_big, first_small = anyio.run(scenario)
    answer = first_big.structured_content
    assert answer["truncated"] is True and answer["not_returned"] == [small]
    (cut,) = answer["sections"]
    assert cut["id"] == big and cut["truncated"] is True and cut["content"]
    assert whole.startswith(cut["content"].encode("utf-8"))
    assert cut["next_offset"] == len(cut["content"].encode("utf-8"))
    answer = first_small.structured_content
    assert [s["id"] for s in answer["sections"]] == [small] and answer["not_returned"] == [big]
    assert first_small.meta is not None and first_small.meta["sections_returned"] == 1
