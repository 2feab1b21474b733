"""Heading anchors on every real docs-sites page: each fragment we hand out exists in the page."""

from __future__ import annotations

import re
from pathlib import Path

from docmunch.formats.html import render_html_file
from docmunch.section import split_markdown


def test_every_locator_fragment_is_a_real_id_of_its_page(fixtures_dir: Path):
    pages = sorted((fixtures_dir / "docs-sites").rglob("*.html"))
    assert len(pages) >= 60
    headings = anchored = 0
    wrong: list[tuple[str, str]] = []
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        rendition = render_html_file(page, page.read_bytes())
        for section in split_markdown(rendition.markdown, repo="r", doc_path="d").sections:
            if section.level == 0:
                continue
            headings += 1
            locator = rendition.locator_for(section.byte_start, section.byte_end, anchor=section.anchor)
            assert locator is not None  # a web page always has its URL
            fragment = locator["url"].partition("#")[2]
            if not fragment:
                continue
            anchored += 1
            # id="x", id='x' or unquoted id=x (Docusaurus' minified HTML), or <a name="x">
            if not re.search(rf"""(?:id|name)=(["']?){re.escape(fragment)}\1[\s>/]""", html):
                wrong.append((page.name, fragment))
    assert wrong == []
    assert anchored >= 0.95 * headings, (anchored, headings)
