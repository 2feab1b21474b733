"""Content of a page from a known documentation platform: its container minus its chrome.

The generator put the article in a known element (``article.md-content__inner``,
``div[itemprop=articleBody]``, ``div.vp-doc``, …), so scoring would only lose things (short
reference sections, tables of options, code-only sections). We take the first container that
holds at least :data:`MIN_TEXT` characters, delete the platform's chrome inside it (permalink
anchors, edit buttons, pagers, breadcrumbs, in-page TOCs, copy buttons) plus ``<template>``
and hidden ``aria-hidden`` decorations, and resolve lazy images. ``None`` → caller falls back
to scoring.

A container is also refused when it is *tiny* next to the page: under :data:`TINY_CHARS`
characters and under :data:`TINY_SHARE` of the body's text. A generator's rule that matches a
drawer or a breadcrumb on a page it did not build (detection saw enough signatures, but the
signatures lied) then falls back to scoring instead of returning four words.
"""

from __future__ import annotations

import copy

from lxml.html import HtmlElement

from docmunch.detect import Platform, select
from docmunch.extract import _dom as dom
from docmunch.extract._images import fix_lazy_images

__all__ = ["MIN_TEXT", "TINY_CHARS", "TINY_SHARE", "platform_content"]

MIN_TEXT = 40
"""Minimum characters of text (whitespace-trimmed) for a container to count as found."""

TINY_CHARS = 200
"""A container with fewer characters than this may be tiny (see :data:`TINY_SHARE`)."""

TINY_SHARE = 0.1
"""… and is, when its text is also less than this share of the ``<body>``'s text."""


def platform_content(root: HtmlElement, platform: Platform) -> HtmlElement | None:
    """A detached, cleaned copy of ``platform``'s content container in ``root``, or ``None``."""
    body = root.find("body")
    page_chars = len(dom.text_of(body).strip()) if body is not None else 0
    for selector in platform.content_selectors:
        for candidate in select(root, selector):
            chars = len(dom.text_of(candidate).strip())
            if chars < MIN_TEXT or (chars < TINY_CHARS and chars < TINY_SHARE * page_chars):
                continue
            content = copy.deepcopy(candidate)
            content.tail = None
            for chrome in platform.chrome_selectors:
                for el in select(content, chrome):
                    dom.remove(el)
            for el in list(content.iter("template")):
                dom.remove(el)
            fix_lazy_images(content)
            if len(dom.text_of(content).strip()) >= MIN_TEXT:
                return content
    return None
