"""Readability's class/id weighting and pass flags, shared by scoring and cleaning.

Constants from Mozilla Readability.js 0.6 (Apache-2.0): the ``positive``/``negative``
class-name patterns and the three flags that the retry loop turns off one by one.

Docs-aware divergence: an ``id`` that is the anchor slug of a heading (``<h2 id="sidebar">``,
Sphinx's ``<section id="multiple-sidebars">`` opening with that heading) names a topic, not a
page region, so it never counts as negative (:func:`is_section_anchor`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml.html import HtmlElement

from docmunch.extract._fold import FoldedPattern

__all__ = [
    "CLEAN_CONDITIONALLY",
    "NEGATIVE",
    "POSITIVE",
    "STRIP_UNLIKELY",
    "WEIGHT_CLASSES",
    "class_weight",
    "is_section_anchor",
]

STRIP_UNLIKELY, WEIGHT_CLASSES, CLEAN_CONDITIONALLY = 1, 2, 4
POSITIVE = FoldedPattern(
    r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story"
)
NEGATIVE = FoldedPattern(
    r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|"
    r"meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget"
)


_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_NOT_ALNUM = re.compile(r"[\W_]+")
_ANCHOR_LOOKAHEAD = 3
"""How many leading element children of a section may precede the heading its id names."""


def _slug_key(text: str) -> str:
    return _NOT_ALNUM.sub("", text).casefold()


def is_section_anchor(el: HtmlElement) -> bool:
    """Whether ``el``'s id is the slug of its own heading text or of the heading it opens with.

    Compared with everything but letters and digits removed, casefolded; a suffix such as
    ``-1`` (de-duplicated slugs) is allowed.
    """
    ident = el.get("id")
    if not ident:
        return False
    key = _slug_key(ident)
    if not key:
        return False
    if el.tag in _HEADINGS:
        heading: HtmlElement | None = el
    else:
        heading = None
        for index, child in enumerate(el):
            if index >= _ANCHOR_LOOKAHEAD:
                break
            if child.tag in _HEADINGS:
                heading = child
                break
    if heading is None:
        return False
    text = _slug_key(heading.text_content())
    return bool(text) and (key == text or (key.startswith(text) and key[len(text) :].isdigit()))


def class_weight(el: HtmlElement, flags: int) -> int:
    """Readability's ``_getClassWeight``: ±25 for the class and ±25 for the id (a heading anchor
    id is never negative)."""
    if not flags & WEIGHT_CLASSES:
        return 0
    weight = 0
    for value, is_id in ((el.get("class"), False), (el.get("id"), True)):
        if value:
            negative, positive = _matches(value)
            if negative and not (is_id and is_section_anchor(el)):
                weight -= 25
            if positive:
                weight += 25
    return weight


@lru_cache(maxsize=4096)
def _matches(value: str) -> tuple[bool, bool]:
    """(NEGATIVE matches, POSITIVE matches) for a class or id value; pages repeat them."""
    return NEGATIVE.found_in(value), POSITIVE.found_in(value)
