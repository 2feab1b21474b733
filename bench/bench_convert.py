"""HTML → Markdown converter: speed and fidelity on the docs-sites pages.

For each page of ``docs-sites/*/truth.json`` the main container (``container_selector``, chrome
in ``removed_before_text`` removed) is converted 5 times; reported: ms per page (median, p95,
max), ms per 100 KB of container HTML, and how many truth headings (with level) and code blocks
(byte-exact, as fenced blocks) the Markdown holds when parsed back with markdown-it-py.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import html5lib
from lxml import etree
from lxml.cssselect import CSSSelector
from markdown_it import MarkdownIt
from rich.table import Table

from docmunch.convert import html_to_markdown

_REPEATS = 5


def _container(page_file: Path, selector: str, removed: list[str]) -> etree._Element | None:
    # with the lxml tree builder html5lib returns an lxml tree (its stubs say Any)
    document: etree._ElementTree = html5lib.parse(
        page_file.read_bytes(), treebuilder="lxml", namespaceHTMLElements=False
    )
    found = CSSSelector(selector, translator="html")(document.getroot())
    if not found:
        return None
    container = found[0]
    for chrome in removed:
        for element in CSSSelector(chrome, translator="html")(container):
            parent = element.getparent()
            if parent is None:
                continue
            if element.tail:
                previous = element.getprevious()
                if previous is not None:
                    previous.tail = (previous.tail or "") + element.tail
                else:
                    parent.text = (parent.text or "") + element.tail
            parent.remove(element)
    return container


def _inline_text(token: object) -> str:
    children = getattr(token, "children", None) or []
    return " ".join("".join(c.content for c in children if c.type in {"text", "code_inline"}).split())


def run(fixtures: Path) -> dict[str, Any]:
    """Convert every docs-sites page; returns timings (ms) and fidelity counts."""
    md = MarkdownIt("commonmark").enable("table")
    timings: list[float] = []
    total_bytes = 0
    headings = [0, 0]
    code = [0, 0]
    for truth_file in sorted((fixtures / "docs-sites").glob("*/truth.json")):
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        for page in truth["pages"]:
            container = _container(
                truth_file.parent / page["path"], page["container_selector"], truth["removed_before_text"]
            )
            if container is None:
                continue
            total_bytes += len(etree.tostring(container, encoding="utf-8"))
            samples = []
            for _ in range(_REPEATS):
                start = time.perf_counter()
                markdown = html_to_markdown(container)
                samples.append((time.perf_counter() - start) * 1000)
            timings.append(min(samples))
            tokens = md.parse(markdown)
            found = {
                (int(token.tag[1]), _inline_text(tokens[index + 1]))
                for index, token in enumerate(tokens)
                if token.type == "heading_open"
            }
            fences = {token.content.rstrip("\n") for token in tokens if token.type == "fence"}
            for level, text in page["headings"]:
                headings[1] += 1
                headings[0] += (level, " ".join(text.split())) in found
            for block in page["code_blocks"]:
                code[1] += 1
                code[0] += block["text"].rstrip("\n") in fences
    ordered = sorted(timings)
    return {
        "pages": len(timings),
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "max_ms": round(ordered[-1], 2),
        "ms_per_100kb": round(sum(timings) / (total_bytes / 102_400), 2),
        "headings_found": headings[0],
        "headings_total": headings[1],
        "code_blocks_found": code[0],
        "code_blocks_total": code[1],
    }


def table(result: dict[str, Any]) -> Table:
    """The converter result as a rich table."""
    out = Table(title="HTML → Markdown (docs-sites main containers, best of 5 runs)")
    for column in ("pages", "median ms", "p95 ms", "max ms", "ms / 100 KB", "headings", "code blocks"):
        out.add_column(column, justify="right")
    out.add_row(
        str(result["pages"]),
        f"{result['median_ms']:.2f}",
        f"{result['p95_ms']:.2f}",
        f"{result['max_ms']:.2f}",
        f"{result['ms_per_100kb']:.2f}",
        f"{result['headings_found']}/{result['headings_total']}",
        f"{result['code_blocks_found']}/{result['code_blocks_total']}",
    )
    return out
