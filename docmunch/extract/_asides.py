"""Which ``<aside>`` elements inside the article are content: admonitions and footnotes.

Readability.js deletes every ``<aside>`` of the article (they are usually sidebars). Docs
generators use ``<aside>`` for admonitions ("Note", "Caution": Starlight, Material, Nextra,
docutils' ``aside.admonition``), sidebars *of the text* (docutils ``aside.sidebar`` is a topic
box) and footnotes (``aside.footnote``, ``role="doc-footnote"``). :func:`is_content_aside`
keeps an ``<aside>`` whose ``role``, ``class`` tokens or ``aria-label`` name one of those
(:data:`CONTENT_ROLES`, :data:`_CONTENT_WORDS`) and whose link density stays below
:data:`MAX_LINK_DENSITY`; navigation asides (tables of contents, "On this page", related
pages) are link lists and still go.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["CONTENT_ROLES", "MAX_LINK_DENSITY", "is_content_aside"]

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
