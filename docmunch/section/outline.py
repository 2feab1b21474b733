"""Which lines start sections: the CommonMark block parse of the parse view.

The body's parse view (:mod:`docmunch.section.dialects`) goes through markdown-it-py's block
parser. Section starts, in document order:

* ATX and setext headings at the top nesting level (not in block quotes, list items, or the
  interior of a container template block);
* ``<h1>``–``<h6>`` in top-level HTML blocks (:mod:`docmunch.section.html_headings`), outside
  container template blocks.

Each start carries its title as inline Markdown (an HTML heading's plain text is
backslash-escaped, with its ``id`` as ``{#id}``, so the one title rule of the splitter applies)
and the summary: the first sentence of the first paragraph of its own body that has visible
text (paragraphs made only of template tags skipped), or of the text after an HTML heading in
its block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from docmunch.section.dialects import parse_view
from docmunch.section.html_headings import html_headings
from docmunch.section.model import HeadingSpec
from docmunch.section.plain import first_sentence, inline_plain, is_shortcode_only, template_text

__all__ = ["MD", "RawHeading", "escape_inline", "heading_specs", "scan"]

class _ParseOnly(MarkdownIt):
    """markdown-it-py that reads every link destination as a link.

    Its default ``validateLink`` turns ``[text](file:///x)``, ``javascript:`` and ``data:``
    links back into literal text — a guard for *rendering* HTML. We never render: we read
    titles and summaries, where a link must give its text, not ``[text](file:///…)``.
    """

    def validateLink(self, url: str) -> bool:
        return True


MD = _ParseOnly("commonmark").enable("table")
"""The CommonMark (+ GFM tables) parser every Markdown body is sectioned with (parse only:
links of every scheme are links, see :class:`_ParseOnly`)."""

SUMMARY_SOURCE_CHARS = 2000
"""Characters of a paragraph's inline source parsed for its summary: inline parsing is the
costly part and can go quadratic on odd input (markdown-it-py on 300 000 characters of ``[``
takes seconds); the first sentence lies well within this prefix."""
HTML_TITLE_CHARS = 500
"""Longest HTML heading title kept, in characters (an unclosed ``<h2>`` runs to its block's end)."""
_ASCII_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")


@dataclass(slots=True)
class RawHeading:
    """A section start found in the body, before slugs and ids."""

    line: int
    """0-based line in the body where the section starts."""
    level: int
    """0 for the preamble, else 1–6."""
    source: str
    """Title as inline Markdown (``{#id}`` at the end is an explicit id)."""
    summary: str | None = None
    """First sentence of the section's own body, if one was found."""
    start: int = 0
    """Byte offset of the start line in the stored bytes (set by the splitter)."""


def escape_inline(text: str) -> str:
    """Backslash-escape every ASCII punctuation character (CommonMark §2.4), so that inline
    parsing gives ``text`` back unchanged."""
    return _ASCII_PUNCT.sub(r"\\\1", text)


def scan(
    body: str, md: MarkdownIt, env: dict[str, Any], *, front: Mapping[str, Any] | None = None
) -> tuple[list[RawHeading], str | None]:
    """Section starts of a Markdown body (module docstring).

    Args:
        body: the body after front matter, ``\\n`` line ends, no NUL.
        md: the block/inline parser.
        env: the parse environment (filled with link reference definitions).
        front: the document's front matter (page variables in template tags).

    Returns:
        ``(headings, preamble_summary)``: top-level headings in order, and the summary of the
        text before the first one.
    """
    view = parse_view(body)
    tokens: list[Token] = []
    md.block.parse(view.text, md, env, tokens)  # returns None for empty input; fills `tokens`
    preamble = RawHeading(0, 0, "")
    headings: list[RawHeading] = []
    current = preamble
    for i, token in enumerate(tokens):
        if token.level != 0 and token.type != "paragraph_open":
            continue
        if token.type == "heading_open" and token.map is not None:
            if view.in_container(token.map[0]):
                continue
            current = RawHeading(token.map[0], int(token.tag[1]), tokens[i + 1].content)
            headings.append(current)
        elif token.type == "html_block" and token.map is not None:
            for found in html_headings(token.content, token.map[0]):
                if view.in_container(found.line) or (headings and found.line <= headings[-1].line):
                    continue
                title = template_text(found.title[:HTML_TITLE_CHARS], front, heading=True)
                source = escape_inline(title) + (f" {{#{found.anchor}}}" if _plain_id(found.anchor) else "")
                summary = first_sentence(template_text(found.after, front)) if found.after else None
                current = RawHeading(found.line, found.level, source, summary or None)
                headings.append(current)
        elif token.type == "paragraph_open" and current.summary is None:
            content = tokens[i + 1].content[:SUMMARY_SOURCE_CHARS]
            if is_shortcode_only(content):
                continue
            text = inline_plain(md, content, env, front=front)
            if text.strip():
                current.summary = first_sentence(text)
    return headings, preamble.summary


def heading_specs(text: str, *, front: Mapping[str, Any] | None = None) -> list[HeadingSpec]:
    """Section starts of a Markdown text whose own syntax a renderer has masked first (MDX):
    the same rules as :func:`~docmunch.section.split_markdown`, as :class:`HeadingSpec` lines.

    Args:
        text: the masked text, same lines as the stored file (``\r\n``/``\r`` allowed).
        front: the file's front matter, for page variables in template tags.

    Returns:
        Specs in order; a level-0 spec first when visible text precedes the first heading.
    """
    body = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    headings, preamble_summary = scan(body, MD, {}, front=front)
    lines = body.split("\n")
    first = headings[0].line if headings else len(lines)
    lead = next((n for n in range(first) if lines[n].strip()), None)
    specs = [HeadingSpec(lead, 0, "", summary=preamble_summary or "")] if lead is not None else []
    specs.extend(HeadingSpec(h.line, h.level, h.source, summary=h.summary or "") for h in headings)
    return specs


def _plain_id(anchor: str | None) -> bool:
    """An ``id`` usable as an explicit ``{#id}`` (no whitespace or braces)."""
    return bool(anchor) and re.fullmatch(r"[^\s{}#]+", anchor or "") is not None
