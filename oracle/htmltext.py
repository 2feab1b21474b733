"""Text, headings and code blocks of an extractor's HTML output, read the same way for every extractor.

``textContent`` glues block elements together (``<p>a</p><p>b</p>`` → ``"ab"``), which would
merge words across paragraphs; :func:`html_text` puts a newline at every block boundary
instead, so Readability.js, upstream's prettified ``expected.html`` and our own HTML all
tokenise alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.html
from lxml import etree

__all__ = ["BLOCK_TAGS", "HtmlView", "html_text", "parse_fragment", "view"]

BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
"""Elements whose start and end separate words (HTML Living Standard block-level and table parts)."""

_SKIP = frozenset({"script", "style", "template", "noscript"})


def parse_fragment(html: str) -> lxml.html.HtmlElement | None:
    """Parse an HTML fragment (or document) into one element; ``None`` for empty or unparsable input."""
    if not html or not html.strip():
        return None
    try:
        return lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


def _walk(el: etree._Element, out: list[str]) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    if tag.lower() in _SKIP:
        if el.tail:
            out.append(el.tail)
        return
    block = tag.lower() in BLOCK_TAGS
    if block:
        out.append("\n")
    if isinstance(el.tag, str) and el.text:
        out.append(el.text)
    for child in el:
        _walk(child, out)
    if block:
        out.append("\n")
    if el.tail:
        out.append(el.tail)


def html_text(html: str) -> str:
    """Visible text of an HTML fragment, a newline at each block boundary; ``""`` for empty input."""
    root = parse_fragment(html)
    if root is None:
        return ""
    out: list[str] = []
    _walk(root, out)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class HtmlView:
    """What the metrics read from one HTML output."""

    text: str
    """:func:`html_text` of the HTML."""
    headings: tuple[tuple[int, str], ...]
    """``(level, text)`` of every ``h1``–``h6`` in document order."""
    code_blocks: tuple[str, ...]
    """Text content of every outermost ``<pre>``, verbatim."""


def view(html: str) -> HtmlView:
    """Text, headings and ``<pre>`` blocks of an HTML fragment (all empty for empty input)."""
    root = parse_fragment(html)
    if root is None:
        return HtmlView("", (), ())
    out: list[str] = []
    _walk(root, out)
    headings = tuple(
        (int(el.tag[1]), el.text_content())
        for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6")
        if isinstance(el.tag, str)
    )
    pres = tuple(el.text_content() for el in root.iter("pre") if next(el.iterancestors("pre"), None) is None)
    return HtmlView("".join(out), headings, pres)
