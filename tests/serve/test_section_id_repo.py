"""Section reads over a real stdio MCP session need no ``repo``: a section id already names its
repo (``{repo}::{doc_path}::{slug_path}#{level}``), as ``docmunch section ID`` has always used.
A ``repo`` that is given keeps resolving as before (a bare NAME accepts ids of its versions; an
id naming another repo is an unknown section)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from docmunch.index import Index
from tests.serve.conftest import connect, meta_of, text_of

pytestmark = pytest.mark.timeout(180)

SECTION_TOOLS = ("get_section", "get_sections", "get_section_context")
"""Every tool that reads sections by id."""
GUIDE = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Use\n\nUse it.\n"
INSTALL = "a::guide.md::guide/install#2"
V1_INSTALL = "v@1::guide.md::guide/install#2"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with repo ``a``, repo ``b`` and two versions of ``v`` (``v@2`` the default)."""
    root = tmp_path_factory.mktemp("section-id-repo")
    docs = root / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    with Index.open(root / "home") as index:
        index.index_path(docs, repo="a")
        index.index_path(docs, repo="b")
        index.index_path(docs, repo="v", version="1")
        index.index_path(docs, repo="v", version="2")
    return root / "home"


def _call(home: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def scenario() -> list[Any]:
        async with connect(home) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(scenario)


def test_the_section_tools_do_not_require_repo(home: Path) -> None:
    async def scenario() -> dict[str, Any]:
        async with connect(home) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = anyio.run(scenario)
    for name in SECTION_TOOLS:
        schema = tools[name].input_schema
        assert "repo" in schema["properties"], name
        assert "repo" not in schema.get("required", []), name
        assert "names" in schema["properties"]["repo"]["description"], name
        assert "repo" in (tools[name].description or ""), name


def test_get_section_by_id_alone_reads_what_the_named_repo_gives(home: Path) -> None:
    alone, named = _call(
        home,
        [("get_section", {"section_id": INSTALL}), ("get_section", {"repo": "a", "section_id": INSTALL})],
    )
    assert not alone.is_error, text_of(alone)
    assert alone.structured_content == named.structured_content
    assert alone.structured_content["content"] == "## Install\n\nRun the installer.\n\n"
    assert meta_of(alone)["citation"]["repo"] == "a"


def test_a_versioned_id_alone_reads_that_version(home: Path) -> None:
    (alone, bare, pinned) = _call(
        home,
        [
            ("get_section", {"section_id": V1_INSTALL}),
            ("get_section", {"repo": "v", "section_id": V1_INSTALL}),  # bare NAME: any of its versions
            ("get_section", {"repo": "v@1", "section_id": V1_INSTALL}),
        ],
    )
    assert not alone.is_error, text_of(alone)
    assert alone.structured_content == bare.structured_content == pinned.structured_content
    assert meta_of(alone)["citation"]["repo"] == "v@1"


def test_a_given_repo_still_has_to_agree_with_the_id(home: Path) -> None:
    (other, version) = _call(
        home,
        [
            ("get_section", {"repo": "b", "section_id": INSTALL}),
            ("get_section", {"repo": "v@2", "section_id": V1_INSTALL}),
        ],
    )
    assert other.is_error and "the id names repo 'a'" in text_of(other)
    assert version.is_error and "unknown section id" in text_of(version)


def test_an_id_naming_no_repo_is_a_clear_tool_error(home: Path) -> None:
    (bad,) = _call(home, [("get_section", {"section_id": "guide/install#2"})])
    assert bad.is_error
    assert "naming no repo (ids read REPO::DOC_PATH::…)" in text_of(bad)
    assert "required property" not in text_of(bad)


def test_get_sections_without_repo_reads_each_id_from_its_own_repo(home: Path) -> None:
    ids = [
        INSTALL, "gone::guide.md::guide#1", "b::guide.md::guide/use#2", V1_INSTALL, "v@9::x.md::x#1",
        "nowhere", "",
    ]
    (batch,) = _call(home, [("get_sections", {"section_ids": ids})])
    assert not batch.is_error, text_of(batch)  # an id naming an unknown repo fails alone
    answer = batch.structured_content
    assert answer["repo"] is None
    assert [s["id"] for s in answer["sections"]] == [INSTALL, "b::guide.md::guide/use#2", V1_INSTALL]
    assert [c["repo"] for c in meta_of(batch)["citations"]] == ["a", "b", "v@1"]
    errors = {e["section_id"]: e["error"] for e in answer["errors"]}
    assert list(errors) == ["gone::guide.md::guide#1", "v@9::x.md::x#1", "nowhere", ""]  # "" fails alone too
    assert "gone" in errors["gone::guide.md::guide#1"] and "9" in errors["v@9::x.md::x#1"]


def test_get_sections_with_an_unknown_repo_argument_is_one_tool_error(home: Path) -> None:
    (batch,) = _call(home, [("get_sections", {"repo": "gone", "section_ids": [INSTALL]})])
    assert batch.is_error and "gone" in text_of(batch)


def test_get_section_context_without_repo(home: Path) -> None:
    alone, named = _call(
        home,
        [
            ("get_section_context", {"section_id": "a::guide.md::guide#1", "max_tokens": 100}),
            ("get_section_context", {"repo": "a", "section_id": "a::guide.md::guide#1", "max_tokens": 100}),
        ],
    )
    assert not alone.is_error, text_of(alone)
    assert alone.structured_content == named.structured_content
    assert [f["id"] for f in alone.structured_content["following"]] == [INSTALL, "a::guide.md::guide/use#2"]
