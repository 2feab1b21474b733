"""Rules 2, 3, 4 and 7: short lines whose text says they are not article text.

Credit and copyright lines (:func:`credit_line`), date lines (:func:`date_line`), advertising
labels (:func:`ad_label`), comment headers and login prompts (:func:`comment_header`),
newsletter and subscription calls (:func:`subscribe_call`) and author boxes
(:func:`author_box`). The words they know are labels that mean the same in every publication
(de, en, es, fr, pl and a few more), never a site's or a theme's names.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import (
    BLOCKS,
    CHROME_MAX_CHARS,
    HEADINGS,
    LINE_BLOCKS,
    LINE_MAX_CHARS,
    is_line,
)
from docmunch.extract._fold import FoldedPattern

__all__ = [
    "AD_LABEL",
    "AUTHOR_BOX_LABEL",
    "CALL_MAX_CHARS",
    "COPYRIGHT_MAX_CHARS",
    "CREDIT_LABEL",
    "DATE_LINE_MAX_CHARS",
    "DATE_LINE_MAX_WORD_CHARS",
    "ad_label",
    "author_box",
    "comment_header",
    "credit_line",
    "date_line",
    "subscribe_call",
]

DATE_LINE_MAX_CHARS = 60
"""Longest date line, in characters; at most :data:`DATE_LINE_MAX_WORD_CHARS` letters besides the date."""
DATE_LINE_MAX_WORD_CHARS = 30
COPYRIGHT_MAX_CHARS = 250
"""Longest copyright statement, in characters."""

CREDIT_LABEL = FoldedPattern(
    r"^[(\[]?\s*(fotos?|bild(er)?|titelbild|quellen?|source|sources|photos?|images?|imagen|"
    r"foto\s?credits?|credits?|crédito|źródło|zdjęcie|©|copyright|\(c\))\s*[:©/]",
)
"""Labels a credit line starts with (de, en, es, fr, pl); a colon, ``©`` or ``/`` follows."""
_COPYRIGHT = FoldedPattern(
    r"^\s*(©|\(c\)|copyright\b)|all rights reserved|alle rechte vorbehalten|tous droits réservés|"
    r"todos los derechos|wszelkie prawa zastrzeżone",
)
_DATE = re.compile(
    r"\b(\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})\b"
)
_WORD_CHAR = re.compile(r"\w")
AD_LABEL = FoldedPattern(
    r"^[-–—\s]*(advertisement|advertising|anzeige|werbung|publicité|publicidad|pubblicità|reklama|"
    r"реклама|广告|continue reading( the main story)?)[-–—\s]*$",
)
"""Whole-block labels of ad slots and of "read the rest" breaks."""
_COMMENT_HEADER = FoldedPattern(
    r"^\d*\s*(\(\d+\)\s*)?(comments?|kommentare?|kommentieren|commentaires?|comentarios?|komentarz[ey]?|"
    r"leave a (reply|comment)|schreibe einen kommentar)\b.{0,20}$",
)
_LOGIN_PROMPT = FoldedPattern(
    r"eingeloggt|angemeldet sein|logged in|log in (to|for)|sign in to|connecté|zalogowan",
)
_SUBSCRIBE_CALL = FoldedPattern(
    r"newsletter|(?<!un)subscri(be|ption)\b|abonnier|sign(ing)? up|abonnez|suscr[ií]b",
)
CALL_MAX_CHARS = 200
"""Longest newsletter/subscription or login call-to-action line, in characters."""
AUTHOR_BOX_LABEL = FoldedPattern(
    r"^(über (den|die) autor(in)?|zur person|about the author|à propos de l'auteur|sobre el autor|"
    r"o autorze)$",
)
"""Titles of author boxes; the box (the label and its next block, if small) goes."""


def credit_line(el: HtmlElement, text: str) -> bool:
    if el.tag not in BLOCKS:
        return False
    if not text:
        return False
    if len(text) < LINE_MAX_CHARS and CREDIT_LABEL.starts(text):
        return True
    return len(text) < COPYRIGHT_MAX_CHARS and _COPYRIGHT.found_in(text) and is_line(el)


def date_line(el: HtmlElement, text: str) -> bool:
    if el.tag not in BLOCKS or el.tag in HEADINGS:
        return False  # a heading that is a date opens a section (a changelog entry, a diary day)
    if not 0 < len(text) <= DATE_LINE_MAX_CHARS:
        return False
    if el.tag == "time" and is_line(el):
        return True
    if not _DATE.search(text) or not is_line(el):
        return False
    return len(_WORD_CHAR.findall(_DATE.sub("", text))) <= DATE_LINE_MAX_WORD_CHARS


def ad_label(el: HtmlElement, text: str) -> bool:
    return el.tag in BLOCKS and AD_LABEL.starts(text)


_COMMENT_HEADER_TAGS = frozenset((*HEADINGS, "p", "div"))


def comment_header(el: HtmlElement, text: str) -> bool:
    if el.tag not in _COMMENT_HEADER_TAGS:
        return False
    if not 0 < len(text) < LINE_MAX_CHARS:
        return False
    return _COMMENT_HEADER.starts(text) or _LOGIN_PROMPT.found_in(text)


def author_box(el: HtmlElement, text: str) -> bool:
    if el.tag not in LINE_BLOCKS:
        return False
    if not AUTHOR_BOX_LABEL.starts(text.rstrip(":")):
        return False
    bio = el.getnext()
    if bio is not None and len(dom.inner_text(bio)) < CHROME_MAX_CHARS:
        dom.remove(bio)
    return True


def subscribe_call(el: HtmlElement, text: str) -> bool:
    if el.tag not in LINE_BLOCKS and el.tag not in ("li", "i", "em", "strong", "b"):
        return False
    return 0 < len(text) < CALL_MAX_CHARS and _SUBSCRIBE_CALL.found_in(text) and is_line(el)
