"""Nesting limits: raw HTML nested too deep is flattened before any parser sees it.

Why: a WHATWG parser checks "has a ``p`` element in button scope" for every block start tag,
walking the stack of open elements, so ``n`` nested ``<div>``s cost O(n²) inside the parser
itself (lexbor: 20,000 levels 0.6 s, 100,000 levels 33 s); lxml's ``append`` also walks the
ancestor chain. Browsers cap the DOM depth too (Blink attaches a node whose parent is 512
deep to that parent's parent, ``kMaximumHTMLParserDOMTreeDepth``); real pages stay far below
our :data:`MAX_TREE_DEPTH`.

How: pages with fewer than :data:`SCAN_MIN_TAGS` ``<`` characters cannot be deep enough to
matter and are not scanned (one C-level ``str.count``). On larger pages a stack of open element
names (void and auto-closing elements ignored, an end tag closing up to :data:`_END_TAG_REACH`
open elements like a parser would) estimates the depth from every ``<name``/``</name`` (a quick
``findall``, ~10 ms on a 330 KB page). Only when that exceeds the cap is the page tokenised
properly (comments and raw-text elements skipped). Start tags that would open deeper than
:data:`MAX_TREE_DEPTH`, and their end tags, are cut out of the text, so their content joins
the deepest allowed element in document order (the scan cuts at half the cap, see
:func:`flatten_deep_nesting`). The tree builder (:mod:`docmunch.extract._parse`) clamps the
depth again exactly.
"""

from __future__ import annotations

import re

from docmunch.extract._budget import check_budget

__all__ = ["MAX_TREE_DEPTH", "SCAN_MIN_TAGS", "flatten_deep_nesting"]

MAX_TREE_DEPTH = 128
"""Deepest element nesting kept (``<html>`` is depth 1), in elements. The deepest of the 452
real pages in the fixtures (news, blogs, Readability's test pages, docs sites) is 38 deep;
Chromium itself stops at 512 (Blink's ``kMaximumHTMLParserDOMTreeDepth``). 128 leaves real
pages untouched and bounds every per-ancestor walk of the extractor and converter, whose cost
on a page of ``n`` elements is at most proportional to ``n × depth``."""

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
    for count, (slash, raw) in enumerate(_QUICK.findall(html)):
        if not count & 4095:
            check_budget()
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
    for count, match in enumerate(_TOKEN.finditer(html)):
        if not count & 4095:
            check_budget()
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
    characters or is not that deep. Linear in the length of ``html``; raises only
    :class:`~docmunch.errors.PageTooComplex` when the page budget runs out.
    """
    if html.count("<") <= SCAN_MIN_TAGS:
        return html
    # <html> and <body> are not counted by the scan, nor are auto-closed elements, which can
    # double the real depth (<ul><li><ul><li>…): half the cap leaves the tree builder's clamp
    # (exact) little to do.
    cap = (MAX_TREE_DEPTH - 2) // 2
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
