"""Deferred emphasis delimiters: choose ``*``/``**``/``~~`` or inline HTML once neighbours are known.

While a block is built, emphasis is written as private marker characters (C0 controls, which an
lxml tree can never contain). When the block is finished, :func:`resolve_markers` checks each pair
against the CommonMark "left-flanking" / "right-flanking" delimiter-run rules (spec 0.31, section
6.2): a pair whose delimiters would not flank is written as ``<em>``/``<strong>``/``<del>`` inline
HTML instead, so the rendered text is always the same.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["CLOSE", "IMAGE_BANG", "LINK_OPEN", "MARKERS", "OPEN", "resolve_inline", "resolve_markers"]

OPEN = {"em": "\x01", "strong": "\x03", "del": "\x05"}
"""Marker character that opens each emphasis kind."""
CLOSE = {"em": "\x02", "strong": "\x04", "del": "\x06"}
"""Marker character that closes each emphasis kind."""
MARKERS = frozenset(OPEN.values()) | frozenset(CLOSE.values())
"""All marker characters."""
IMAGE_BANG = "\x07"
"""Stands for the ``!`` of an image until the block is finished."""
LINK_OPEN = "\x08"
"""Stands for the ``[`` opening a link (or a task checkbox) until the block is finished; a
literal ``!`` that ends up right before it (wherever markers moved) is then escaped, since
``![`` would open an image."""

_DELIMITER = {"\x01": "*", "\x02": "*", "\x03": "**", "\x04": "**", "\x05": "~~", "\x06": "~~"}
_HTML = {
    "\x01": "<em>",
    "\x02": "</em>",
    "\x03": "<strong>",
    "\x04": "</strong>",
    "\x05": "<del>",
    "\x06": "</del>",
}
_OPENERS = frozenset({"\x01", "\x03", "\x05"})
# A delimiter right after an already-written closing delimiter would merge with it.
_STAR = frozenset({"\x01", "\x02", "\x03", "\x04"})
_STAR_OPENERS = frozenset({"\x01", "\x03"})
_STAR_CLOSERS = frozenset({"\x02", "\x04"})
_CLASH_BEFORE = frozenset({"*", "~", "\x02", "\x04", "\x06"})


def _is_space(char: str) -> bool:
    return char == "" or char.isspace()


def _is_punct(char: str) -> bool:
    if char in MARKERS or char in (IMAGE_BANG, LINK_OPEN):
        return True
    return char != "" and unicodedata.category(char)[0] in "PS"


def _left_flanking(before: str, after: str) -> bool:
    if _is_space(after):
        return False
    return not _is_punct(after) or _is_space(before) or _is_punct(before)


def _right_flanking(before: str, after: str) -> bool:
    if _is_space(before):
        return False
    return not _is_punct(before) or _is_space(after) or _is_punct(after)


_BANG_BEFORE_LINK = re.compile("(?<!\\\\)((?:\\\\\\\\)*)!\x08")


def resolve_inline(text: str) -> str:
    """Finish inline Markdown: resolve emphasis markers, escape a literal ``!`` before a link,
    then write the image and link placeholders as ``!`` and ``[``."""
    text = resolve_markers(text)
    if LINK_OPEN in text:
        text = _BANG_BEFORE_LINK.sub("\\1\\\\!" + LINK_OPEN, text).replace(LINK_OPEN, "[")
    return text.replace(IMAGE_BANG, "!")


def _neighbour(pieces: list[str], index: int, step: int) -> str:
    """The character next to ``pieces[index]`` (``step`` = -1 before, 1 after), skipping empties."""
    index += step
    while 0 <= index < len(pieces):
        piece = pieces[index]
        if piece:
            return piece[-1] if step < 0 else piece[0]
        index += step
    return ""


_SPLIT = re.compile("([\x01-\x06])")


def resolve_markers(text: str) -> str:
    """Replace emphasis markers in ``text`` by Markdown delimiters or inline HTML tags.

    Markers are properly nested (they come from a tree). Empty pairs are dropped; a pair closed
    and immediately reopened with the same kind is merged (``*a**b*`` would not parse back).
    """
    if not any(marker in text for marker in MARKERS):
        return text
    for kind in OPEN:
        text = text.replace(OPEN[kind] + CLOSE[kind], "").replace(CLOSE[kind] + OPEN[kind], "")
    pieces = _SPLIT.split(text)  # text at even indexes, one marker at each odd index
    stack: list[int] = []
    for index in range(1, len(pieces), 2):
        marker = pieces[index]
        if marker in _OPENERS:
            stack.append(index)
            continue
        if not stack:  # unbalanced (cannot happen from a tree): drop the marker
            pieces[index] = ""
            continue
        start = stack.pop()
        open_before = _neighbour(pieces, start, -1)
        close_after = _neighbour(pieces, index, 1)
        sibling_clash = close_after in _OPENERS or open_before in _CLASH_BEFORE
        # A star pair touching its enclosing star pair on one side only would merge into a
        # longer delimiter run there ("***1*1*1***"): the "multiple of 3" rule then pairs the
        # runs differently. Touching on both sides ("***x***") parses as intended.
        one_sided = marker in _STAR and (open_before in _STAR_OPENERS) != (close_after in _STAR_CLOSERS)
        open_after = _neighbour(pieces, start, 1)
        close_before = _neighbour(pieces, index, -1)
        # A lone literal "~" is not escaped, but next to "~~" it would lengthen the run.
        tilde_clash = marker == "\x06" and "~" in {open_before, open_after, close_before, close_after}
        usable = (
            not sibling_clash
            and not one_sided
            and not tilde_clash
            and _left_flanking(open_before, open_after)
            and _right_flanking(close_before, close_after)
        )
        table = _DELIMITER if usable else _HTML
        pieces[start] = table[pieces[start]]
        pieces[index] = table[marker]
    for index in stack:
        pieces[index] = ""
    return "".join(pieces)
