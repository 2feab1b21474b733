"""The SDK's stdio client: tools take ``repo="name@version"``, ``list_repos`` returns versions,
and a repo imported from a pack built in another home is served like any other."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import connect, meta_of, text_of
from tests.versions.corpus import ADDED, CHANGED, EXCLUDE, NEW_TERM, OLD_SENTENCE, make_versions

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def homes(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(served home with rust-book@1 and @2 indexed, v1 tree); @2 arrives through a pack."""
    root = tmp_path_factory.mktemp("mcp-versions")
    v1, v2 = make_versions(fixtures_dir, root / "trees")
    builder, served = root / "builder", root / "served"
    with Index.open(builder) as index:  # "another machine": builds the pack
        index.index_path(v2, version="2", exclude=EXCLUDE)
        index.export_pack("rust-book@2", root / "v2.dmpack")
    with Index.open(served) as index:
        index.index_path(v1, version="1", exclude=EXCLUDE)
        index.import_pack(root / "v2.dmpack")
    return served, v1


def test_versions_over_mcp(homes: tuple[Path, Path]) -> None:
    served, v1 = homes

    async def scenario() -> None:
        async with connect(served) as client:
            assert "NAME@VERSION" in (client.instructions or "")
            listing = (await client.call_tool("list_repos", {})).structured_content
            (group,) = listing["repos"]
            assert group["repo"] == "rust-book" and group["default"] == "rust-book@2"
            assert [(v["repo"], v["version"], v["default"]) for v in group["versions"]] == [
                ("rust-book@2", "2", True),
                ("rust-book@1", "1", False),
            ]

            bare = await client.call_tool("search_sections", {"repo": "rust-book", "query": NEW_TERM})
            assert not bare.is_error, text_of(bare)
            hits = bare.structured_content["results"]
            assert hits and {h["repo"] for h in hits} == {"rust-book@2"}
            assert any(h["doc_path"] == ADDED for h in hits)
            assert meta_of(bare)["tokens_saved"] > 0

            exact = await client.call_tool(
                "search_sections", {"repo": "rust-book@1", "query": "ownership rules"}
            )
            old_hits = exact.structured_content["results"]
            assert old_hits and all(h["id"].startswith("rust-book@1::") for h in old_hits)
            every = await client.call_tool(
                "search_sections", {"repo": "rust-book@*", "query": "ownership rules", "max_results": 20}
            )
            assert {h["repo"] for h in every.structured_content["results"]} == {"rust-book@1", "rust-book@2"}

            sid = f"rust-book@1::{CHANGED}::what-is-ownership#2"
            read = await client.call_tool(
                "get_section", {"repo": "rust-book@1", "section_id": sid, "verify": True}
            )
            body = read.structured_content
            assert body["verified"] is True and OLD_SENTENCE in body["content"]
            piece = (v1 / CHANGED).read_bytes()[body["byte_start"] : body["byte_end"]]
            assert hashlib.sha256(piece).hexdigest() == body["content_hash"]
            assert meta_of(read)["citation"]["repo"] == "rust-book@1"

            # The imported version serves verified reads too (its pack was built in another home).
            new_id = hits[0]["id"]
            imported = await client.call_tool(
                "get_section", {"repo": "rust-book", "section_id": new_id, "verify": True}
            )
            assert imported.structured_content["verified"] is True
            assert meta_of(imported)["citation"]["repo"] == "rust-book@2"
            both = await client.call_tool("get_sections", {"repo": "rust-book", "section_ids": [sid, new_id]})
            assert [c["repo"] for c in meta_of(both)["citations"]] == ["rust-book@1", "rust-book@2"]

            toc = await client.call_tool("get_toc", {"repo": "rust-book", "limit": 3})
            assert toc.structured_content["repo"] == "rust-book@2"
            docs = await client.call_tool("list_docs", {"repo": "rust-book@1"})
            assert docs.structured_content["repo"] == "rust-book@1"
            outline = await client.call_tool(
                "get_document_outline", {"repo": "rust-book@1", "doc_path": CHANGED}
            )
            assert outline.structured_content["outline"][0]["id"] == sid
            verified = await client.call_tool("verify_index", {"repo": "rust-book@2"})
            assert (
                verified.structured_content["ok"] is True
                and verified.structured_content["repo"] == "rust-book@2"
            )

            unknown = await client.call_tool("get_toc", {"repo": "rust-book@0.1"})
            assert unknown.is_error
            message = text_of(unknown)
            assert (
                "unknown version 'rust-book@0.1'" in message
                and "rust-book@2 (default), rust-book@1" in message
            )
            star = await client.call_tool("get_toc", {"repo": "rust-book@*"})
            assert star.is_error and "every version" in text_of(star)

            deleted = await client.call_tool("delete_index", {"repo": "rust-book@*"})
            assert sorted(deleted.structured_content["repos"]) == ["rust-book@1", "rust-book@2"]
            assert (await client.call_tool("list_repos", {})).structured_content["repos"] == []

    anyio.run(scenario)
