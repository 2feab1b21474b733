"""HTML pages and local ``.html``/``.htm`` files → Markdown :class:`Rendition`.

Pipeline: WHATWG charset sniffing (:func:`docmunch.fetch.decode_html`: BOM, HTTP charset,
``<meta>`` prescan, detector) → main-content extraction (:func:`docmunch.extract.extract`) →
heading anchors → HTML→Markdown (:func:`docmunch.convert.html_to_markdown`).

Heading anchors: a section's locator must carry the fragment the *page* uses, not a slug we
invent. Before conversion every heading of the extracted content is given the page's real
anchor (see :func:`heading_anchor`) in :data:`docmunch.convert.blocks.ANCHOR_ATTRIBUTE`; the
converter writes it as a ``{#id}`` suffix on the ATX heading, and the sectioner strips it from
the title and makes it the section's anchor. When extraction left no level-1 heading at the
top (it drops an ``<h1>`` repeating the page title), ``# <title>`` is put back first. The set
of real anchors is kept in ``meta["anchors"]`` so :meth:`Rendition.locator_for` leaves a
heading without one at the bare page URL instead of pointing at a fragment the page lacks.

Locators: a web page gives ``{"url": "https://host/page#anchor"}`` (``source_kind="url"``);
a local file gives the same shape with its ``file://`` URL (``source_kind="html"``), i.e.
``{"url": "file:///abs/path/x.html#anchor"}`` — one shape for both, openable in a browser.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from lxml.html import HtmlElement

from docmunch.convert import html_to_markdown
from docmunch.convert.blocks import ANCHOR_ATTRIBUTE
from docmunch.errors import ConvertError, ExtractError
from docmunch.extract import Article, extract
from docmunch.fetch import decode_html
from docmunch.formats.base import Rendition

__all__ = ["article_meta", "heading_anchor", "mark_heading_anchors", "render_html", "render_html_file"]

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SECTION_TAGS = frozenset({"section", "div"})
_PERMALINK_CLASSES = frozenset(
    {"headerlink", "anchor", "anchorjs-link", "hash-link", "header-anchor", "permalink", "heading-anchor"}
)


def _fragment(href: str | None) -> str | None:
    if href and href.startswith("#") and len(href) > 1:
        return href[1:]
    return None


def heading_anchor(heading: HtmlElement) -> str | None:
    """The URL fragment a page gives ``heading``, or ``None`` when it has none.

    Looked up in this order (covering Sphinx, MkDocs, Docusaurus, VitePress, GitHub, Javadoc,
    MediaWiki): the heading's ``id``; an ``id``/``name`` on an ``<a>`` inside it; the
    ``href="#…"`` of a permalink ``<a>`` inside it (``headerlink``, ``header-anchor``,
    ``hash-link``, …); the ``id`` of another element inside it whose text is empty or the whole
    heading's text (``<h2><span class="mw-headline" id="History">History</span>…``); the ``id``
    of a ``<section>``/``<div>`` the heading *opens* (nothing but empty ``<a>``/``<span>``
    targets before it: Sphinx, docutils) — never the id of a wrapper the heading merely sits in
    somewhere (``<div id="mw-content-text">`` with paragraphs before the heading) nor of an
    ``<article>``; an empty ``<a id>``/``<span id>`` right before it. Extraction also moves a
    removed permalink's fragment onto its heading (:func:`docmunch.extract._prep.remove_permalinks`).
    """
    own = heading.get("id")
    if own:
        return own
    for link in heading.iter("a"):
        named = link.get("id") or link.get("name")
        if named:
            return named
    for link in heading.iter("a"):
        classes = set((link.get("class") or "").split())
        if classes & _PERMALINK_CLASSES or (link.text or "").strip() in ("¶", "#", "§", ""):
            fragment = _fragment(link.get("href"))
            if fragment:
                return fragment
    inner = _inner_anchor(heading)
    if inner:
        return inner
    parent = heading.getparent()
    if parent is not None and parent.tag in _SECTION_TAGS and parent.get("id") and _opens(parent, heading):
        return parent.get("id")
    previous = heading.getprevious()
    if (
        previous is not None
        and previous.tag in ("a", "span")
        and (previous.get("id") or previous.get("name"))
        and not (previous.text_content() or "").strip()
    ):
        return previous.get("id") or previous.get("name")
    return None


def _opens(parent: HtmlElement, heading: HtmlElement) -> bool:
    """Whether ``heading`` opens ``parent``: only empty ``<a>``/``<span>`` targets and blank text
    before it (Sphinx writes ``<span id="label"></span>`` there)."""
    if (parent.text or "").strip():
        return False
    for child in parent:
        if child is heading:
            return True
        if child.tag not in ("a", "span") or child.text_content().strip() or (child.tail or "").strip():
            return False
    return False


def _inner_anchor(heading: HtmlElement) -> str | None:
    """The ``id``/``name`` of an element inside ``heading`` (see :func:`heading_anchor`)."""
    whole = " ".join(heading.text_content().split())
    for el in heading.iterdescendants():
        if not isinstance(el.tag, str):
            continue
        named = el.get("id") or (el.get("name") if el.tag == "a" else None)
        if not named:
            continue
        text = " ".join(el.text_content().split())
        if not text or text == whole:
            return named
    return None


def mark_heading_anchors(content: HtmlElement) -> list[str]:
    """Set :data:`ANCHOR_ATTRIBUTE` on every heading of ``content`` that has a real anchor.

    Returns:
        The anchors, in document order (duplicates kept once).
    """
    anchors: dict[str, None] = {}
    for heading in content.iter(*_HEADINGS):
        anchor = heading_anchor(heading)
        if anchor:
            heading.set(ANCHOR_ATTRIBUTE, anchor)
            anchors.setdefault(anchor, None)
    return list(anchors)


def article_meta(article: Article) -> dict[str, Any]:
    """The Article metadata kept in a rendition's ``meta`` (JSON-serialisable)."""
    return {
        "byline": article.byline,
        "excerpt": article.excerpt,
        "site_name": article.site_name,
        "lang": article.lang,
        "dir": article.dir,
        "published_time": article.published_time,
        "platform": article.platform,
    }


def render_article(
    article: Article, *, source_kind: str, source_ref: str | None, meta: dict[str, Any] | None = None
) -> Rendition:
    """Markdown rendition of an extracted :class:`Article` (its ``content`` gets anchor marks).

    Raises:
        ConvertError: the content converts to no Markdown at all.
    """
    anchors = mark_heading_anchors(article.content)
    markdown = html_to_markdown(article.content, base_url=article.url)
    if not markdown.strip():
        raise ConvertError("the page's main content converts to empty Markdown", path=source_ref)
    if article.title and not markdown.startswith("# "):
        # Extraction drops an <h1> that repeats the title; give the page its title heading back
        # so the outline has a root (its locator is the bare page URL: no real anchor).
        markdown = html_to_markdown(f"<h1>{html.escape(article.title)}</h1>") + "\n" + markdown
    return Rendition(
        markdown=markdown.encode("utf-8"),
        source_kind=source_kind,
        title=article.title,
        declared_title=article.title,  # JSON-LD, meta tags, else <title>: the page's metadata
        source_ref=source_ref,
        meta={**article_meta(article), "anchors": anchors, **(meta or {})},
    )


def render_html(data: bytes, *, url: str | None, http_charset: str | None = None) -> Rendition:
    """Render one web page's bytes.

    Args:
        data: the HTML bytes as served (after ``Content-Encoding`` decoding).
        url: the page URL (links are made absolute against it; it is the locator base).
        http_charset: the ``charset`` parameter of the HTTP ``Content-Type``, if any.

    Returns:
        A rendition with ``source_kind="url"``, ``source_ref=url``, the Article's title and
        ``meta`` = byline, excerpt, site_name, lang, dir, published_time, platform, charset,
        anchors.

    Raises:
        ExtractError: no main content. ConvertError: nothing left after conversion.
    """
    text, charset = decode_html(data, http_charset=http_charset)
    article = extract(text, url=url)
    return render_article(article, source_kind="url", source_ref=url, meta={"charset": charset})


def render_html_file(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render a local ``.html``/``.htm`` file (the :mod:`docmunch.formats` registry entry).

    The charset is sniffed as for a page without HTTP charset. ``source_kind="html"`` and
    ``source_ref`` is the file's ``file://`` URL, so section locators are
    ``{"url": "file:///abs/x.html#anchor"}``. ``password`` is ignored.

    Raises:
        ConvertError: no main content could be extracted, or it converts to nothing.
    """
    uri = Path(path).resolve().as_uri()
    text, charset = decode_html(data)
    try:
        article = extract(text, url=uri)
    except ExtractError as exc:
        raise ConvertError(f"{path}: {exc}", path=str(path)) from None
    return render_article(article, source_kind="html", source_ref=uri, meta={"charset": charset})
