"""Which ``<aside>`` elements inside the article are content: admonitions and footnotes.

Readability.js deletes every ``<aside>`` of the article (they are usually sidebars). Docs
generators use ``<aside>`` for admonitions ("Note", "Caution": Starlight, Material, Nextra,
docutils' ``aside.admonition``), sidebars *of the text* (docutils ``aside.sidebar`` is a topic
box) and footnotes (``aside.footnote``, ``role="doc-footnote"``). :func:`is_content_aside`
keeps an ``<aside>`` whose ``role``, ``class`` tokens or ``aria-label`` name one of those
(:data:`CONTENT_ROLES`, :data:`_CONTENT_WORDS`) and whose link density stays below
:data:`MAX_LINK_DENSITY`; navigation asides (tables of contents, "On this page", related
pages) are link lists and still go.

Titles: an admonition aside usually opens with a title element (``p.starlight-aside__title``,
``div.callout-title``) and often hides it from screen readers because its ``aria-label`` says
the same. :func:`mark_aside_titles` (run on the page before scoring, which drops hidden
nodes) makes that title visible and gives it :data:`TITLE_CLASS`; an aside with only an
``aria-label`` gets the label as its title.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["CONTENT_ROLES", "MAX_LINK_DENSITY", "TITLE_CLASS", "is_content_aside", "mark_aside_titles"]

TITLE_CLASS = "admonition-title"
"""Class given to an admonition's title so the converter writes it as the bold first line."""

CONTENT_ROLES = frozenset(("note", "doc-footnote", "doc-endnotes", "doc-tip", "doc-notice", "doc-example"))
"""ARIA / DPUB-ARIA roles of asides that belong to the text."""

MAX_LINK_DENSITY = 0.5
"""An aside with more of its text in links than this is navigation, whatever its class says."""

_CONTENT_WORDS = re.compile(
    r"(?:^|[-_])(?:admonition|callout|note|notes|tip|tips|hint|info|important|warning|caution|danger|"
    r"attention|error|alert|notice|footnotes?|footnote-list|endnotes?|aside)(?:$|[-_])",
    re.IGNORECASE,
)
_NAV_WORDS = re.compile(
    r"(?:^|[-_])(?:toc|nav|navigation|menu|sidebar-nav|related|share|social)(?:$|[-_])", re.IGNORECASE
)


def is_content_aside(el: HtmlElement) -> bool:
    """Whether the ``<aside>`` ``el`` is an admonition, footnote or other part of the text."""
    tokens = (el.get("class") or "").split()
    if any(_NAV_WORDS.search(t) for t in tokens):
        return False
    named = (el.get("role") or "") in CONTENT_ROLES or any(_CONTENT_WORDS.search(t) for t in tokens)
    if not named:
        label = (el.get("aria-label") or "").strip()
        named = bool(label) and _CONTENT_WORDS.search(label.split()[0]) is not None
    return named and dom.link_density(el) <= MAX_LINK_DENSITY


_TITLE_TOKEN = re.compile(r"(?:^|[-_])(?:title|heading|header|label)$", re.IGNORECASE)


def _title_of(aside: HtmlElement) -> HtmlElement | None:
    label = " ".join((aside.get("aria-label") or "").split()).casefold()
    for child in aside.iterchildren():
        if not isinstance(child.tag, str):
            continue
        text = " ".join(dom.text_of(child).split()).casefold()
        if any(_TITLE_TOKEN.search(t) for t in (child.get("class") or "").split()):
            return child
        if label and text == label:
            return child
        return None  # only the first element child can be the title
    return None


def mark_aside_titles(root: HtmlElement) -> None:
    """Give every content ``<aside>`` under ``root`` a visible title marked :data:`TITLE_CLASS`."""
    for aside in root.iter("aside"):
        if not is_content_aside(aside):
            continue
        title = _title_of(aside)
        if title is None:
            label = " ".join((aside.get("aria-label") or "").split())
            if not label:
                continue
            title = aside.makeelement("p", {})
            title.text = label
            title.tail, aside.text = aside.text, None
            aside.insert(0, title)
        title.attrib.pop("aria-hidden", None)
        title.set("class", " ".join([*(title.get("class") or "").split(), TITLE_CLASS]))
