"""Inline elements: emphasis, links, images, line breaks, inline code, ``<sup>``/``<sub>``/``<kbd>``.

Decisions:

* ``*em*``, ``**strong**``, ``~~del~~``; a pair that would not parse back (flanking rules) is
  written as inline HTML instead (see :mod:`docmunch.convert.emphasis`). Nested same-kind
  emphasis is flattened (``<em><em>x</em></em>`` is just ``*x*``).
* Links ``[text](url "title")``; the bare URL form ``<url>`` when the text is the URL itself;
  ``javascript:``/``vbscript:``/``data:`` links keep only their text; links without text vanish.
  Relative URLs are resolved against ``base_url`` (:func:`docmunch.extract.join_url`).
* Images ``![alt](src "title")``; the source is the largest ``srcset`` candidate (widest ``w``,
  else highest ``x``), else ``src`` / ``data-src``; ``data:`` images are dropped (they bloat the
  index).
* ``<br>`` is a hard break, written with a backslash (no significant trailing spaces).
* ``<sup>``, ``<sub>`` and ``<kbd>`` stay inline HTML around Markdown content.
* Checkboxes (task lists) become ``[x]`` / ``[ ]``.
"""

from __future__ import annotations

import re

from lxml import etree

from docmunch.convert.blocks import EndHandler
from docmunch.convert.emphasis import CLOSE, IMAGE_BANG, LINK_OPEN, MARKERS, OPEN
from docmunch.convert.escaping import (
    HTML_WHITESPACE,
    escape_text,
    link_destination,
    link_title,
)
from docmunch.convert.state import InlineFrame, State, element_tag
from docmunch.extract import join_url

__all__ = [
    "absolute_url",
    "srcset_candidates",
    "start_br",
    "start_checkbox",
    "start_code",
    "start_emphasis",
    "start_html_inline",
    "start_img",
    "start_kbd",
    "start_link",
    "subtree_text",
]

_EMPHASIS_KIND = {
    "em": "em",
    "i": "em",
    "cite": "em",
    "dfn": "em",
    "var": "em",
    "strong": "strong",
    "b": "strong",
    "del": "del",
    "s": "del",
    "strike": "del",
}
_UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:")
_AUTOLINK = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>\x00-\x1f]*$")


def absolute_url(state: State, url: str) -> str:
    """``url`` resolved against the converter's base URL (unchanged without one; a root-relative
    URL in a ``file:`` page kept as written, see :func:`docmunch.extract.join_url`)."""
    url = url.strip()
    return join_url(state.base_url, url) if state.base_url else url


def subtree_text(element: etree._Element) -> str:
    """All character data under ``element`` (iterative; ``<br>`` counts as a newline)."""
    out: list[str] = []
    walker = etree.iterwalk(element, events=("start", "end", "comment", "pi"))
    for event, node in walker:
        if event == "start":
            if element_tag(node) == "br":
                out.append("\n")
            elif node.text:
                out.append(node.text)
        elif node is not element and node.tail:
            out.append(node.tail)
    return "".join(out)


def _split_edges(content: str) -> tuple[str, str, str]:
    core = content.strip(" \n")
    if not core:
        return content, "", ""
    start = content.index(core[0])
    lead = content[:start]
    trail = content[start + len(core) :]
    return lead, core, trail


def _end_inline(state: State, element: etree._Element) -> None:
    state.pop_inline()


# -- emphasis -------------------------------------------------------------------------------


def _render_emphasis(frame: InlineFrame, content: str) -> str:
    lead, core, trail = _split_edges(content)
    if not core:
        return " " if content else ""
    return lead + OPEN[frame.kind] + core + CLOSE[frame.kind] + trail


def start_emphasis(state: State, element: etree._Element) -> EndHandler | None:
    """``<em>``/``<i>``, ``<strong>``/``<b>``, ``<del>``/``<s>``."""
    kind = _EMPHASIS_KIND[element_tag(element)]
    if kind in state.inline_kinds():
        return None
    state.push_inline(kind, _render_emphasis)
    return _end_inline


# -- links and images -----------------------------------------------------------------------


def _render_link(frame: InlineFrame, content: str) -> str:
    url, title = frame.data
    lead, core, trail = _split_edges(content)
    if not core:
        return " " if content else ""
    if title is None and _AUTOLINK.match(url) and core == escape_text(url) and not (MARKERS & set(core)):
        return f"{lead}<{url}>{trail}"
    title_part = f" {link_title(title)}" if title else ""
    return f"{lead}{LINK_OPEN}{core}]({link_destination(url)}{title_part}){trail}"


def start_link(state: State, element: etree._Element) -> EndHandler | None:
    """``<a href>``; anchors without ``href`` and unsafe schemes are transparent."""
    href = (element.get("href") or "").strip()
    if not href or href.lower().startswith(_UNSAFE_SCHEMES) or "a" in state.inline_kinds():
        return None
    title = element.get("title")
    state.push_inline("a", _render_link, (absolute_url(state, href), title.strip() if title else None))
    return _end_inline


_DESCRIPTOR = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)([wxh])$")


def srcset_candidates(srcset: str) -> list[tuple[str, float, str]]:
    """Candidates of a ``srcset`` value as ``(url, size, unit)``, in order.

    Parsed after the HTML Living Standard's "parse a srcset attribute": a URL is a run of
    non-whitespace (trailing commas end the candidate), then descriptors up to the next comma.
    ``unit`` is ``"w"`` (width in pixels) or ``"x"`` (pixel density, default ``1``).
    """
    out: list[tuple[str, float, str]] = []
    position, end = 0, len(srcset)
    while position < end:
        while position < end and (srcset[position].isspace() or srcset[position] == ","):
            position += 1
        start = position
        while position < end and not srcset[position].isspace():
            position += 1
        url = srcset[start:position]
        descriptors = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = srcset.find(",", position)
            stop = end if comma < 0 else comma
            descriptors, position = srcset[position:stop], stop
        if not url:
            continue
        size, unit = 1.0, "x"
        for token in descriptors.split():
            match = _DESCRIPTOR.match(token)
            if match and match.group(2) in "wx":
                size, unit = float(match.group(1)), match.group(2)
        out.append((url, size, unit))
    return out


def _largest_candidate(element: etree._Element) -> str | None:
    """The largest candidate of ``srcset`` / ``data-srcset``: widest ``w``, else highest ``x``."""
    candidates = srcset_candidates(element.get("srcset") or element.get("data-srcset") or "")
    if not candidates:
        return None
    widths = [c for c in candidates if c[2] == "w"]
    return max(widths or candidates, key=lambda c: c[1])[0]


def start_img(state: State, element: etree._Element) -> None:
    """``<img>``: ``![alt](src "title")``."""
    state.skip()
    src = (_largest_candidate(element) or element.get("src") or element.get("data-src") or "").strip()
    if src.lower().startswith("data:"):  # a placeholder in srcset: fall back to the real source
        src = (element.get("src") or element.get("data-src") or "").strip()
    if not src or src.lower().startswith(_UNSAFE_SCHEMES):
        return
    alt = HTML_WHITESPACE.sub(" ", element.get("alt") or "").strip()
    title = element.get("title")
    title_part = f" {link_title(title)}" if title and title.strip() else ""
    url = link_destination(absolute_url(state, src))
    state.add_markdown(f"{IMAGE_BANG}[{escape_text(alt)}]({url}{title_part})")


# -- breaks, code, HTML-kept elements --------------------------------------------------------


def start_br(state: State, element: etree._Element) -> None:
    """``<br>``: a hard break marker, resolved per context (paragraph, heading, cell)."""
    state.add_markdown("\n", ends_in_space=True)


def start_code(state: State, element: etree._Element) -> None:
    """Inline ``<code>``/``<tt>``/``<samp>``: a code span of the whitespace-collapsed text."""
    state.skip()
    text = HTML_WHITESPACE.sub(" ", subtree_text(element))
    if not text.strip(" "):
        state.add_text(text)
        return
    state.add_code(text)


def start_kbd(state: State, element: etree._Element) -> None:
    """``<kbd>``: kept as inline HTML around the escaped key text."""
    state.skip()
    text = HTML_WHITESPACE.sub(" ", subtree_text(element)).strip()
    if text:
        state.add_markdown(f"<kbd>{escape_text(text)}</kbd>")


def _render_html(frame: InlineFrame, content: str) -> str:
    lead, core, trail = _split_edges(content)
    if not core:
        return " " if content else ""
    return f"{lead}<{frame.data}>{core}</{frame.data}>{trail}"


def start_html_inline(state: State, element: etree._Element) -> EndHandler:
    """``<sup>``/``<sub>``: inline HTML tags around Markdown content."""
    state.push_inline("html", _render_html, element_tag(element))
    return _end_inline


def start_checkbox(state: State, element: etree._Element) -> None:
    """``<input type=checkbox>``: ``[x]`` or ``[ ]`` (task list items); other inputs vanish."""
    state.skip()
    if (element.get("type") or "").lower() != "checkbox":
        return
    box = "x" if element.get("checked") is not None else " "
    state.add_markdown(f"{LINK_OPEN}{box}] ", ends_in_space=True)
