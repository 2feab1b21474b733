"""Code blocks in the extracted content: line-number gutters out, line breaks in, never "unlikely".

Rules (general, no generator named), applied to the page before scoring
(:func:`remove_code_furniture`: the scoring path drops ``style`` attributes) and to the final
content (:func:`normalize_code`):

1. **Gutters** — line numbers are page furniture, never code text. An element is a gutter
   (:func:`is_gutter`) when a class token names line numbers (``linenos``, ``lineno``,
   ``line-numbers``, ``line-number``, ``gutter``, ``hljs-ln-numbers``, ``rouge-gutter``, …) and
   it sits inside a ``<pre>`` or holds nothing but digits; a table cell holding nothing but
   digits in the row of a cell holding the ``<pre>`` (Chroma, Pygments and Rouge tables); or
   an element hidden from readers
   or from selection (``aria-hidden="true"``, ``select-none``/``unselectable`` classes,
   ``user-select: none`` style, ``data-line-number``) and holds nothing but digits. That covers
   gutter table cells (Pygments ``td.linenos``, Rouge ``td.gutter``), per-line number spans and
   gutter columns beside the ``<pre>``. A table whose gutter column is removed is left with the
   code cell (the converter and Readability's single-cell rule unwrap it). A label beside the
   ``<pre>`` that only repeats the block's language (``<span class="lang">js</span>`` in a
   ``div.language-js``) goes too, and so do short links and buttons beside it ("Copy", "Run").
   "Beside" means inside the code block's wrapper: the widest ancestor (three levels at most)
   that holds no other ``<pre>`` and whose text is mostly code.
2. **Line breaks** — ``<br>`` inside a ``<pre>`` becomes a newline; when a highlighter writes
   one element per line without newline characters (``div.token-line``, ``span.line``,
   ``div.cm-line``, table rows, any block element inside ``<pre>``), a newline is put after each
   line element but the last, as a browser's ``innerText`` would show them.
3. **Protection** — :func:`is_code_container` says whether an element is (a wrapper around) a
   code block, so the unlikely-candidate pattern and class-weight cleaning never remove one
   because its class happens to contain ``header``, ``meta`` or ``extra``.
"""

from __future__ import annotations

import re
from itertools import islice

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["is_code_container", "is_gutter", "normalize_code", "remove_code_furniture"]

_GUTTER_CLASS = re.compile(
    r"^(?:line-?nos?|line-?no|lineno\w*|line-?numbers?(?:-\w+)?|linenumbers?|code-line-numbers?|"
    r"gutter|\w+-gutter|gutter-\w+|hljs-ln-n(?:umbers)?|ln|lnt|ln-num|rouge-gutter|blob-num)$",
    re.IGNORECASE,
)
_UNSELECTABLE_CLASS = re.compile(r"^(?:select-none|user-select-none|unselectable|no-select|noselect)$", re.I)
_USER_SELECT_NONE = re.compile(r"user-select\s*:\s*none", re.IGNORECASE)
_DIGITS_ONLY = re.compile(r"^[\s\d]*\d[\s\d]*$")
_LINE_CLASS = re.compile(r"(?:^|[-_])(?:line|ln-line|codeline)$", re.IGNORECASE)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)-([\w+#.\-]+)$", re.IGNORECASE)
_LINE_BLOCKS = frozenset(("div", "p", "tr", "li", "section"))
CONTAINER_SHARE = 0.6
"""An element whose text is at least this share of code (``<pre>`` text) is a code container."""


def _classes(el: HtmlElement) -> list[str]:
    return (el.get("class") or "").split()


def _digits_only(el: HtmlElement) -> bool:
    return _DIGITS_ONLY.match(dom.text_of(el)) is not None


def is_gutter(el: HtmlElement, *, in_pre: bool = False) -> bool:
    """Whether ``el`` is a line-number gutter (see rule 1 of the module docstring).

    ``in_pre``: ``el`` is inside a ``<pre>`` (a gutter class then suffices, whatever its text).
    """
    classes = _classes(el)
    if any(_GUTTER_CLASS.match(c) for c in classes):
        return in_pre or _digits_only(el) or not dom.text_of(el).strip()
    hidden = (
        el.get("aria-hidden") == "true"
        or el.get("data-line-number") is not None
        or any(_UNSELECTABLE_CLASS.match(c) for c in classes)
        or _USER_SELECT_NONE.search(el.get("style") or "") is not None
    )
    return hidden and _digits_only(el)


def is_code_container(el: HtmlElement) -> bool:
    """Whether ``el`` is a ``<pre>``/``<code>`` block or a wrapper whose text is mostly code."""
    if el.tag in ("pre", "code"):
        return True
    pres = list(el.iter("pre"))
    if not pres:
        return False
    total = len(dom.text_of(el).strip())
    code = sum(len(dom.text_of(pre).strip()) for pre in pres)
    return total == 0 or code >= CONTAINER_SHARE * total


def _scope(pre: HtmlElement, levels: int = 3) -> HtmlElement:
    """The widest wrapper of ``pre`` (≤ ``levels`` up) that is still just this code block: it
    holds no other ``<pre>`` and code is at least :data:`CONTAINER_SHARE` of its text."""
    code = len(dom.text_of(pre).strip())
    own = sum(1 for _ in pre.iter("pre"))
    scope = pre
    for _ in range(levels):
        parent = scope.getparent()
        if parent is None or sum(1 for _ in islice(parent.iter("pre"), own + 1)) > own:
            break
        if code < CONTAINER_SHARE * len(dom.text_of(parent).strip()):
            break
        scope = parent
    return scope


_ACTION_WORDS = 3
"""A link or button beside a code block with at most this many words is a tool (Copy, Run,
Open in playground), not text."""


def _is_tool(el: HtmlElement) -> bool:
    return el.tag in ("a", "button") and len(dom.text_of(el).split()) <= _ACTION_WORDS


def _language(pre: HtmlElement, scope: HtmlElement) -> str | None:
    """The language a ``language-x``/``lang-x`` class names on ``pre``, its ``<code>`` or up to ``scope``."""
    nodes = [*pre.iter("code"), pre]
    node: HtmlElement | None = pre
    while node is not scope and node is not None:
        node = node.getparent()
        if node is not None:
            nodes.append(node)
    for el in nodes:
        for token in _classes(el):
            match = _LANGUAGE_CLASS.match(token)
            if match:
                return match.group(1).casefold()
    return None


_TEXT_BLOCKS = frozenset(
    ("p", "li", "dd", "dt", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote")
)


def _loose(el: HtmlElement, scope: HtmlElement) -> bool:
    """Whether ``el`` stands on its own in ``scope``, not inside a paragraph, item or cell."""
    for anc in el.iterancestors():
        if anc is scope:
            return True
        if anc.tag in _TEXT_BLOCKS:
            return False
    return True


def _gutter_cells(pre: HtmlElement) -> list[HtmlElement]:
    """Digits-only cells in the table row that holds ``pre`` in one of its cells."""
    cell = next((a for a in pre.iterancestors("td", "th")), None)
    row = cell.getparent() if cell is not None else None
    if row is None or cell is None:
        return []
    return [c for c in row if c is not cell and c.tag in ("td", "th") and _digits_only(c)]


def _remove_furniture(content: HtmlElement) -> None:
    """Remove gutters, tools and language labels beside a ``<pre>`` (see the module docstring)."""
    doomed: list[HtmlElement] = []
    for pre in list(content.iter("pre")):
        if pre.getparent() is None:
            continue
        doomed.extend(_gutter_cells(pre))
        for el in pre.iterdescendants():
            if el.keys() and is_gutter(el, in_pre=True):  # attribute-less elements never are
                doomed.append(el)
        scope = _scope(pre)
        if scope is pre:
            continue
        language = _language(pre, scope)
        code = set(pre.iter())
        for el in scope.iterdescendants():
            if el in code:
                continue
            if is_gutter(el) or (_is_tool(el) and _loose(el, scope)) or (
                language
                and _loose(el, scope)
                and next(el.iter("pre"), None) is None
                and dom.text_of(el).strip().casefold() == language
            ):
                doomed.append(el)
    for el in doomed:
        if any(anc in doomed for anc in el.iterancestors()):
            continue
        dom.remove(el)


def _break_lines(pre: HtmlElement) -> None:
    for br in list(pre.iter("br")):
        br.tail = "\n" + (br.tail or "")
        dom.remove(br)
    lines = _line_elements(pre)
    for line in lines[:-1]:
        if dom.text_of(line).endswith("\n") or (line.tail or "").startswith("\n"):
            continue
        line.tail = "\n" + (line.tail or "")


def _line_elements(pre: HtmlElement) -> list[HtmlElement]:
    """Outermost per-line elements of ``pre`` that share one parent (``[]`` if fewer than two)."""
    node = pre
    while True:  # descend through single wrappers (<code>, <div class=lines>)
        children = [c for c in node if isinstance(c.tag, str)]
        lines = [c for c in children if c.tag in _LINE_BLOCKS or any(map(_LINE_CLASS.search, _classes(c)))]
        if len(lines) >= 2:
            return lines
        if len(children) == 1 and not (node.text or "").strip():
            node = children[0]
            continue
        return []


def remove_code_furniture(root: HtmlElement) -> None:
    """Rule 1 on the whole page, before scoring (``style="user-select: none"`` is still there)."""
    _remove_furniture(root)


def normalize_code(content: HtmlElement) -> None:
    """Rule 2 on every ``<pre>`` of ``content``, the extracted article (in place); rule 1 ran on
    the whole page already (:func:`remove_code_furniture`), and extraction adds no gutters."""
    for pre in content.iter("pre"):
        _break_lines(pre)
