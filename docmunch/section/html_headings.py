"""Raw HTML headings (``<h1>``–``<h6>``) in the HTML blocks of a Markdown document.

GitHub, GitLab, Docusaurus and MkDocs render a README's ``<h1 align="center">Name</h1>`` or a
reference page's ``<h2>Overview</h2>`` as headings, and readers see them in the outline, so an
``<hN>`` element in a *top-level* CommonMark HTML block (§4.6) starts a section of level N,
with the same id, slug and byte-range rules as an ATX heading: its ``id`` attribute is an
explicit id (like ``{#id}``), its text (entities resolved, tags dropped, an image's ``alt`` when
there is no text) the title.

The block's HTML is read by the standard library's tokenizer (:class:`html.parser.HTMLParser`):
tag names are case-insensitive (``<H3 id="x">``), comments are never content, and an ``<hN>``
nested in :data:`SKIPPED_ELEMENTS` (``pre``, ``code``, ``script``, block quotes, lists, tables,
``details`` …) is not an outline heading, as for Markdown headings in block quotes and lists.
HTML blocks of CommonMark types 1 and 2 (``<pre>``, ``<script>``, comments) hold no headings;
HTML inside fenced code is no HTML block at all.

Where the section starts: at the heading's line; when it is the first heading of its block and
only markup (no visible text) precedes it in the block — ``<div align="center">`` and a logo
``<img>`` above a README title — at the block's first line, so the wrapper stays with it.
Two headings on one line start one section (the first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["SKIPPED_ELEMENTS", "HtmlHeading", "html_headings"]

SKIPPED_ELEMENTS = frozenset({
    "pre", "code", "script", "style", "textarea", "template", "svg", "math", "blockquote", "details",
    "li", "table", "nav", "aside", "dl",
})
"""Elements whose descendant headings are not outline headings."""
_NO_TEXT = frozenset({"pre", "script", "style", "textarea", "template", "svg", "math"})
"""Elements whose text is neither title nor summary (inline ``<code>`` text is kept)."""
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_SUMMARY_CHARS = 600


@dataclass(frozen=True, slots=True)
class HtmlHeading:
    """An ``<hN>`` element of an HTML block."""

    line: int
    """0-based line (within the parsed text) where its section starts."""
    level: int
    """1–6 from the tag name."""
    title: str
    """Plain text, whitespace collapsed (may be empty)."""
    anchor: str | None
    """Its ``id`` attribute, if any."""
    after: str
    """Visible text that follows it in the same block (up to 600 characters), for the summary."""


@dataclass(slots=True)
class _Found:
    line: int
    level: int
    anchor: str | None
    text_before: bool
    parts: list[str] = field(default_factory=list)
    alts: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    """Collects ``<hN>`` elements outside skipped elements, their text and what follows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip: dict[str, int] = {}
        self.found: list[_Found] = []
        self.open: _Found | None = None
        self.text_before = False

    def _skipping(self) -> bool:
        return any(self.skip.values())

    def _textless(self) -> bool:
        return any(self.skip.get(tag) for tag in _NO_TEXT)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED_ELEMENTS:
            self.skip[tag] = self.skip.get(tag, 0) + 1
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt and self.open is not None:
                self.open.alts.append(alt)
        elif tag in _HEADINGS and not self._skipping():
            self.open = _Found(self.getpos()[0] - 1, _HEADINGS[tag], dict(attrs).get("id") or None,
                               self.text_before)
            self.found.append(self.open)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED_ELEMENTS:
            self.skip[tag] = max(0, self.skip.get(tag, 0) - 1)
        elif self.open is not None and _HEADINGS.get(tag) == self.open.level:
            self.open = None

    def handle_data(self, data: str) -> None:
        if self._textless():
            return
        if self.open is not None:
            self.open.parts.append(data)
        elif self.found:
            after = self.found[-1].after
            if sum(map(len, after)) < _SUMMARY_CHARS:
                after.append(data)
        elif data.strip():
            self.text_before = True


def html_headings(html: str, first_line: int) -> list[HtmlHeading]:
    """The outline headings of one top-level HTML block.

    Args:
        html: the block's source (markdown-it's ``html_block`` content, ``\\n`` line ends).
        first_line: 0-based line of the block's first line in the parsed text.

    Returns:
        Headings in order, at most one per line (see the module docstring for where each
        section starts); empty when the block holds none.
    """
    if "<h" not in html and "<H" not in html:
        return []
    reader = _Reader()
    try:
        reader.feed(html)
        reader.close()
    except (AssertionError, ValueError):  # malformed markup the tokenizer gives up on
        pass
    out: list[HtmlHeading] = []
    for n, found in enumerate(reader.found):
        title = " ".join("".join(found.parts).split()) or " ".join(" ".join(found.alts).split())
        start = 0 if n == 0 and not found.text_before else found.line
        if out and first_line + start <= out[-1].line:
            continue
        after = " ".join("".join(found.after).split())
        out.append(HtmlHeading(first_line + start, found.level, title, found.anchor, after))
    return out
