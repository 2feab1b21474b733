"""``search_sections`` over a real stdio MCP session: an empty result says why, an unknown
``doc_path`` is a tool error (rust-book and k8s-zh indexed)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from docmunch.index import MAX_HITS, Index
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("reasons-home")
    with Index.open(home) as index:
        for name in ("rust-book", "k8s-zh"):
            index.index_path(fixtures_dir / "corpora" / name, exclude=("NOTICE.md",))
    return home


def test_empty_results_carry_a_reason_and_unknown_documents_are_errors(home: Path) -> None:
    async def scenario() -> None:
        async with connect(home, "auto") as client:

            async def search(**args: object) -> dict:
                result = await client.call_tool("search_sections", args)
                assert not result.is_error, text_of(result)
                return result.structured_content

            found = await search(repo="rust-book", query="how do I share data between threads?")
            assert found["results"] and "no_results" not in found and "unmatched_words" not in found
            partial = await search(repo="rust-book", query="share data between threads on a zyzzogeton")
            assert partial["results"] and partial["unmatched_words"] == ["zyzzogeton"]
            assert "corrected_words" not in partial
            typo = await search(repo="rust-book", query="share data between threds")
            assert typo["corrected_words"] == {"threds": "threads"}
            assert typo["results"][0]["doc_path"].startswith("ch16-")
            for args, reason in (
                ({"repo": "rust-book", "query": "how do I do that?"}, "stop_words"),
                ({"query": "是什么呢"}, "stop_words"),
                ({"query": "?!"}, "no_words"),
                ({"repo": "rust-book", "query": "调度器挑选节点"}, "unknown_words"),
                ({"repo": "rust-book", "query": "b" * 65}, "unknown_words"),  # too long to be indexed
                ({"query": "what is " + "b" * 65}, "unknown_words"),
                ({"repo": "k8s-zh", "query": "调度器", "path_glob": "tasks/zzz/*"}, "filtered"),
            ):
                empty = await search(**args)
                assert empty["results"] == [] and empty["no_results"]["reason"] == reason, (args, empty)
                assert len(empty["no_results"]["message"]) < 200
            inverted = await client.call_tool(
                "search_sections", {"repo": "rust-book", "query": "threads", "min_level": 3, "max_level": 1}
            )
            assert inverted.is_error and "min_level 3 is above max_level 1" in text_of(inverted)
            unknown = await search(repo="rust-book", query="调度器挑选节点")
            assert unknown["no_results"]["words"] == ["调度", "器", "挑选", "节点"]
            too_long = await search(query="b" * 65)
            assert too_long["no_results"]["words"] == ["b" * 23 + "…"]
            assert "longer than 64 characters" in too_long["no_results"]["message"]

            page = "ch04-01-what-is-ownership"
            bad_doc = await client.call_tool(
                "search_sections", {"repo": "rust-book", "query": "ownership", "doc_path": page}
            )
            message = text_of(bad_doc)
            assert bad_doc.is_error and "unknown document 'ch04-01-what-is-ownership'" in message
            assert "ch04-01-what-is-ownership.md" in message and "Traceback" not in message
            good_doc = await search(repo="rust-book", query="ownership", doc_path=page + ".md")
            assert {hit["doc_path"] for hit in good_doc["results"]} == {page + ".md"}
            everywhere = await client.call_tool(
                "search_sections", {"query": "ownership", "doc_path": "nope.md"}
            )
            assert everywhere.is_error and "in any repo" in text_of(everywhere)
            missing_repo = await client.call_tool("search_sections", {"repo": "nope", "query": "ownership"})
            assert missing_repo.is_error and "unknown repo 'nope'" in text_of(missing_repo)

    anyio.run(scenario)


def test_max_results_over_the_most_hits_is_a_tool_error_stated_in_the_schema(home: Path) -> None:
    async def scenario() -> None:
        async with connect(home, "auto") as client:
            tool = next(t for t in (await client.list_tools()).tools if t.name == "search_sections")
            schema = tool.input_schema["properties"]["max_results"]
            assert schema["maximum"] == MAX_HITS and f"1-{MAX_HITS}" in schema["description"]
            most = await client.call_tool(
                "search_sections", {"repo": "rust-book", "query": "rust", "max_results": MAX_HITS}
            )
            assert not most.is_error, text_of(most)
            assert 100 < len(most.structured_content["results"]) <= MAX_HITS
            over = await client.call_tool(
                "search_sections", {"repo": "rust-book", "query": "rust", "max_results": MAX_HITS + 1}
            )
            assert over.is_error
            assert f"max_results: {MAX_HITS + 1} is greater than the maximum of {MAX_HITS}" in text_of(over)

    anyio.run(scenario)
