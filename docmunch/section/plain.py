"""Plain text of inline Markdown, and the first-sentence summary.

Plain text comes from markdown-it-py's inline tokens: ``text`` (escapes and entities
already resolved), ``code_inline`` content, link text and image alt text are kept; markup
(emphasis markers, backticks, link targets) and inline HTML tags are dropped; line breaks
become spaces.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["SUMMARY_MAX_CHARS", "collapse", "first_sentence", "inline_plain", "is_shortcode_only"]

SUMMARY_MAX_CHARS = 200
"""Upper bound of a summary, in characters (design brief §3)."""

_TEXT_TYPES = frozenset({"text", "text_special", "code_inline"})
_BREAK_TYPES = frozenset({"softbreak", "hardbreak"})
_WS_RE = re.compile(r"\s+")
# A sentence ends at . ! ? (followed by whitespace or the end) or at a CJK full stop,
# exclamation or question mark (no space follows those in CJK text).
_SENTENCE_RE = re.compile(r".+?(?:[.!?](?=\s|\Z)|[。！？])", re.DOTALL)
# Hugo shortcodes ({{< x >}}, {{% x %}}) and mdBook/Handlebars directives ({{#include x}}).
_SHORTCODES_ONLY_RE = re.compile(r"(?:\s*\{\{(?:<.*?>|%.*?%|#.*?)\}\}\s*)+", re.DOTALL)


def inline_plain(md: MarkdownIt, source: str, env: dict[str, Any], *, line_breaks: str = " ") -> str:
    """Parse inline Markdown ``source`` and return its plain text (whitespace not collapsed).

    Args:
        md: the parser whose inline rules to use.
        source: inline Markdown (a heading's or paragraph's content).
        env: the block parse's environment (holds link reference definitions).
        line_breaks: what soft and hard line breaks become.

    Returns:
        The visible text.
    """
    tokens: list[Token] = []
    md.inline.parse(source, md, env, tokens)
    out: list[str] = []
    _collect(tokens, out, line_breaks)
    return "".join(out)


def _collect(tokens: Sequence[Token], out: list[str], line_breaks: str) -> None:
    for token in tokens:
        kind = token.type
        if kind in _TEXT_TYPES:
            out.append(token.content)
        elif kind in _BREAK_TYPES:
            out.append(line_breaks)
        elif kind == "image" and token.children:
            _collect(token.children, out, line_breaks)


def collapse(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    return _WS_RE.sub(" ", text).strip()


def is_shortcode_only(text: str) -> bool:
    """True when ``text`` is nothing but Hugo shortcodes / mdBook directives."""
    return _SHORTCODES_ONLY_RE.fullmatch(text) is not None


def first_sentence(text: str, *, limit: int = SUMMARY_MAX_CHARS) -> str:
    """The first sentence of collapsed plain ``text``, at most ``limit`` characters.

    A sentence ends at ``.``, ``!`` or ``?`` followed by whitespace or the end, or at a CJK
    ``。！？``. A longer sentence is cut at the last space before the limit (or hard at the
    limit when there is none) and ends with ``…``.
    """
    text = collapse(text)
    match = _SENTENCE_RE.match(text)
    sentence = match.group(0) if match else text
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
