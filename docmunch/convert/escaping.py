"""Escaping literal text so that CommonMark reads it back as the same text.

Minimal but sufficient: a character is escaped only where CommonMark (0.31, plus the GFM
table and strikethrough extensions) could read it as markup. Context-free escapes are done when
text enters the converter (:func:`escape_text`); line-start escapes need the finished block and are
done by :func:`escape_line_starts`. The rules follow the CommonMark spec sections "Backslash
escapes", "Entity references", "Emphasis", "Links", "Raw HTML" and the block-start rules of
"ATX headings", "Block quotes", "List items", "Thematic breaks" and "Setext headings".
"""

from __future__ import annotations

import re

__all__ = [
    "HTML_WHITESPACE",
    "code_span",
    "escape_heading_end",
    "escape_line_starts",
    "escape_table_cell",
    "escape_text",
    "link_destination",
    "link_title",
]

HTML_WHITESPACE = re.compile(r"[ \t\n\f\r]+")
"""Runs of ASCII whitespace as defined by the WHATWG HTML standard (collapsed by browsers)."""

# Characters that are always markup-significant inline: backslash, emphasis star, code backtick,
# link brackets. "<" only before something that could open raw HTML or an autolink; "&" only when it
# would start an entity reference; "~" only in runs (GFM strikethrough); "_" only at a word edge
# (intraword "_" never opens or closes emphasis, CommonMark rule 2/6).
_INLINE_SPECIAL = re.compile(
    r"[\\*`\[\]]"
    r"|<(?=[A-Za-z/!?])"
    r"|&(?=#?[A-Za-z0-9]+;)"
    r"|~(?=~)|(?<=~)~"
    r"|(?<![^\W_])_|_(?![^\W_])"
)

_LINE_START = re.compile(
    r"^(?:"
    r"(?P<hash>#{1,6})(?=[ \t]|$)"  # ATX heading
    r"|(?P<quote>>)"  # block quote
    r"|(?P<bullet>[-+])(?=[ \t]|$)"  # bullet list item (also "---" thematic breaks)
    r"|(?P<num>\d{1,9})(?P<delim>[.)])(?=[ \t]|$)"  # ordered list item
    r"|(?P<setext>[=-]+)[ \t]*$"  # setext underline / thematic break ("- - -" is a bullet above)
    r"|(?=[|:\- \t]*$)(?=.*-)(?=.*[|:])(?P<delimiter>[|:\-])"  # GFM table delimiter row
    r")"
)


def escape_text(text: str) -> str:
    """Escape the markup characters of a whitespace-collapsed text run (no line-start rules).

    ``text`` is literal character data (entities already decoded); returns Markdown whose
    rendered text content equals ``text``.
    """
    return _INLINE_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def _escape_one_line(line: str) -> str:
    match = _LINE_START.match(line)
    if match is None:
        return line
    if match.group("num") is not None:
        end = match.end("num")
        return line[:end] + "\\" + line[end:]
    return "\\" + line


def escape_line_starts(block: str) -> str:
    """Escape characters at the start of each line of a paragraph that would open a block.

    ``block`` is paragraph Markdown whose lines are already stripped of leading spaces (an
    indented line never opens a code block inside a paragraph, but it is stripped anyway).
    """
    return "\n".join(_escape_one_line(line) for line in block.split("\n"))


def escape_heading_end(text: str) -> str:
    """Escape a trailing run of ``#`` that an ATX heading would take as its closing sequence,
    and a trailing literal ``{#...}`` that would read as a heading attribute block (``\\{``)."""
    attribute = re.search(r"\{#[^{}]*\}[ \t]*$", text)
    if attribute is not None:
        text = text[: attribute.start()] + "\\" + text[attribute.start() :]
    match = re.search(r"(^|[ \t])(#+)[ \t]*$", text)
    if match is None:
        return text
    start = match.start(2)
    return text[:start] + "\\" + text[start:]


def escape_table_cell(text: str) -> str:
    """Escape ``|`` for a GFM table cell (also inside code spans, as the GFM spec requires)."""
    return text.replace("|", "\\|")


def code_span(text: str) -> str:
    """An inline code span for ``text`` (already whitespace-collapsed), or ``""`` if empty.

    The backtick fence is one longer than the longest backtick run inside; a space pads both
    sides when the content starts or ends with a backtick, or starts *and* ends with a space
    (CommonMark "Code spans": one leading and one trailing space are stripped in that case).
    """
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip(" ") != "")
    if pad:
        return f"{fence} {text} {fence}"
    return f"{fence}{text}{fence}"


_UNSAFE_BARE = re.compile(r"[\x00-\x20<>\x7f]")


def link_destination(url: str) -> str:
    """A link destination for ``url``: bare when safe, else in pointy brackets.

    Bare destinations cannot hold spaces, control characters or unbalanced parentheses; the
    ``<...>`` form can hold everything but line breaks and unescaped ``<``/``>``.
    """
    url = url.replace("\\", "%5C").replace("\n", "%0A").replace("\r", "%0D")
    if not url:
        return "<>"
    if "(" not in url and ")" not in url and not _UNSAFE_BARE.search(url):
        return url
    depth = 0
    balanced = True
    for char in url:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                balanced = False
                break
    if depth != 0:
        balanced = False
    if balanced and not _UNSAFE_BARE.search(url):
        return url
    return "<" + url.replace("<", "\\<").replace(">", "\\>") + ">"


def link_title(title: str) -> str:
    """A double-quoted link title with ``"`` and ``\\`` escaped, whitespace collapsed."""
    title = HTML_WHITESPACE.sub(" ", title).strip()
    return '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
