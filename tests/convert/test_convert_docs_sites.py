"""Real documentation pages: every truth heading and code block survives conversion.

For each page of ``docs-sites/*/truth.json`` the page's main container (its
``container_selector``, with the ``removed_before_text`` chrome removed, as the extractor does)
is converted; the Markdown is parsed with markdown-it-py (CommonMark + tables) and must hold
every truth heading with its level, every truth code block byte-exact as a fenced block
(trailing newlines aside: a fence always ends its content with one), every admonition as a
block quote opening with its bold title, and one table per truth table.
"""

from __future__ import annotations

import json
from pathlib import Path

import html5lib
import pytest
from lxml import etree
from lxml.cssselect import CSSSelector
from markdown_it import MarkdownIt

from docmunch.convert import html_to_markdown

MD = MarkdownIt("commonmark").enable("table")
SITES = (
    "attrs-sphinx-furo",
    "httpx-mkdocs-material",
    "prettier-docusaurus-classic",
    "requests-sphinx-alabaster",
    "scrapy-sphinx-rtd",
    "starlette-mkdocs-material",
    "vitepress-default-theme",
)


def _remove(element: etree._Element) -> None:
    """Remove ``element`` but keep its tail text in place."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def main_container(page_file: Path, selector: str, removed: list[str]) -> etree._Element:
    """The page's main container element, parsed with html5lib, chrome removed."""
    document = html5lib.parse(page_file.read_bytes(), treebuilder="lxml", namespaceHTMLElements=False)
    found = CSSSelector(selector, translator="html")(document.getroot())
    assert found, f"{page_file}: no element matches {selector!r}"
    container = found[0]
    for chrome in removed:
        for element in CSSSelector(chrome, translator="html")(container):
            _remove(element)
    return container


def _inline_text(token: object) -> str:
    children = getattr(token, "children", None) or []
    return " ".join("".join(c.content for c in children if c.type in {"text", "code_inline"}).split())


@pytest.mark.parametrize("site", SITES)
def test_site_headings_and_code_blocks(site: str, fixtures_dir: Path) -> None:
    root = fixtures_dir / "docs-sites" / site
    truth = json.loads((root / "truth.json").read_text(encoding="utf-8"))
    misses: list[str] = []
    checked = 0
    for page in truth["pages"]:
        container = main_container(
            root / page["path"], page["container_selector"], truth["removed_before_text"]
        )
        markdown = html_to_markdown(container)
        tokens = MD.parse(markdown)
        headings = [
            (int(token.tag[1]), _inline_text(tokens[index + 1]))
            for index, token in enumerate(tokens)
            if token.type == "heading_open"
        ]
        fences = [token.content.rstrip("\n") for token in tokens if token.type == "fence"]
        tables = sum(
            1
            for token in tokens
            if token.type == "table_open"
            or (token.type == "html_block" and token.content.startswith("<table"))
        )
        for level, text in page["headings"]:
            checked += 1
            if (level, " ".join(text.split())) not in headings:
                misses.append(f"{page['path']}: heading {level} {text!r}")
        for block in page["code_blocks"]:
            checked += 1
            if block["text"].rstrip("\n") not in fences:
                misses.append(f"{page['path']}: code {block['text'][:60]!r}")
        for admonition in page["admonitions"]:
            title = " ".join((admonition["title"] or "").split())
            if title and f"> **{title}" not in markdown:
                misses.append(f"{page['path']}: admonition {title!r}")
        if tables < page["table_count"]:
            misses.append(f"{page['path']}: {tables} tables, truth has {page['table_count']}")
    assert checked > 0
    assert misses == []
