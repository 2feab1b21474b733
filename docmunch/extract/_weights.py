"""Readability's class/id weighting and pass flags, shared by scoring and cleaning.

Constants from Mozilla Readability.js 0.6 (Apache-2.0): the ``positive``/``negative``
class-name patterns and the three flags that the retry loop turns off one by one.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

__all__ = ["CLEAN_CONDITIONALLY", "NEGATIVE", "POSITIVE", "STRIP_UNLIKELY", "WEIGHT_CLASSES", "class_weight"]

STRIP_UNLIKELY, WEIGHT_CLASSES, CLEAN_CONDITIONALLY = 1, 2, 4
POSITIVE = re.compile(
    r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story", re.IGNORECASE
)
NEGATIVE = re.compile(
    r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|"
    r"meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget",
    re.IGNORECASE,
)


def class_weight(el: HtmlElement, flags: int) -> int:
    """Readability's ``_getClassWeight``: ±25 for the class and ±25 for the id."""
    if not flags & WEIGHT_CLASSES:
        return 0
    weight = 0
    for value in (el.get("class"), el.get("id")):
        if value:
            if NEGATIVE.search(value):
                weight -= 25
            if POSITIVE.search(value):
                weight += 25
    return weight
