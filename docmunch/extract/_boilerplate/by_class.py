"""Rule 6: chrome by class — small elements whose class, id or wrapper names call them widgets.

:func:`chrome_by_class` on news pages (share bars, newsletter and paywall boxes, author cards,
reading-time and meta lines, link-heavy related-story teasers, a small ``<nav>``);
:func:`widget_by_class` on technical pages, where author, byline, date and meta lines stay.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import CHROME_MAX_CHARS, class_id
from docmunch.extract._fold import FoldedPattern

__all__ = ["RELATED_LINK_DENSITY", "chrome_by_class", "widget_by_class"]

RELATED_LINK_DENSITY = 0.3
"""A ``related``/``teaser`` element goes only when at least this share of its text is links
(a "teaser" class alone often marks the article's own lead paragraph)."""

_WIDGET_CLASS = FoldedPattern(
    r"shar(e|ing)|social|newsletter|subscri|sign-?up|paywall|payant|(^|[-_ ])rating",
)
_POST_LINE_CLASS = FoldedPattern(
    r"author|(^|[-_ ])bio($|[-_ ])|byline|reading-?time|readingtime|(^|[-_ ])(meta|dateline)($|[-_ ])",
)
_RELATED_CLASS = FoldedPattern(r"related|teaser|recommend")


def chrome_by_class(el: HtmlElement, text: str) -> bool:
    return _by_class(el, text, news=True)


def widget_by_class(el: HtmlElement, text: str) -> bool:
    """Rule 6 on a technical page: widgets only; author, byline, date and meta lines stay."""
    return _by_class(el, text, news=False)


def _by_class(el: HtmlElement, text: str, *, news: bool) -> bool:
    if el.tag in ("a", "body"):
        return False
    if el.tag == "nav":
        return len(text) < CHROME_MAX_CHARS
    names = class_id(el)
    if not names.strip() or len(text) >= CHROME_MAX_CHARS:
        return False
    if _WIDGET_CLASS.found_in(names) or (news and _POST_LINE_CLASS.found_in(names)):
        return True
    return _RELATED_CLASS.found_in(names) and dom.link_density(el) >= RELATED_LINK_DENSITY
