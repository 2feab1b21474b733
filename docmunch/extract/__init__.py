"""Main-content extraction: page HTML → :class:`Article` (cleaned content + metadata).

Parser: lexbor (through selectolax, a WHATWG-conformant C parser), its tree copied into lxml
iteratively with the depth clamped (:mod:`._depth`); html5-parser builds but refuses to load
beside lxml's bundled libxml2 (measurements in :mod:`docmunch.extract._parse`).

Pipeline, all under one page budget (:mod:`._budget`): :func:`parse_html` →
:func:`docmunch.detect.detect_platform` → metadata (:mod:`._metadata`, as Readability.js
reports it) → document preparation (:mod:`._prep`), tab sets unfolded (:mod:`._tabs`),
admonition titles marked (:mod:`._asides`), line-number gutters removed (:mod:`._code`) →
either the platform's own content container minus its chrome (:mod:`._platform`), or the
Readability-style scoring (:mod:`._readability`, :mod:`._clean`, the title heading kept by
:mod:`._title`) followed by the article-boilerplate pass (:mod:`._boilerplate`) →
permalinks, "edit section" controls in headings (:mod:`._headings`) and edge rules dropped, code
line breaks restored, links and images made absolute (:mod:`._images`). The docs-aware rules of
the generic path are listed in ``docs/extraction.md``.

Example::

    article = extract(html, url="https://example.org/docs/page.html")
    article.title, article.platform, article.content_html
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.html
from lxml.html import HtmlElement

from docmunch.detect import GENERIC, detect_platform
from docmunch.errors import ExtractError
from docmunch.extract import _dom as dom
from docmunch.extract._asides import mark_aside_titles
from docmunch.extract._boilerplate import strip_boilerplate
from docmunch.extract._budget import check_budget, page_budget
from docmunch.extract._code import normalize_code, remove_code_furniture
from docmunch.extract._headings import remove_edit_controls
from docmunch.extract._images import absolutize, base_url, join_url, script_url, unwrap_noscript_images
from docmunch.extract._metadata import read_metadata
from docmunch.extract._parse import parse_html
from docmunch.extract._platform import platform_content
from docmunch.extract._prep import (
    clean_classes,
    drop_active_content,
    drop_edge_rules,
    prep_document,
    remove_permalinks,
    simplify_nested,
)
from docmunch.extract._readability import grab_article
from docmunch.extract._tabs import unfold_tabs

__all__ = [
    "Article",
    "check_budget",
    "drop_active_content",
    "extract",
    "join_url",
    "page_budget",
    "parse_html",
    "script_url",
]


@dataclass(frozen=True, slots=True)
class Article:
    """The main content of a page and its metadata (fields as Readability.js names them)."""

    url: str | None
    """The page URL given by the caller (``None`` for a local file without one)."""
    title: str | None
    """Article title (JSON-LD, ``og:``/``twitter:`` meta, else the cleaned ``<title>``)."""
    byline: str | None
    """Author line (metadata, else the visible byline element removed from the content)."""
    excerpt: str | None
    """Description from metadata, else the first paragraph's text."""
    site_name: str | None
    """Site name (``og:site_name`` or JSON-LD publisher)."""
    lang: str | None
    """``<html lang>`` value."""
    dir: str | None
    """Text direction (``ltr``/``rtl``) from the content's nearest ``dir`` attribute."""
    published_time: str | None
    """Publication time as written by the page (not parsed)."""
    platform: str
    """Documentation platform (:func:`docmunch.detect.detect_platform`), ``"generic"`` if unknown."""
    content: HtmlElement
    """The cleaned main-content element; links and images are absolute."""
    content_html: str
    """``content`` serialised as HTML (UTF-8 text)."""
    text: str
    """Text of ``content``: DOM ``textContent``, plus a line break wherever two blocks (or a
    ``<br>``) would otherwise glue words together (see :func:`._dom.block_text`)."""
    length: int
    """``len(text)`` in characters (Readability's ``length``)."""


def extract(html: str | bytes, *, url: str | None = None, platform_rules: bool = True) -> Article:
    """Extract the main content and metadata of one HTML page.

    ``html``: the page as text or bytes (bytes are charset-sniffed). ``url``: the page URL,
    used to resolve relative links/images (together with ``<base href>``) and as host evidence
    for platform detection. ``platform_rules=False`` skips platform detection and always takes
    the generic scoring path (what a page of an unknown generator gets; the quality gate
    measures it). Raises :class:`docmunch.errors.ExtractError` when the page has no usable text
    at all, :class:`docmunch.errors.PageTooComplex` (a subclass) when it exceeds the page
    budget (:mod:`docmunch.extract._budget`).
    """
    with page_budget(url=url):
        return _extract(html, url=url, platform_rules=platform_rules)


def _extract(html: str | bytes, *, url: str | None, platform_rules: bool) -> Article:
    root = parse_html(html, url=url)
    platform = detect_platform(root, url=url) if platform_rules else GENERIC
    meta = read_metadata(root)
    base = base_url(root, url)
    lang = root.get("lang")
    unwrap_noscript_images(root)
    prep_document(root)
    unfold_tabs(root)
    mark_aside_titles(root)
    remove_code_furniture(root)
    body = root.find("body")
    if body is None:  # parse_html always adds one; keeps type checkers honest
        raise ExtractError("page has no <body>", url=url)

    content: HtmlElement | None = None
    byline: str | None = None
    direction: str | None = None
    if platform.name != "generic":
        content = platform_content(root, platform)
        if content is not None:
            direction = _direction(content)
    if content is None:
        grab = grab_article(body, title=meta.title or "", need_byline=not meta.byline)
        content, byline, direction = grab.content, grab.byline, grab.dir
        if content is not None:
            simplify_nested(content)
            strip_boilerplate(content)
    if content is None or not dom.text_of(content).strip():
        raise ExtractError("no main content found in the page", url=url)

    remove_permalinks(content)
    remove_edit_controls(content)
    drop_edge_rules(content)
    normalize_code(content)
    absolutize(content, base=base, url=url)
    clean_classes(content)
    drop_active_content(content)
    text = dom.block_text(content)
    excerpt = meta.excerpt
    if not excerpt:
        first_p = next(content.iter("p"), None)
        excerpt = dom.text_of(first_p).strip() if first_p is not None else None
    return Article(
        url=url,
        title=meta.title,
        byline=meta.byline or byline,
        excerpt=excerpt or None,
        site_name=meta.site_name,
        lang=lang,
        dir=direction,
        published_time=meta.published_time,
        platform=platform.name,
        content=content,
        content_html=lxml.html.tostring(content, encoding="unicode"),
        text=text,
        length=len(text),
    )


def _direction(content: HtmlElement) -> str | None:
    node: HtmlElement | None = content
    while node is not None:
        if node.get("dir"):
            return node.get("dir")
        node = node.getparent()
    return None
