"""Plain text of inline Markdown, and the first-sentence summary.

Plain text comes from markdown-it-py's inline tokens: ``text`` (escapes and entities
already resolved), ``code_inline`` content, link text and image alt text are kept; markup
(emphasis markers, backticks, link targets) and inline HTML tags are dropped; line breaks
become spaces.

Template tags (:mod:`docmunch.section.templates`) are set aside before inline parsing — each
replaced by a private-use placeholder, so that ``{{<note>}}`` is not read as an HTML tag nor
``[a]({{< ref x >}})`` as broken link syntax — and come back afterwards: in text as what they
display (``{{< glossary_tooltip text="Pods" >}}`` → "Pods", most tags → nothing), in code spans
as written (Hugo's escape ``{{</* x */>}}`` shown as ``{{< x >}}``). A heading whose text is
nothing but tags gets the readable title of its tags (:func:`heading_title`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from docmunch.section.templates import Tag, display_of, has_tags, iter_tags, title_of

__all__ = [
    "SUMMARY_MAX_CHARS", "collapse", "first_sentence", "heading_title", "inline_plain", "is_shortcode_only",
    "template_text",
]

SUMMARY_MAX_CHARS = 200
"""Upper bound of a summary, in characters (design brief §3)."""

_TEXT_TYPES = frozenset({"text", "text_special", "code_inline"})
_BREAK_TYPES = frozenset({"softbreak", "hardbreak"})
_WS_RE = re.compile(r"\s+")
# A sentence ends at . ! ? (followed by whitespace or the end) or at a CJK full stop,
# exclamation or question mark (no space follows those in CJK text).
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|\Z)|[。！？]")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "cf", "vs", "al", "approx", "ca", "fig", "figs", "vol", "vols", "no", "nos", "p",
     "pp", "ch", "sec", "eq", "mr", "mrs", "ms", "dr", "prof", "st", "inc", "ltd"}
)  # fmt: skip
"""Words whose period does not end a sentence (lower-cased, inner periods kept: ``e.g``)."""
# Hugo shortcodes ({{< x >}}, {{% x %}}), mdBook/Handlebars directives ({{#include x}}) and
# Liquid/Jinja tags ({% include x %}).
_SHORTCODES_ONLY_RE = re.compile(r"(?:\s*(?:\{\{(?:<.*?>|%.*?%|#.*?)\}\}|\{%.*?%\})\s*)+", re.DOTALL)
_PLACEHOLDER = "\ue000{}\ue001"
_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")


def inline_plain(
    md: MarkdownIt,
    source: str,
    env: dict[str, Any],
    *,
    line_breaks: str = " ",
    front: Mapping[str, Any] | None = None,
) -> str:
    """Parse inline Markdown ``source`` and return its plain text (whitespace not collapsed).

    Args:
        md: the parser whose inline rules to use.
        source: inline Markdown (a heading's or paragraph's content), template tags allowed.
        env: the block parse's environment (holds link reference definitions).
        line_breaks: what soft and hard line breaks become.
        front: the document's front matter, for page variables in template tags.

    Returns:
        The visible text.
    """
    protected, tags = _protect(source)
    tokens: list[Token] = []
    md.inline.parse(protected, md, env, tokens)
    out: list[str] = []
    _collect(tokens, out, line_breaks)
    text = "".join(out)
    if tags:
        text = _restore(text, tags, front)
    return text


def heading_title(
    md: MarkdownIt, source: str, env: dict[str, Any], *, front: Mapping[str, Any] | None = None
) -> str:
    """Plain text of a heading's inline ``source``, whitespace *not* collapsed (the slug is made
    from it); when the text shows nothing but template tags, the readable title of those tags
    (``{{% heading "whatsnext" %}}`` → "What's next", see
    :func:`docmunch.section.templates.title_of`)."""
    text = inline_plain(md, source, env, front=front)
    if text.strip() or not has_tags(source):
        return text
    return collapse(" ".join(title_of(tag, front) for tag in iter_tags(source)))


def template_text(text: str, front: Mapping[str, Any] | None = None, *, heading: bool = False) -> str:
    """Plain ``text`` (no Markdown, e.g. an HTML heading's) with its template tags replaced by
    what they display, collapsed; with ``heading=True`` a text of nothing but tags gets their
    readable title, as in :func:`heading_title`."""
    protected, tags = _protect(text)
    if not tags:
        return collapse(text)
    shown = collapse(_restore(protected, tags, front))
    if heading and not shown:
        return collapse(" ".join(title_of(tag, front) for tag in tags))
    return shown


def _protect(source: str) -> tuple[str, list[Tag]]:
    """``source`` with every template tag replaced by a numbered private-use placeholder."""
    if not has_tags(source) or any(mark in source for mark in "\ue000\ue002\ue003"):
        return source, []
    tags = list(iter_tags(source))
    if not tags:
        return source, []
    pieces: list[str] = []
    pos = 0
    for n, tag in enumerate(tags):
        pieces.append(source[pos : tag.start])
        pieces.append(_PLACEHOLDER.format(n))
        pos = tag.end
    pieces.append(source[pos:])
    return "".join(pieces), tags


def _restore(text: str, tags: list[Tag], front: Mapping[str, Any] | None) -> str:
    """Put tags back; :func:`_collect` wrapped code spans in U+E002 … U+E003."""
    def shown(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return display_of(tags[n], front) if n < len(tags) else ""

    def literal(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n >= len(tags):
            return ""
        tag = tags[n]
        return display_of(tag) if tag.kind == "escaped" else tag.raw

    parts = re.split("(\ue002[^\ue003]*\ue003)", text)
    for i, part in enumerate(parts):
        if part.startswith("\ue002"):
            parts[i] = _PLACEHOLDER_RE.sub(literal, part[1:-1])
        else:
            parts[i] = _PLACEHOLDER_RE.sub(shown, part)
    return "".join(parts)


def _collect(tokens: Sequence[Token], out: list[str], line_breaks: str) -> None:
    for token in tokens:
        kind = token.type
        if kind == "code_inline" and "\ue000" in token.content:
            out.append("\ue002" + token.content + "\ue003")
        elif kind in _TEXT_TYPES:
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

    A sentence ends at a CJK ``。！？``, or at ``.``, ``!`` or ``?`` followed by the end or by
    whitespace and a character that can open a sentence (not a lower-case letter or a digit:
    "e.g. the", "Vol. 85", "the println! macro", "adding :? within" go on); a ``!`` or ``?``
    standing alone is a token the text talks about ("the ? operator"), and a ``.`` after a
    common abbreviation (:data:`_ABBREVIATIONS`) or a single capital (an initial) ends nothing.
    A longer sentence is cut at the last space before the limit (or hard at the
    limit when there is none) and ends with ``…``.
    """
    text = collapse(text)
    sentence = text[: _sentence_end(text)]
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def _sentence_end(text: str) -> int:
    """Index just past the first sentence of collapsed ``text`` (``len(text)`` when none ends)."""
    for match in _SENTENCE_END_RE.finditer(text):
        end = match.end()
        if match.group() in "!?" and text[match.start() - 1 : match.start()] == " ":
            continue  # a stand-alone ``?`` or ``!`` is a token talked about: "the ? operator"
        after = text[end + 1 : end + 2]
        if match.group() in ".!?" and after and (after.islower() or after.isdigit()):
            continue  # "e.g. the", "println! macro", "adding :? within": the sentence goes on
        if match.group() != ".":
            return end
        word = text[: match.start()].rsplit(" ", 1)[-1].lstrip("([\"'").lower()
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        return end
    return len(text)
