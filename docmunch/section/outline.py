"""Which lines start sections: the CommonMark block parse of the parse view.

The body's parse view (:mod:`docmunch.section.dialects`) goes through the block parser of
:mod:`docmunch.section.blocks` (pulldown-cmark); titles and summaries are inline-parsed with
markdown-it-py. Section starts, in document order:

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt

from docmunch.section.blocks import Block, outline_blocks
from docmunch.section.dialects import parse_view
from docmunch.section.html_headings import html_headings
from docmunch.section.model import HeadingSpec
from docmunch.section.plain import first_sentence, inline_plain, is_shortcode_only, template_text

__all__ = ["MD", "BlockParser", "RawHeading", "escape_inline", "heading_specs", "scan"]

BlockParser = Callable[[str], tuple[list[Block], dict[str, dict[str, Any]]]]
"""A block parser for :func:`scan`: parse view → ``(blocks, link references)``."""

class _ParseOnly(MarkdownIt):
    """markdown-it-py that reads every link destination as a link.

    Its default ``validateLink`` turns ``[text](file:///x)``, ``javascript:`` and ``data:``
    links back into literal text — a guard for *rendering* HTML. We never render: we read
    titles and summaries, where a link must give its text, not ``[text](file:///…)``.
    """

    def validateLink(self, url: str) -> bool:
        return True


MD = _ParseOnly("commonmark").enable("table")
"""The CommonMark (+ GFM tables) parser of every title and summary (inline parse only: links
of every scheme are links, see :class:`_ParseOnly`)."""

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
    body: str,
    md: MarkdownIt,
    env: dict[str, Any],
    *,
    front: Mapping[str, Any] | None = None,
    blocks_of: BlockParser = outline_blocks,
) -> tuple[list[RawHeading], str | None]:
    """Section starts of a Markdown body (module docstring).

    Args:
        body: the body after front matter, ``\\n`` line ends, no NUL.
        md: the inline parser (titles and summaries).
        env: the inline parse environment (filled with the link reference definitions).
        front: the document's front matter (page variables in template tags).
        blocks_of: the block parser (:func:`~docmunch.section.blocks.outline_blocks`; the
            tests pass markdown-it-py's own as the oracle it is compared with).

    Returns:
        ``(headings, preamble_summary)``: top-level headings in order, and the summary of the
        text before the first one.
    """
    view = parse_view(body)
    blocks, references = blocks_of(view.text)
    if references:
        env.setdefault("references", {}).update(references)
    preamble = RawHeading(0, 0, "")
    headings: list[RawHeading] = []
    current = preamble
    for block in blocks:
        if block.kind == "heading":
            if view.in_container(block.line):
                continue
            current = RawHeading(block.line, block.level, block.content)
            headings.append(current)
        elif block.kind == "html":
            for found in html_headings(block.content, block.line):
                if view.in_container(found.line) or (headings and found.line <= headings[-1].line):
                    continue
                title = template_text(found.title[:HTML_TITLE_CHARS], front, heading=True)
                source = escape_inline(title) + (f" {{#{found.anchor}}}" if _plain_id(found.anchor) else "")
                summary = first_sentence(template_text(found.after, front)) if found.after else None
                current = RawHeading(found.line, found.level, source, summary or None)
                headings.append(current)
        elif current.summary is None:  # a paragraph
            content = block.content[:SUMMARY_SOURCE_CHARS]
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
