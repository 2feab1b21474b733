"""Hostile YAML/TOML front matter: bounded, one error line per file, the run goes on.

Before issue 12, the 26-byte ``a: &a [*a]`` aborted a whole ``docmunch index`` run
("maximum recursion depth exceeded") and a ~900-byte alias bomb ran the process out of memory
(MemoryError at a 2 GB cap after 60 s). Each input here is generated in the test and indexed
beside good files through the real CLI and the real MCP client over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from docmunch.section.frontmatter import (
    FRONT_MATTER_MAX_BYTES,
    FRONT_MATTER_MAX_DEPTH,
    FRONT_MATTER_MAX_NODES,
)
from tests.hostile.budget import peak_rss_of_children, run_cli
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(300)

MAX_RSS_MB = 200
"""Peak RSS bound of one CLI run over these inputs (the alias bomb needed > 2 GB before)."""
MAX_SECONDS = 30
"""Wall-time bound of one CLI run (about 1 s here; the alias bomb ran 60 s into a MemoryError)."""


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """"Billion laughs": each anchor is a list of ``width`` aliases of the previous one."""
    rows = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        rows.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(rows)


HOSTILE = {
    "recursive.md": "---\na: &a [*a]\n---\n# Recursive\n\nbody\n",
    "bomb.md": f"---\n{alias_bomb()}\n---\n# Bomb\n\nbody\n",
    "deep.md": "---\na: " + "[" * 900 + "]" * 900 + "\n---\n# Deep\n\nbody\n",
    "deep-map.md": "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(200)) + "---\n# Deep map\n",
    "huge.md": "---\n" + "".join(f"key{i}: value {i}\n" for i in range(8000)) + "---\n# Huge\n",
    "toml-deep.md": "+++\na = " + "[" * 100 + "]" * 100 + "\n+++\n# Toml\n",
    "recursive-merge.md": "---\nbase: &b\n  <<: *b\n---\n# Merge\n",
}
REASONS = {
    "recursive.md": "recursive YAML alias",
    "bomb.md": "expands to too many",
    "deep.md": "nests too deep",
    "deep-map.md": "nests too deep",
    "huge.md": "front matter is",
    "toml-deep.md": "nests too deep",
    "recursive-merge.md": "recursive YAML alias",
}
GOOD = {
    "good.md": "---\ntitle: Good page\ntags: [a, b]\n---\n# Good\n\nThe zebra paragraph.\n",
    "anchors.md": (
        "---\nbase: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\ntitle: Anchors ok\n---\n# Fine\n\nOkapi.\n"
    ),
}


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in {**HOSTILE, **GOOD}.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_inputs_are_small_and_really_hostile() -> None:
    """The generated inputs are what the issue describes: a few hundred bytes that expand."""
    assert len(HOSTILE["recursive.md"].split("---")[1].strip()) == 10  # "a: &a [*a]"
    assert len(alias_bomb()) < 900 and 1000 * FRONT_MATTER_MAX_NODES.default < 9**9
    assert len(HOSTILE["huge.md"]) > FRONT_MATTER_MAX_BYTES.default
    assert FRONT_MATTER_MAX_DEPTH.default < 200


def test_cli_indexes_the_good_files_and_names_each_bad_one(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    run = run_cli(["index", str(root), "--repo", "fm"], tmp_path / "home")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    errors = run.lines("error")
    by_file = {line.split()[2].rstrip(":"): line for line in errors}
    for name, reason in REASONS.items():
        assert reason in by_file[name], by_file.get(name)
    assert set(by_file) == set(REASONS), errors
    assert len(errors) == len(REASONS)  # one line per bad file, nothing else
    assert all("DOCMUNCH_FRONT_MATTER_MAX_" in by_file[n] for n in ("bomb.md", "deep.md", "huge.md"))
    assert run.peak_rss_mb < MAX_RSS_MB, run.peak_rss_mb
    assert run.seconds < MAX_SECONDS, run.seconds

    found = run_cli(["search", "fm", "zebra", "--json"], tmp_path / "home")
    assert [h["doc_path"] for h in json.loads(found.stdout)["results"]] == ["good.md"]
    toc = run_cli(["toc", "fm", "--json"], tmp_path / "home")
    docs = {s["doc_path"] for s in json.loads(toc.stdout)["sections"]}
    assert docs == set(GOOD)


def test_limits_are_raised_by_their_environment_variables(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "huge.md").write_text(HOSTILE["huge.md"], encoding="utf-8")
    run = run_cli(
        ["index", str(root), "--repo", "big", "--json"], tmp_path / "home",
        DOCMUNCH_FRONT_MATTER_MAX_BYTES=str(1 << 20), DOCMUNCH_FRONT_MATTER_MAX_NODES="100000",
    )
    assert run.returncode == 0 and '"errors": []' in run.stdout, run.stdout + run.stderr
    bad = run_cli(
        ["index", str(root), "--repo", "big2"], tmp_path / "home", DOCMUNCH_FRONT_MATTER_MAX_BYTES="x"
    )
    assert bad.returncode == 1
    assert bad.lines("error") == [
        "docmunch: error huge.md: DOCMUNCH_FRONT_MATTER_MAX_BYTES='x' is not a positive integer (bytes)"
    ]


def test_mcp_index_local_survives_and_keeps_serving(tmp_path: Path) -> None:
    root = _folder(tmp_path)

    async def scenario() -> tuple[str, str, float]:
        async with connect(tmp_path / "home") as client:
            result = await client.call_tool("index_local", {"path": str(root), "name": "fm"})
            found = await client.call_tool("search_sections", {"repo": "fm", "query": "zebra"})
            return text_of(result), text_of(found), peak_rss_of_children("serve")

    report, found, rss = anyio.run(scenario)
    for name, reason in REASONS.items():
        assert name in report and reason in report
    assert "good.md" in found
    assert 0 < rss < MAX_RSS_MB + 100, rss  # the server also holds the SDK and the tool layer
