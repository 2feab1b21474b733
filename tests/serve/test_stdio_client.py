"""The SDK's stdio client drives a real ``docmunch serve`` process through every tool."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import connect, meta_of, text_of

pytestmark = pytest.mark.timeout(180)

READERS = {
    "list_repos", "list_docs", "get_toc", "get_toc_tree", "get_document_outline", "search_sections",
    "get_section", "get_sections", "get_section_context", "verify_index", "extract_url",
}  # fmt: skip
WRITERS = {"index_local", "index_url", "index_repo", "delete_index"}


@pytest.fixture(scope="module")
def rust_home(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Path:
    """A home with rust-book indexed once through the Index API (the same core the tools call)."""
    home = tmp_path_factory.mktemp("rust-home")
    with Index.open(home) as index:
        index.index_path(fixtures_dir / "corpora" / "rust-book", repo="rust-book")
    return home


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_initialize_and_tool_listing(tmp_path: Path, mode: str) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "home", mode) as client:
            assert client.instructions is not None
            assert len(client.instructions) < 1000
            assert client.instructions.index("search_sections") < client.instructions.index("get_section")
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == READERS | WRITERS
            for name, tool in tools.items():
                assert tool.description and len(tool.description) > 60, name
                assert tool.input_schema["type"] == "object"
                assert tool.annotations is not None
                assert tool.annotations.read_only_hint is (name in READERS), name
                properties = tool.input_schema.get("properties", {})
                undescribed = [k for k, v in properties.items() if not v.get("description")]
                assert undescribed == [], (name, undescribed)  # an agent sees nothing else
            delete_hints, index_hints = tools["delete_index"].annotations, tools["index_local"].annotations
            assert delete_hints is not None and delete_hints.destructive_hint is True
            assert index_hints is not None and index_hints.destructive_hint is False
            search = tools["search_sections"].input_schema
            assert search["required"] == ["query"]
            assert set(search["properties"]) >= {
                "repo", "query", "max_results", "doc_path",
                "path_glob", "min_level", "max_level", "snippet_bytes",
            }  # fmt: skip
            assert tools["get_sections"].input_schema["properties"]["section_ids"]["type"] == "array"

    anyio.run(scenario)


def test_index_search_read_verify_delete(tmp_path: Path, fixtures_dir: Path) -> None:
    corpus = fixtures_dir / "corpora" / "rust-book"

    async def scenario() -> None:
        async with connect(tmp_path / "home") as client:
            empty = await client.call_tool("list_repos", {})
            assert empty.structured_content["repos"] == []

            updates: list[tuple[float, float | None, str | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                updates.append((progress, total, message))

            report = await client.call_tool(
                "index_local", {"path": str(corpus)}, progress_callback=on_progress
            )
            assert not report.is_error, text_of(report)
            assert report.structured_content["repo"] == "rust-book"
            assert report.structured_content["sections"] > 100
            assert updates and updates[-1][0] == updates[-1][1]

            found = await client.call_tool(
                "search_sections", {"repo": "rust-book", "query": "borrowing references"}
            )
            hits = found.structured_content["results"]
            found_meta = meta_of(found)
            assert hits and found_meta["sections_returned"] == len(hits)
            assert found_meta["tokens_saved"] > 0
            assert "content" not in hits[0]
            section_id = hits[0]["id"]

            read = await client.call_tool(
                "get_section", {"repo": "rust-book", "section_id": section_id, "verify": True}
            )
            body = read.structured_content
            assert body["verified"] is True
            doc = (corpus / body["doc_path"]).read_bytes()
            piece = doc[body["byte_start"] : body["byte_end"]]
            assert hashlib.sha256(piece).hexdigest() == body["content_hash"]
            assert piece.decode("utf-8") == body["content"]
            read_meta = meta_of(read)
            citation = read_meta["citation"]
            assert citation["section_id"] == section_id and citation["content_hash"] == body["content_hash"]
            assert set(citation) == {
                "repo",
                "doc_path",
                "section_id",
                "byte_start",
                "byte_end",
                "content_hash",
                "locator",
            }
            assert read_meta["tokens_saved"] == (len(doc) - len(piece)) // 4
            assert read_meta["total_tokens_saved"] >= read_meta["tokens_saved"] + found_meta["tokens_saved"]

            bad_id = "rust-book::nope.md::missing#1"
            batch = await client.call_tool(
                "get_sections", {"repo": "rust-book", "section_ids": [section_id, bad_id, hits[1]["id"]]}
            )
            assert not batch.is_error
            assert [s["id"] for s in batch.structured_content["sections"]] == [section_id, hits[1]["id"]]
            assert batch.structured_content["errors"][0]["section_id"] == bad_id
            assert "search_sections" in batch.structured_content["errors"][0]["error"]
            assert len(meta_of(batch)["citations"]) == 2

            context = await client.call_tool(
                "get_section_context", {"repo": "rust-book", "section_id": section_id, "max_tokens": 3000}
            )
            assert context.structured_content["section"]["id"] == section_id
            assert "breadcrumb" in context.structured_content
            assert meta_of(context)["citation"]["section_id"] == section_id

            tree = await client.call_tool("get_toc_tree", {"repo": "rust-book", "doc_path": body["doc_path"]})
            nodes = tree.structured_content["tree"]
            assert nodes and "children" in nodes[0]

            outline = await client.call_tool(
                "get_document_outline", {"repo": "rust-book", "doc_path": body["doc_path"]}
            )
            assert section_id in {o["id"] for o in outline.structured_content["outline"]}

            verified = await client.call_tool("verify_index", {"repo": "rust-book"})
            assert verified.structured_content["ok"] is True

            deleted = await client.call_tool("delete_index", {"repo": "rust-book"})
            expected = {"repo": "rust-book", "deleted": True, "repos": ["rust-book"]}
            assert deleted.structured_content == expected
            gone = await client.call_tool("search_sections", {"repo": "rust-book", "query": "borrowing"})
            assert gone.is_error and "list_repos" in text_of(gone)

    anyio.run(scenario)


def test_errors_are_tool_errors_with_guidance(rust_home: Path) -> None:
    async def scenario() -> None:
        # GitHub API pointed at a closed local port: whether or not GitHub sources exist yet, the
        # call must fail as a tool error, never as a fake success or a traceback.
        async with connect(rust_home, DOCMUNCH_GITHUB_API="http://127.0.0.1:9") as client:
            unknown_repo = await client.call_tool("get_toc", {"repo": "no-such-repo"})
            assert unknown_repo.is_error
            assert "'no-such-repo'" in text_of(unknown_repo) and "list_repos" in text_of(unknown_repo)
            unknown_id = await client.call_tool(
                "get_section", {"repo": "rust-book", "section_id": "rust-book::x#1"}
            )
            assert unknown_id.is_error and "search_sections" in text_of(unknown_id)
            missing_arg = await client.call_tool("get_section", {"repo": "rust-book"})
            assert missing_arg.is_error and "'section_id' is a required property" in text_of(missing_arg)
            relative = await client.call_tool("index_local", {"path": "docs"})
            assert relative.is_error and "absolute path" in text_of(relative)
            github = await client.call_tool("index_repo", {"url": "rust-lang/book"})
            assert github.is_error and text_of(github)
            not_github = await client.call_tool("index_repo", {"url": "https://gitlab.com/a/b"})
            assert not_github.is_error and "not a GitHub repository" in text_of(not_github)
            for result in (unknown_repo, unknown_id, missing_arg, relative, github):
                assert "Traceback" not in text_of(result)
                assert "latency_ms" in meta_of(result)

    anyio.run(scenario)


def test_tokens_saved_total_is_persisted(rust_home: Path) -> None:
    with Index.open(rust_home) as index:
        before = index.record_tokens_saved(0)

    async def scenario() -> int:
        async with connect(rust_home) as client:
            toc = await client.call_tool("get_toc", {"repo": "rust-book", "limit": 1})
            section_id = toc.structured_content["sections"][0]["id"]
            read = await client.call_tool("get_section", {"repo": "rust-book", "section_id": section_id})
            read_meta = meta_of(read)
            assert read_meta["total_tokens_saved"] >= before + read_meta["tokens_saved"]
            return int(read_meta["tokens_saved"])

    saved = anyio.run(scenario)
    assert saved > 0
    with Index.open(rust_home) as index:
        assert index.record_tokens_saved(0) >= before + saved


def test_paging_and_response_ceiling(rust_home: Path) -> None:
    async def scenario() -> None:
        async with connect(rust_home, DOCMUNCH_MAX_RESPONSE_BYTES="6000") as client:
            first = await client.call_tool("get_toc", {"repo": "rust-book", "limit": 5})
            page = first.structured_content
            assert len(page["sections"]) == 5 and page["offset"] == 0 and page["next_offset"] == 5
            second = await client.call_tool("get_toc", {"repo": "rust-book", "limit": 5, "offset": 5})
            assert second.structured_content["sections"][0]["id"] not in {s["id"] for s in page["sections"]}

            whole = await client.call_tool("get_toc", {"repo": "rust-book"})
            cut = whole.structured_content
            assert cut["truncated"] is True and meta_of(whole)["truncated"] is True
            assert 0 < len(cut["sections"]) < cut["total"]
            assert cut["next_offset"] == len(cut["sections"])
            assert len(text_of(whole).encode()) <= 6000

            big = max(
                (await client.call_tool("get_toc", {"repo": "rust-book", "limit": 1000})).structured_content[
                    "sections"
                ],
                key=lambda s: s["byte_end"] - s["byte_start"],
            )
            assert big["byte_end"] - big["byte_start"] > 6000
            read = await client.call_tool("get_section", {"repo": "rust-book", "section_id": big["id"]})
            assert read.structured_content["truncated"] is True
            assert len(text_of(read).encode()) <= 6000
            # the citation still names the whole range
            assert meta_of(read)["citation"]["byte_end"] == big["byte_end"]

    anyio.run(scenario)


def test_unicode_arguments_round_trip(rust_home: Path) -> None:
    async def scenario() -> None:
        async with connect(rust_home, PYTHONIOENCODING="cp1252") as client:
            for text in ["所有权 借用", "🦀 ownership", "Владение"]:
                found = await client.call_tool("search_sections", {"query": text})
                assert not found.is_error, text_of(found)
                assert found.structured_content["query"] == text
            long = "ownership " * 100_000  # a megabyte of query is answered, not echoed
            found = await client.call_tool("search_sections", {"query": long})
            assert not found.is_error, text_of(found)
            assert found.structured_content["results"]
            assert found.structured_content["query"] == long[:199] + "…"
            assert found.structured_content["query_cut_at"] == 65_529  # searched: its start, at a space
            short = await client.call_tool("search_sections", {"query": "ownership"})
            assert "query_cut_at" not in short.structured_content
            assert len(text_of(found)) < 100_000

    anyio.run(scenario)
