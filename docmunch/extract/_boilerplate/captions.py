"""Rules 1 and 8: photo captions (:func:`photo_caption`) and image galleries (:func:`gallery`).

A caption beside a photograph describes the photo and credits the agency; a caption under a
drawing (PNG, SVG, GIF: a diagram, chart or screenshot the text refers to) is part of the
explanation and stays (:func:`_is_diagram`).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import BLOCKS, class_id, has_media
from docmunch.extract._fold import FoldedPattern

__all__ = ["CAPTION_MAX_CHARS", "GALLERY_CAPTION_MAX_CHARS", "gallery", "photo_caption"]

CAPTION_MAX_CHARS = 400
"""Longest photo caption, in characters (a longer "caption" is a story item of a list page)."""
GALLERY_CAPTION_MAX_CHARS = 200
"""Longest per-image caption of a gallery item, in characters."""

_DRAWING_FILE = re.compile(r"\.(png|svg|gif)(?:$|[?#])", re.IGNORECASE)
"""File names of drawings (diagrams, charts, screenshots); photographs are JPEG, WebP, AVIF, HEIC."""
_IMAGE_SOURCE_ATTRS = ("src", "data-src", "data-lazy-src", "data-original", "srcset", "data-srcset")
_CAPTION_CREDIT = FoldedPattern(
    r"\b(fotos?|bild(er)?|quellen?|source|photos?|images?|imagen|foto\s?credits?|credits?|crédito|źródło|"
    r"zdjęcie)\s*[:/]|©|\(c\)",
)
"""A caption naming a photographer, agency or source ("Foto: dpa", "© Jane Doe") is a photo credit."""
_FIGURE_CAPTION_CLASS = FoldedPattern(r"(?<!no)(?<!no[-_])(caption|credit)")


def _has_code_or_table(el: HtmlElement) -> bool:
    return any(True for _ in el.iter("pre", "table"))


def photo_caption(el: HtmlElement, text: str) -> bool:
    if el.tag != "figcaption" and not (el.tag in BLOCKS and _FIGURE_CAPTION_CLASS.found_in(class_id(el))):
        return False
    if any(True for _ in el.iter("img", "picture", "video")):
        return False  # a figure whose class mentions its caption: the image stays
    if len(text) > CAPTION_MAX_CHARS:
        return False
    parent = el.getparent()
    if el.tag == "figcaption" and parent is not None and parent.tag == "figure":
        if _has_code_or_table(parent):
            return False
        return not _is_diagram(parent, text)  # no image at all: a photo the page never filled in
    for holder in (parent, parent.getparent() if parent is not None else None):
        if holder is not None and has_media(holder) and not _has_code_or_table(holder):
            return not _is_diagram(holder, text)
    return False


def _is_diagram(holder: HtmlElement, caption: str) -> bool:
    """Whether ``holder``'s pictures are drawings (PNG, SVG, GIF) and the caption credits nobody.

    News photos are JPEG/WebP files credited to a photographer or agency; a PNG or SVG under a
    caption is a diagram, chart or screenshot the text refers to ("the three processes and the
    sockets between them"), and its caption is part of the explanation. A picture without a
    readable file name (no ``src``, a ``data:`` placeholder) counts as a photo.
    """
    if _CAPTION_CREDIT.found_in(caption):
        return False
    found = False
    for media in holder.iter("img", "svg", "source"):
        if media.tag == "svg":
            found = True
            continue
        names = [media.get(name) or "" for name in _IMAGE_SOURCE_ATTRS]
        urls = [url for value in names for url in value.split(",") if url.strip()]
        urls = [url for url in urls if not url.strip().startswith("data:")]
        if not urls:
            continue  # a placeholder (lazy image, <source> media query): says nothing
        if not all(_DRAWING_FILE.search(url.split()[0]) for url in urls):
            return False
        found = True
    return found


def gallery(el: HtmlElement, text: str) -> bool:
    if el.tag not in ("ul", "ol", "div"):
        return False
    items = [child for child in el if isinstance(child.tag, str)]
    if len(items) < 3:
        return False
    for item in items:
        if not has_media(item) or len(dom.inner_text(item)) > GALLERY_CAPTION_MAX_CHARS:
            return False
    return True
