"""Nesting limits: raw HTML nested too deep is flattened before any parser sees it.

Why: a WHATWG parser checks "has a ``p`` element in button scope" for every block start tag,
walking the stack of open elements, so ``n`` nested ``<div>``s cost O(n²) inside the parser
itself (lexbor: 20,000 levels 0.6 s, 100,000 levels 33 s); lxml's ``append`` also walks the
ancestor chain. Browsers cap the DOM depth anyway (Blink attaches a node whose parent is 512
deep to that parent's parent, ``kMaximumHTMLParserDOMTreeDepth``), so nothing a reader sees
lives deeper.

How: pages with fewer than :data:`SCAN_MIN_TAGS` ``<`` characters cannot be deep enough to
matter and are not scanned (one C-level ``str.count``). On larger pages a stack of open element
names (void and auto-closing elements ignored, an end tag closing up to :data:`_END_TAG_REACH`
open elements like a parser would) estimates the depth from every ``<name``/``</name`` (a quick
``findall``, ~10 ms on a 330 KB page). Only when that exceeds the cap is the page tokenised
properly (comments and raw-text elements skipped). Start tags that would open deeper than
:data:`MAX_TREE_DEPTH`, and their end tags, are cut out of the text, so their content joins
the deepest allowed element in document order. The tree builder
(:mod:`docmunch.extract._parse`) clamps the depth again exactly.
"""

from __future__ import annotations

import re

__all__ = ["MAX_TREE_DEPTH", "SCAN_MIN_TAGS", "flatten_deep_nesting"]

MAX_TREE_DEPTH = 512
"""Deepest element nesting kept (``<html>`` is depth 1), in elements: Blink's limit
(``kMaximumHTMLParserDOMTreeDepth = 512`` in Chromium's html_construction_site.cc)."""

SCAN_MIN_TAGS = 10_000
"""Pages with at most this many ``<`` characters are never scanned: 10,000 nested blocks cost
the parser ~0.15 s on this project's 2-core machine, and real pages stay far below that depth."""

_END_TAG_REACH = 8
"""How many open elements an end tag may close to find its start tag (``</div>`` closing
unclosed ``<span>``s); a farther or missing match is a stray end tag and is ignored."""

_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)\b[^>]*>.*?(?:</\1\s*>|\Z)"
    r"""|<(/?)([A-Za-z][^\s/>]*)(?:[^>"']+|"[^"]*"|'[^']*')*>""",
    re.DOTALL | re.IGNORECASE,
)

_QUICK = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
"""First, cheaper pass: every tag-like ``<name`` / ``</name`` (scripts and comments included)."""

# Elements that never hold nesting depth: void elements, and those a parser closes by itself
# when a sibling starts (list items, paragraphs, table rows and cells, options, ruby parts).
_NOT_NESTING = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr", "param", "keygen", "frame", "basefont", "bgsound", "image",
        "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "colgroup", "caption",
        "option", "optgroup", "rb", "rt", "rp", "rtc", "html", "head", "body",
    }
)  # fmt: skip


def _max_depth(html: str) -> int:
    """Estimated deepest nesting of ``html`` (upper bound-ish: ``<`` inside scripts counts)."""
    stack: list[str] = []
    deepest = 0
    for slash, raw in _QUICK.findall(html):
        name = raw.lower()
        if name in _NOT_NESTING:
            continue
        if not slash:
            stack.append(name)
            if len(stack) > deepest:
                deepest = len(stack)
            continue
        reach = min(len(stack), _END_TAG_REACH)
        for back in range(1, reach + 1):
            if stack[-back] == name:
                del stack[-back:]
                break
    return deepest


def _cut_spans(html: str, cap: int) -> list[tuple[int, int]]:
    """Character spans of the start/end tags that would open deeper than ``cap``."""
    stack: list[tuple[str, bool]] = []  # (name, kept)
    kept_depth = 0
    cuts: list[tuple[int, int]] = []
    for match in _TOKEN.finditer(html):
        raw = match.group(3)
        if raw is None:
            continue
        name = raw.lower()
        if name in _NOT_NESTING:
            continue
        if not match.group(2):
            keep = kept_depth < cap
            stack.append((name, keep))
            if keep:
                kept_depth += 1
            else:
                cuts.append(match.span())
            continue
        reach = min(len(stack), _END_TAG_REACH)
        for back in range(1, reach + 1):
            if stack[-back][0] == name:
                was_kept = True
                for _ in range(back):
                    _, was_kept = stack.pop()
                    kept_depth -= was_kept
                if not was_kept:
                    cuts.append(match.span())
                break
    return cuts


def flatten_deep_nesting(html: str) -> str:
    """``html`` with start/end tags nested deeper than :data:`MAX_TREE_DEPTH` cut out.

    Returns ``html`` itself (same object) when it has at most :data:`SCAN_MIN_TAGS` ``<``
    characters or is not that deep. Linear in the length of ``html``; never raises.
    """
    if html.count("<") <= SCAN_MIN_TAGS:
        return html
    cap = MAX_TREE_DEPTH - 2  # <html> and <body> are not counted by the scan
    if _max_depth(html) <= cap:
        return html
    cuts = _cut_spans(html, cap)
    if not cuts:
        return html
    pieces: list[str] = []
    position = 0
    for start, end in cuts:
        pieces.append(html[position:start])
        position = end
    pieces.append(html[position:])
    return "".join(pieces)
