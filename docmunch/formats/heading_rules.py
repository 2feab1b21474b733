"""Text rules shared by DOCX and PDF heading inference (numbering patterns, caption vetoes).

Patterns come from the numbering conventions of Chinese official documents (GB/T 9704-2012
§7.3.3: ``一、`` → ``（一）`` → ``1.`` → ``（1）``, chapters ``第X章``), of decimal outline
numbering (ISO 2145: ``1``, ``1.2``, ``1.2.3``) and of English report headings
(``Chapter 3``, ``Appendix A``). Caption prefixes (``图1``, ``表 2``, ``Figure 3``, ``Table 2``)
veto a candidate: captions are set apart like headings but label figures and tables. So does
a continuation mark (:func:`is_continuation`): a table caption or heading repeated on the next
page as ``ESTIMATED COSTS—Continued`` or ``Results (cont.)`` goes on with something begun
earlier, and as a heading it would take every later section as its child.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_CHAR_SHARE",
    "MAX_HEADING_CHARS",
    "MAX_PARA_SHARE",
    "is_continuation",
    "is_numbered",
    "vetoed_text",
]

NUMBERING = re.compile(
    r"^(?:第[一二三四五六七八九十百零〇\d]+[章节篇部分条]"
    r"|[一二三四五六七八九十]+[、．.]"
    r"|[（(][一二三四五六七八九十\d]+[）)]"
    r"|\d+(?:\.\d+)*\.?(?=\s|[^\d.\s])"
    r"|附录\s*[A-Z\d一二三四五六七八九十]"
    r"|(?:chapter|part|section|appendix)\s+[\dIVXA-Z]+)",
    re.IGNORECASE,
)
CAPTION = re.compile(
    r"^(?:图|表|figure|fig\.|table|chart|listing)\s*[\d一二三四五六七八九十]", re.IGNORECASE
)
_CONTINUED = r"(?:continued|cont(?:['’]?d|\.))"
CONTINUATION = re.compile(
    rf"(?:[(\[]\s*{_CONTINUED}\s*[)\]]"  # Results (continued), Table 2 [cont'd]
    rf"|[—–‐-]\s*{_CONTINUED}"  # ESTIMATED COSTS—Continued, Part 2 - cont.
    rf"|,\s*{_CONTINUED}"  # Results, continued
    rf"|^{_CONTINUED})\s*$"  # Continued, cont.
    rf"|^[(\[]?\s*{_CONTINUED}\s*(?:[)\]:—–‐-]|(?:from|on)\b)",  # (Continued) Table 3, Continued from p. 4
    re.IGNORECASE,
)
"""A continuation mark: ``continued``, ``cont.``, ``cont'd``/``contd`` in parentheses or
brackets, after a dash or a comma at the end, alone, or leading (``Continued from page 4``).
A bare trailing word (``To Be Continued``, ``Continued Fractions``) is no mark."""
SENTENCE_END = frozenset("。．.;；:：,，!?！？")
MAX_HEADING_CHARS = 60
"""Longer text reads as a sentence, not a heading (characters, CJK or not)."""
MAX_PARA_SHARE = 0.6
"""Inference is dropped when candidates exceed this share of the non-empty paragraphs …"""
MAX_CHAR_SHARE = 0.4
"""… or this share of the characters (all-bold or all-large documents)."""


def is_numbered(text: str) -> bool:
    """``text`` starts with a heading numbering pattern (see module docstring)."""
    return NUMBERING.match(text) is not None


def is_continuation(text: str) -> bool:
    """``text`` (a candidate heading, whitespace-normalised) is marked as the continuation of
    an earlier heading or caption (:data:`CONTINUATION`): body text, not a new heading."""
    return CONTINUATION.search(text) is not None


def vetoed_text(text: str) -> bool:
    """Empty, without letters (page numbers), too long, ends like a sentence, a caption, or a
    continuation of an earlier heading or caption."""
    return (
        not any(ch.isalpha() for ch in text)
        or len(text) > MAX_HEADING_CHARS
        or text[-1] in SENTENCE_END
        or CAPTION.match(text) is not None
        or is_continuation(text)
    )
