"""The article's HTML carries no event handler attributes, on either extraction path.

``content_html`` is handed on as HTML (``extract --format html``, MCP ``extract_url``); a new
user's check found ``onclick`` kept in it, beside ``<script>`` and ``javascript:`` links that
were already removed. Readability.js leaves attributes to its caller; docmunch drops every
``on…`` attribute (:func:`docmunch.extract._prep.drop_event_handlers`).
"""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html

from docmunch.extract import extract

PROSE = "A paragraph of the article that is long enough to be its main content. " * 12


def _handlers(html: str) -> list[str]:
    root = lxml.html.fromstring(html)
    return [name for el in root.iter() for name in el.attrib if name.lower().startswith("on")]


def test_a_news_page_loses_its_handlers_and_keeps_its_text() -> None:
    page = (
        "<html><head><title>T</title></head><body><article>"
        f'<h1 onclick="track()">Title</h1><p onmouseover="steal()" class="lead">{PROSE}</p>'
        '<img src="a.png" onerror="alert(1)" alt="chart"><svg onload="x()"><circle r="1"/></svg>'
        f'<p ONFOCUS="x()"><a href="/next" onclick="go()">next</a> {PROSE}</p>'
        "<!-- a comment --></article></body></html>"
    )
    article = extract(page, url="http://127.0.0.1/news/1")
    assert _handlers(article.content_html) == []
    assert "track()" not in article.content_html and "alert(1)" not in article.content_html
    assert PROSE.strip() in re.sub(r"\s+", " ", article.text)
    assert 'href="http://127.0.0.1/next"' in article.content_html and 'alt="chart"' in article.content_html


def test_a_docs_site_page_loses_its_handlers(fixtures_dir: Path) -> None:
    """A generator's page goes through the platform path, not Readability's cleaning."""
    source = fixtures_dir / "docs-sites" / "httpx-mkdocs-material" / "index.html"
    html = source.read_text(encoding="utf-8").replace("<p>", '<p onclick="track()">', 3)
    assert html.count('onclick="track()"') == 3
    article = extract(html, url="http://127.0.0.1/docs/")
    assert article.platform != "generic" and _handlers(article.content_html) == []
