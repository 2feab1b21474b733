"""Document preparation before scoring, and tidying after it.

After Mozilla Readability.js 0.6 (Apache-2.0): ``_removeScripts``, ``_prepDocument`` (drop
``<style>``, turn ``<br><br>`` chains into paragraphs, ``<font>`` → ``<span>``),
``_simplifyNestedElements`` and ``_cleanClasses`` — the last one keeps, besides ``page``, the
classes the Markdown converter needs: code languages, admonitions/alerts, math, footnotes.
"""

from __future__ import annotations

import re

import lxml.etree as etree
from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._images import script_url

__all__ = [
    "clean_classes",
    "drop_active_content",
    "drop_edge_rules",
    "has_permalink",
    "prep_document",
    "remove_permalinks",
    "replace_brs",
    "simplify_nested",
    "wrap_phrasing",
]

_KEEP_CLASS = FoldedPattern(
    r"^(page|language-\S+|lang-\S+|highlight\S*|sourcecode|admonition\S*|note|tip|hint|warning|danger|"
    r"caution|important|attention|error|seealso|todo|info|success|alert\S*|markdown-alert\S*|"
    r"callout\S*|math\S*|katex\S*|mathjax\S*|footnote\S*|footnotes|arithmatex|"
    # line-number gutters (Pygments, Prism) must stay recognisable so they never enter code
    # text; VitePress/Docusaurus admonition titles keep their classes for the converter
    r"linenos|lineno|linenodiv|line-numbers\S*|custom-block\S*|theme-admonition\S*)$",
)


def replace_brs(body: HtmlElement) -> None:
    """Two or more ``<br>`` in a row start a new ``<p>`` holding the phrasing content after them."""
    for br in list(body.iter("br")):
        parent = br.getparent()
        if parent is None:
            continue
        replaced = False
        while not (br.tail and br.tail.strip()):
            nxt = br.getnext()
            if nxt is None or nxt.tag != "br":
                break
            replaced = True
            dom.remove(nxt)
        if not replaced:
            continue
        p = br.makeelement("p", {})
        p.text, br.tail = br.tail, None
        parent.replace(br, p)
        while True:
            nxt = p.getnext()
            if nxt is None:
                break
            if nxt.tag == "br":
                after = nxt.getnext()
                if not (nxt.tail and nxt.tail.strip()) and after is not None and after.tag == "br":
                    break
            if not dom.is_phrasing(nxt):
                break
            p.append(nxt)  # moves its tail (the following text node) along
        _trim_trailing_whitespace(p)
        if parent.tag == "p":
            parent.tag = "div"


def _trim_trailing_whitespace(p: HtmlElement) -> None:
    while len(p):
        last = p[-1]
        if last.tail and not last.tail.strip():
            last.tail = None
        if last.tail is None and last.tag == "br":
            p.remove(last)
            continue
        return
    if p.text and not p.text.strip():
        p.text = None


SOFT_HYPHEN = "\u00ad"
NOSCRIPT_SWALLOW_SHARE = 0.5
"""A ``<noscript>`` holding more than this share of the body's text (characters) is unwrapped, not
removed: the parser runs with scripting off, so an element left open inside ``<noscript>`` (say
``<noscript><div></noscript>``) makes it swallow the rest of the page, which a browser (scripting
on, ``<noscript>`` read as raw text) shows. Seen on 1 of the 330 articles-dev pages."""


def prep_document(root: HtmlElement) -> None:
    """Remove scripts, noscripts, styles and soft hyphens; fix ``<br>`` chains and ``<font>`` in place.

    A ``<noscript>`` that swallowed the page (:data:`NOSCRIPT_SWALLOW_SHARE`) keeps its content.
    Docs-aware: ``<script type="math/tex">`` (also ``; mode=display``) is MathJax 2's source of a
    formula, not a program; it stays so the converter writes the TeX.
    """
    body = root.find("body")
    body_text = dom.text_of(body) if body is not None else ""
    page_chars = len(body_text)
    swallowing: list[HtmlElement] = []
    doomed: list[HtmlElement] = []
    for el in root.iter("script", "noscript", "style"):
        if el.tag == "script" and (el.get("type") or "").strip().lower().startswith("math/tex"):
            continue
        if el.tag == "noscript" and page_chars and len(dom.text_of(el)) > NOSCRIPT_SWALLOW_SHARE * page_chars:
            swallowing.append(el)
        else:
            doomed.append(el)
    for el in swallowing:
        dom.unwrap(el)
    dom.remove_all(doomed)
    if body is not None:
        replace_brs(body)
        # nothing below adds text: no soft hyphen in the body's text now means none later
        if SOFT_HYPHEN in body_text or SOFT_HYPHEN in (body.tail or ""):
            _drop_soft_hyphens(body)
    for font in root.iter("font"):
        font.tag = "span"


def _drop_soft_hyphens(body: HtmlElement) -> None:
    """Remove U+00AD SOFT HYPHEN: invisible hyphenation hints that split words for search and snippets.

    Publishers hyphenate long words for narrow columns (``Wein\xadglas``); a reader never sees the
    character unless the word breaks, so the text keeps the whole word. Divergence from Readability.
    """
    for el in body.iter():
        if el.text and SOFT_HYPHEN in el.text:
            el.text = el.text.replace(SOFT_HYPHEN, "")
        if el.tail and SOFT_HYPHEN in el.tail:
            el.tail = el.tail.replace(SOFT_HYPHEN, "")


def simplify_nested(article: HtmlElement) -> None:
    """Readability's ``_simplifyNestedElements``: unwrap div/section chains, drop empty ones."""
    node: HtmlElement | None = article
    while node is not None:
        if node.tag == "pre":  # docs-aware: an empty line of code is a <div>\n</div>, not empty
            node = dom.next_node(node, True)
            continue
        if (
            node.getparent() is not None
            and node.tag in ("div", "section")
            and not (node.get("id") or "").startswith("readability")
        ):
            if dom.without_content(node):
                node = dom.remove_and_get_next(node)
                continue
            if dom.has_single_tag_inside(node, "div") or dom.has_single_tag_inside(node, "section"):
                child = node[0]
                for name, value in node.attrib.items():
                    child.set(name, value)
                dom.replace(node, child)
                node = child
                continue
        node = dom.next_node(node)


def clean_classes(article: HtmlElement) -> None:
    """Drop ``class`` attributes except the classes in ``_KEEP_CLASS``."""
    for el in article.iter():
        value = el.get("class")
        if value is None:
            continue
        kept = [c for c in value.split() if _KEEP_CLASS.starts(c)]
        if kept:
            el.set("class", " ".join(kept))
        else:
            del el.attrib["class"]


_URL_ATTRIBUTES = frozenset(
    (
        "href", "src", "poster", "action", "formaction", "cite", "data", "background", "longdesc",
        "ping", "manifest", "codebase", "lowsrc", "dynsrc", "xlink:href", "{http://www.w3.org/1999/xlink}href",
    )
)  # fmt: skip
"""Attributes whose value a browser loads or follows as a URL (``srcset`` is read apart)."""
_ACTIVE_ELEMENTS = ("base", "meta", "link")
"""Elements with no text that act on the document holding them (``<base href>``, ``<meta
http-equiv="refresh">``): dropped from the article."""


def _srcset_runs_script(value: str) -> bool:
    return any(script_url(candidate.split()[0]) for candidate in value.split(",") if candidate.split())


def drop_active_content(article: HtmlElement) -> bool:
    """Remove from ``article`` what would run script or act on a page showing it: event handler
    attributes (``onclick``, ``onerror``, …: every HTML attribute whose name starts with ``on``),
    ``srcdoc``, URL attributes (and ``data-*`` ones, which lazy loaders copy into ``src``) holding a
    script URL (:func:`~docmunch.extract._images.script_url`:
    ``javascript:``, ``vbscript:``, non-image ``data:``, however spelled; a link holding one
    becomes a ``<span>`` with its text, any other element loses the attribute; a ``srcset`` with
    one such candidate goes whole), and ``<base>``, ``<meta>`` and ``<link>`` elements.

    Readability.js leaves these to its caller; docmunch hands the article on as HTML
    (``content_html``: ``extract --format html``, MCP ``extract_url``). It runs last, after the
    lazy-image rules have copied ``data-src`` into ``src``. The text is not changed.
    ``formats.rst`` cleans docutils' HTML with it too.

    Returns:
        ``True`` when something was removed.
    """
    active = [e for e in article.iter(*_ACTIVE_ELEMENTS) if e is not article]
    for el in active:
        dom.remove(el)
    changed = bool(active)
    for el in article.iter():
        attrib = el.attrib
        if not attrib:
            continue
        for name in list(attrib):
            value = attrib[name]
            handler = name[:2].lower() == "on" or name == "srcdoc"
            if handler or (name == "srcset" and _srcset_runs_script(value)):
                del attrib[name]
                changed = True
            elif (name in _URL_ATTRIBUTES or name.startswith("data-")) and script_url(value):
                changed = True
                if el.tag == "a":
                    el.tag = "span"
                    attrib.clear()
                    break
                del attrib[name]
    return changed


def _is_ws_item(item: str | HtmlElement) -> bool:
    return (not item.strip()) if isinstance(item, str) else item.tag == "br"


def _has_loose_phrasing(div: HtmlElement) -> bool:
    """Whether ``div`` holds text, or a phrasing child other than ``<br>``, directly."""
    text = div.text
    if text and not text.isspace():
        return True
    for child in div:
        tag = child.tag
        if tag in dom.PHRASING:
            if tag != "br":
                return True
        elif tag in dom.PHRASING_IF_CHILDREN and dom.is_phrasing(child):
            return True
        tail = child.tail
        if tail and not tail.isspace():
            return True
    return False


def wrap_phrasing(div: HtmlElement) -> None:
    """Put runs of phrasing content (text included) that sit directly in ``div`` into ``<p>``s."""
    if not _has_loose_phrasing(div):
        return
    items: list[str | HtmlElement] = [div.text] if div.text else []
    for child in div:
        items.append(child)
        if child.tail:
            items.append(child.tail)
            child.tail = None
    div.text = None
    for child in list(div):
        div.remove(child)
    out: list[str | HtmlElement | list[str | HtmlElement]] = []  # a list: one run for a <p>
    para: list[str | HtmlElement] | None = None
    for item in items:
        phrasing = isinstance(item, str) or dom.is_phrasing(item)
        if phrasing:
            if para is not None:
                para.append(item)
            elif not _is_ws_item(item):
                para = [item]
                out.append(para)
            else:
                out.append(item)
        else:
            if para is not None:
                while para and _is_ws_item(para[-1]):
                    para.pop()
                para = None
            out.append(item)
    if para is not None:  # Readability trims only when a block follows; the trailing run keeps its space
        pass
    last: HtmlElement | None = None
    for entry in out:
        if isinstance(entry, list):
            p = div.makeelement("p", {})
            _fill(p, entry)
            div.append(p)
            last = p
        elif isinstance(entry, str):
            if last is None:
                div.text = (div.text or "") + entry
            else:
                last.tail = (last.tail or "") + entry
        else:
            div.append(entry)
            last = entry


def _fill(parent: HtmlElement, items: list[str | HtmlElement]) -> None:
    last: HtmlElement | None = None
    for item in items:
        if isinstance(item, str):
            if last is None:
                parent.text = (parent.text or "") + item
            else:
                last.tail = (last.tail or "") + item
        else:
            parent.append(item)
            last = item


_PERMALINK_TEXT = frozenset(("", "¶", "#", "§", "🔗", "\U0001f517", "⚓", "⚓︎", "🔗︎", "link", "permalink"))
_ANCHOR_PHRASE = re.compile(
    r"^(?:section titled|link to (?:this )?(?:heading|section|header|term)|permalink(?: to)?|"
    r"direct link to|anchor(?: link)?(?: to| for)?\b|copy link|heading link|link for|"
    r"navigate to header|jump to)",
    re.IGNORECASE,
)
_SR_ONLY = FoldedPattern(
    r"^(?:sr-only|visually-hidden|visuallyhidden|screen-reader-text|screen-reader-only|sr-text|"
    r"a11y-hidden|hidden-visually|u-visually-hidden|assistive-text|element-invisible)$",
)
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _unread(el: HtmlElement) -> bool:
    """Hidden from sight (``aria-hidden``) or shown to screen readers only (``sr-only`` …)."""
    return el.get("aria-hidden") == "true" or any(_SR_ONLY.starts(c) for c in (el.get("class") or "").split())


def _visible_text(el: HtmlElement) -> str:
    """Text of ``el`` without the parts hidden from sight or meant for screen readers only."""
    parts: list[str] = [el.text or ""]
    for child in el:
        if not _unread(child):
            parts.append(_visible_text(child) if len(child) else (child.text or ""))
        parts.append(child.tail or "")
    return "".join(parts)


def _is_anchor_chrome(el: HtmlElement) -> bool:
    """A permalink: symbol-only visible text, or screen-reader text like "Section titled …"."""
    if el.tag == "a":
        href = el.get("href") or ""
        if href and not href.startswith("#"):
            return False
    visible = " ".join(_visible_text(el).split()).casefold()
    if visible in _PERMALINK_TEXT:
        return True
    spoken = " ".join(dom.text_of(el).split())
    return _ANCHOR_PHRASE.match(spoken) is not None and (el.tag == "a" or _unread(el))


def has_permalink(heading: HtmlElement) -> bool:
    """Whether ``heading`` holds a permalink anchor (what :func:`remove_permalinks` removes)."""
    return any(_is_anchor_chrome(a) for a in heading.iter("a"))


def remove_permalinks(article: HtmlElement) -> None:
    """Drop permalink chrome in and right after headings, visible or for screen readers only.

    Removed: in-page ``<a href="#…">`` whose visible text is a permalink symbol (``¶``, ``#``,
    ``§``, 🔗, ``⚓``; icons count as no text) or whose text is a screen-reader phrase ("Section
    titled …", "Link to this heading", "Permalink to …", "Direct link to …"); the same link right
    after the heading (Starlight-style wrappers); hidden or screen-reader-only spans inside the
    heading holding such a symbol or phrase. Generators we do not recognise add them too; they
    are chrome, never heading text. The fragment a removed permalink pointed at becomes the
    heading's ``id`` when the heading has none of its own (Sphinx puts the id on the enclosing
    ``<section>``, the permalink is the only tie between the heading and it).
    """
    for heading in list(article.iter(*_HEADING_TAGS)):
        for el in list(heading.iterdescendants("a", "span")):
            if el.getparent() is None:
                continue
            if (el.tag == "a" or _unread(el)) and _is_anchor_chrome(el):
                _keep_fragment(heading, el)
                dom.remove(el)
        following = heading.getnext()
        if following is None:
            continue
        link = following
        if following.tag in ("p", "span", "div") and len(following) == 1:
            link = following[0]  # scoring wrapped the loose link in a <p>
        if (
            link.tag == "a"
            and (link.get("href") or "").startswith("#")
            and _is_anchor_chrome(link)
            and not (following.text or "").strip()
            and not (link.tail or "").strip()
        ):
            _keep_fragment(heading, link)
            dom.remove(following)


def _keep_fragment(heading: HtmlElement, permalink: HtmlElement) -> None:
    """Give ``heading`` the ``#fragment`` (else the ``id``/``name``) of its ``permalink`` as
    ``id`` when neither it nor another element inside it has an id."""
    href = permalink.get("href") or ""
    fragment = href[1:] if href.startswith("#") else permalink.get("id") or permalink.get("name") or ""
    if not fragment or heading.get("id"):
        return
    others = (el for el in heading.iterdescendants() if isinstance(el.tag, str) and el is not permalink)
    if not any(el.get("id") for el in others):
        heading.set("id", fragment)


_TEXT_AFTER = etree.XPath("boolean(following::text()[normalize-space()] | following::img | following::pre)")
_TEXT_BEFORE = etree.XPath("boolean(preceding::text()[normalize-space()] | preceding::img | preceding::pre)")


def drop_edge_rules(content: HtmlElement) -> None:
    """Remove ``<hr>``s with nothing before or after them in ``content`` (what was a footer or a
    header around them is gone, the rule alone is no content). ``content`` must be a tree root."""
    for rule in list(content.iter("hr")):
        if not _TEXT_AFTER(rule) or not _TEXT_BEFORE(rule):
            dom.remove(rule)
