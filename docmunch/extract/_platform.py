"""Content of a page from a known documentation platform: its container minus its chrome.

The generator put the article in a known element (``article.md-content__inner``,
``div[itemprop=articleBody]``, ``div.vp-doc``, …), so scoring would only lose things (short
reference sections, tables of options, code-only sections). We take the first container that
holds at least :data:`MIN_TEXT` characters, delete the platform's chrome inside it (permalink
anchors, edit buttons, pagers, breadcrumbs, in-page TOCs, copy buttons) plus ``<template>``
and hidden ``aria-hidden`` decorations, and resolve lazy images. ``None`` → caller falls back
to scoring.
"""

from __future__ import annotations

import copy

from lxml.html import HtmlElement

from docmunch.detect import Platform, select
from docmunch.extract import _dom as dom
from docmunch.extract._images import fix_lazy_images

__all__ = ["MIN_TEXT", "platform_content"]

MIN_TEXT = 40
"""Minimum characters of text (whitespace-trimmed) for a container to count as found."""


def platform_content(root: HtmlElement, platform: Platform) -> HtmlElement | None:
    """A detached, cleaned copy of ``platform``'s content container in ``root``, or ``None``."""
    for selector in platform.content_selectors:
        for candidate in select(root, selector):
            if len(dom.text_of(candidate).strip()) < MIN_TEXT:
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
