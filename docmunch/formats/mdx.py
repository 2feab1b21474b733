"""MDX (``.mdx``) → headings on the user's own bytes, with ESM and JSX lines not read as text.

MDX (mdxjs.com, "What is MDX") is Markdown plus ESM (``import``/``export`` statements at the
start of a line, running to the next blank line) and JSX (``<Tabs>``, ``</Tabs>``,
``<Note type="x" />``, ``{/* comments */}``). Markdown *inside* JSX elements is still
Markdown, so only the ESM blocks, the lines that are nothing but JSX tags or ``{…}``
expressions, are masked: replaced by empty lines in a parse view that keeps every line
where it was. The view goes through the sectioner's own heading rules
(:func:`docmunch.section.outline.heading_specs`: the same CommonMark parse, template and
admonition dialects, raw HTML headings as for ``.md``); its section starts become
:class:`~docmunch.section.model.HeadingSpec` lines, so sections and hashes are computed on
the user's unchanged bytes. Nothing inside a fenced code block is masked.
"""

from __future__ import annotations

import re
from pathlib import Path

from docmunch.errors import ConvertError
from docmunch.formats.base import Rendition
from docmunch.section.frontmatter import find_front_matter
from docmunch.section.outline import heading_specs

__all__ = ["mask_mdx", "render_mdx"]

_ESM = re.compile(r"^(import|export)\b")
_JSX_OPEN = re.compile(r"^\s{0,3}(</?[A-Za-z][\w.:-]*|<>|</>)")
_JSX_NAME = re.compile(r"^\s{0,3}</?([A-Za-z][\w.:-]*)")
_EXPRESSION = re.compile(r"^\s{0,3}\{.*\}\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# HTML block tag names (CommonMark §4.6 type 6): lower-case ones are HTML, not JSX components.
_HTML_BLOCK_NAMES = frozenset((
    "address", "article", "aside", "blockquote", "details", "dialog", "dd", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
))


def mask_mdx(text: str) -> str:
    """The parse view of MDX source: ESM and JSX-only lines emptied, line count unchanged.

    Args:
        text: MDX source with ``\\n`` line ends.

    Returns:
        Text with the same number of lines.
    """
    lines = text.split("\n")
    fence: str | None = None
    in_esm = False
    in_tag = False
    for i, line in enumerate(lines):
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            continue
        if in_esm:
            if not line.strip():
                in_esm = False
            else:
                lines[i] = ""
            continue
        if in_tag:  # a JSX tag spread over several lines
            in_tag = not line.rstrip().endswith(">")
            lines[i] = ""
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)
            continue
        if _ESM.match(line):
            in_esm = True
            lines[i] = ""
            continue
        if _EXPRESSION.match(line):
            lines[i] = ""
            continue
        if _JSX_OPEN.match(line):
            name = _JSX_NAME.match(line)
            if name and name.group(1).lower() in _HTML_BLOCK_NAMES and name.group(1).islower():
                continue  # plain HTML stays HTML, as in Markdown
            stripped = line.rstrip()
            in_tag = not stripped.endswith(">")
            lines[i] = ""
    return "\n".join(lines)


def render_mdx(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Find the headings of an MDX file without treating ESM/JSX as text or headings.

    Args:
        path: the file's path (``source_ref``).
        data: the file's bytes (UTF-8, BOM allowed).
        password: unused.

    Returns:
        A :class:`Rendition` with ``markdown`` = ``data`` unchanged, ``source_kind="mdx"``
        and top-level ``headings`` (titles as inline Markdown, so ``{#id}`` still applies);
        a level-0 spec first when visible text precedes the first heading.

    Raises:
        ConvertError: not valid UTF-8.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from None
    view = mask_mdx(text.replace("\r\n", "\n").replace("\r", "\n"))
    front_end = _front_matter_lines(view)
    if front_end:
        view = "\n" * front_end + "\n".join(view.split("\n")[front_end:])
    front = find_front_matter(data, 3 if data.startswith(b"\xef\xbb\xbf") else 0)
    front_data = front.data if front else {}
    headings = heading_specs(view, front=front_data)
    title = front_data.get("title")
    declared = str(title).strip() or None if isinstance(title, str | int | float) else None
    return Rendition(markdown=data, source_kind="mdx", source_ref=str(path), headings=tuple(headings),
                     title=declared, declared_title=declared)


def _front_matter_lines(view: str) -> int:
    """Number of lines of a leading YAML (``---``) front matter block, 0 when absent."""
    lines = view.split("\n")
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0
