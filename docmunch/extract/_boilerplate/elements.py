"""What the boilerplate rules call a block, a line, a heading or media, and the names they read.

The element kinds (:data:`BLOCKS`, :data:`LINE_BLOCKS`, :data:`HEADINGS`, :data:`MEDIA`), the
line test every text rule makes (:func:`is_line`), an element's class/id/wrapper names
(:func:`class_id`, :data:`WRAPPER_NAMES`) and the two size limits several rule families share.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._weights import is_section_anchor

__all__ = [
    "BLOCKS",
    "CHROME_MAX_CHARS",
    "HEADINGS",
    "LINE_BLOCKS",
    "LINE_MAX_CHARS",
    "MEDIA",
    "WRAPPER_NAMES",
    "class_id",
    "has_media",
    "is_line",
]

WRAPPER_NAMES = "data-docmunch-wrapper"
"""Attribute carrying the class/id of a ``<div>`` the scorer replaced by its only ``<p>`` (Readability
collapses ``<div class="newsletter"><p>…</p></div>`` to the ``<p>``); read by the class rule, and
removed by :func:`~docmunch.extract._boilerplate.strip_boilerplate` so it never reaches the output."""

LINE_MAX_CHARS = 160
"""Longest "line" (credit, teaser link, label) the text rules judge, in characters."""
CHROME_MAX_CHARS = 800
"""Largest element (characters) the class rule removes: widgets are small, article bodies are not."""

BLOCKS = frozenset(
    ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "dd", "dt", "span", "small",
     "header", "time", "blockquote", "em", "strong", "b", "i", "section", "aside", "center", "footer")
)  # fmt: skip
LINE_BLOCKS = frozenset(("p", "div", "h2", "h3", "h4", "h5", "h6", "center"))
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
MEDIA = ("img", "picture", "video", "svg", "iframe")


def class_id(el: HtmlElement) -> str:
    """Class, id and wrapper names; an id that is the slug of the element's heading is left out
    (``<h2 id="sharing-configs">`` names its section, not a share bar)."""
    ident = el.get("id") or ""
    if ident and is_section_anchor(el):
        ident = ""
    return f"{el.get('class') or ''} {ident} {el.get(WRAPPER_NAMES) or ''}"


def has_media(el: HtmlElement | None) -> bool:
    return el is not None and any(True for _ in el.iter(*MEDIA))


def is_line(el: HtmlElement) -> bool:
    """A block of its own (not a phrase inside a paragraph with other text)."""
    parent = el.getparent()
    if el.tag in LINE_BLOCKS or el.tag in ("li", "small", "footer", "figcaption"):
        return True
    return parent is not None and dom.inner_text(parent) == dom.inner_text(el)
