"""Elements removed from the article whatever their measures (Readability.js's ``_clean`` and
``_cleanMatchedNodes``).

:func:`remove_tag` removes every element of one tag (``object``, ``embed``, ``footer``,
``link``, ``aside``, ``iframe``, form controls, ``button``), except embeds that hold a video
(:func:`has_video`) and admonition or footnote ``<aside>``s (:mod:`docmunch.extract._asides`);
:func:`clean_share` removes small share widgets. Docs-aware: ``<button>``s holding
:data:`BUTTON_CONTENT_SHARE` of the article's text are content and are unwrapped first
(:func:`unwrap_content_buttons`).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._asides import is_content_aside
from docmunch.extract._fold import FoldedPattern

__all__ = [
    "BUTTON_CONTENT_SHARE",
    "EMBEDS",
    "clean_share",
    "has_video",
    "remove_tag",
    "unwrap_content_buttons",
]

_VIDEOS = re.compile(
    r"//(www\.)?((dailymotion|youtube|youtube-nocookie|player\.vimeo|v\.qq)\.com|"
    r"(archive|upload\.wikimedia)\.org|player\.twitch\.tv)",
    re.IGNORECASE,
)
_SHARE = FoldedPattern(r"(\b|_)(share|sharedaddy)(\b|_)")
EMBEDS = ("object", "embed", "iframe")

BUTTON_CONTENT_SHARE = 0.25
"""Docs-aware: when ``<button>``s hold at least this share of the article's text they are its
content (an icon gallery of buttons) and are unwrapped instead of deleted."""


def has_video(el: HtmlElement) -> bool:
    """Whether an embed's attributes (or an ``<object>``'s markup) name a video host (:data:`_VIDEOS`)."""
    if any(_VIDEOS.search(value) for value in el.attrib.values()):
        return True
    if el.tag == "object":
        from lxml.html import tostring

        return bool(_VIDEOS.search(tostring(el, encoding="unicode")))
    return False


def unwrap_content_buttons(article: HtmlElement) -> None:
    """Turn ``article``'s ``<button>``s into ``<span>``s when they hold :data:`BUTTON_CONTENT_SHARE`
    or more of its text (characters), so :func:`remove_tag` leaves their text."""
    buttons = list(article.iterdescendants("button"))
    if not buttons:
        return
    total = dom.inner_length(article)
    in_buttons = sum(dom.inner_length(b) for b in buttons)
    if total and in_buttons >= BUTTON_CONTENT_SHARE * total:
        for button in buttons:
            button.tag = "span"


def remove_tag(root: HtmlElement, tag: str) -> None:
    """Readability's ``_clean``: remove every ``tag`` descendant of ``root``, except embeds
    holding a video and admonition or footnote ``<aside>``s."""
    embed = tag in EMBEDS
    dom.remove_all(
        node
        for node in list(root.iterdescendants(tag))
        if not (embed and has_video(node))
        and not (tag == "aside" and is_content_aside(node))  # docs-aware: admonitions, footnotes
    )


def _share_candidates(root: HtmlElement) -> list[HtmlElement]:
    """Descendants whose class or id contains "share" (any case), in document order."""
    found = []
    for node in root.iterdescendants():
        keys = node.keys()
        if keys and ("class" in keys or "id" in keys) and "share" in dom.class_and_id(node).lower():
            found.append(node)
    return found


def clean_share(root: HtmlElement) -> None:
    """Readability's ``_cleanMatchedNodes`` for share widgets, below ``root``'s children.

    The candidates (class or id containing "share", any case) are found first; in document
    order each one that matches :data:`_SHARE` with under 500 characters of text is removed,
    unless it is a child of ``root`` or inside an already removed one.
    """
    for node in _share_candidates(root):
        if node.getparent() is root or not _SHARE.found_in(dom.class_and_id(node)):
            continue
        if any(anc.getparent() is None and anc is not root for anc in node.iterancestors()):
            continue  # inside a removed candidate
        if node.getparent() is not None and len(dom.text_of(node)) < 500:
            dom.remove(node)
