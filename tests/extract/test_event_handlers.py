"""The article's HTML carries nothing active, on either extraction path.

``content_html`` is handed on as HTML (``extract --format html``, MCP ``extract_url``); new
users' checks found ``onclick`` kept in it, then ``javascript:`` in ``<area href>``, ``<img src>``
(also copied there from ``data-src``), ``srcset``, media sources, ``formaction``, ``<meta>``
refreshes and ``<base href>``. Readability.js leaves these to its caller; docmunch removes them
(:func:`docmunch.extract._prep.drop_active_content`).
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


SCRIPT = [
    '<p><map name="m"><area href="javascript:alert(1)" alt="x"></map></p>',
    '<img src="  JAVASCRIPT:alert(2)" alt="a"><img src="vbscript:x" alt="b">',
    '<img src="data:text/html,x" alt="c"><img alt="d" data-src="javascript:alert(25)">',
    '<img srcset="javascript:alert(3) 1x, /ok.png 2x" src="/ok.png" alt="e">',
    '<video src="javascript:a()" poster="java&#9;script:b()"><source src="vbscript:c" '
    'srcset="javascript:d 1x"><track src="javascript:e"></video><audio src="vbscript:x"></audio>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(6)"><base href="javascript:alert(7)">',
    '<form><button formaction="javascript:alert(8)">b</button></form>',
    '<blockquote cite="javascript:alert(9)">quoted words</blockquote>',
    '<iframe srcdoc="&lt;script&gt;alert(10)&lt;/script&gt;"></iframe>',
    '<math href="javascript:alert(11)"><mi>x</mi></math><a href=" javascript:alert(12)">kept text</a>',
]


def test_no_script_url_survives_in_any_attribute() -> None:
    page = (
        "<html><head><title>T</title></head><body><article><h1>Title</h1>"
        f"<p>{PROSE}</p>{''.join(SCRIPT)}<p>{PROSE}</p>"
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="fine"></article></body></html>'
    )
    article = extract(page, url="http://127.0.0.1/news/2")
    root = lxml.html.fromstring(article.content_html)
    values = [v.lower() for el in root.iter() for v in el.attrib.values()]
    assert not [v for v in values if "script" in v or v.startswith("data:text")], article.content_html
    assert not list(root.iter("meta", "base", "link"))
    assert "kept text" in article.text and "quoted words" in article.text
    assert any(v.startswith("data:image/png") for v in values)  # an inline image stays
