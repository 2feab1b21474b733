"""Code blocks: ``<pre>`` to fenced code with the exact text and the language.

* Text is the ``<pre>``'s character data exactly (tabs, blank lines, leading spaces; entities
  were decoded by the parser), with syntax-highlighting spans flattened and ``<br>`` as newline.
  Line-number gutters (``span.linenos``, ``.lineno``, ``.line-numbers-rows``, …) and buttons are
  not code text.
* Language: ``lang``/``data-lang``/``data-language`` on ``<pre>``/``<code>``, else the first
  ``language-x``, ``lang-x``, ``highlight-source-x`` or ``highlight-x`` class on ``<code>``,
  ``<pre>`` or up to six wrapper ancestors (Sphinx ``highlight-python``, MkDocs/Docusaurus
  ``language-js``, GitHub ``highlight-source-python``).
* Fence: ```````` ``` ```````` unless the text contains that, then ``~~~``, else a backtick fence
  one longer than the longest backtick run inside.
* Pygments line-number tables (``table.highlighttable`` with ``td.linenos``) are reduced to their
  code cell by the table handler, which calls :func:`code_block` on its ``<pre>``.
"""

from __future__ import annotations

import re

from lxml import etree

from docmunch.convert.escaping import HTML_WHITESPACE
from docmunch.convert.state import State, class_tokens, element_tag

__all__ = ["code_block", "code_language", "fenced", "is_gutter", "pre_text", "start_pre", "start_span"]

_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight-source|highlight)-([\w+#.\-]+)$")
_LANGUAGE_NAME = re.compile(r"^[\w+#.\-]+$")
_GUTTER_CLASSES = frozenset(
    {"linenos", "lineno", "linenodiv", "line-numbers-rows", "line-numbers-wrapper", "gutter", "line-number"}
)
_NOT_CODE_TAGS = frozenset({"button", "script", "style", "template"})
_MAX_WRAPPERS = 6


def is_gutter(element: etree._Element) -> bool:
    """Whether ``element`` is a line-number gutter (not part of the code text)."""
    return not _GUTTER_CLASSES.isdisjoint(class_tokens(element))


def pre_text(pre: etree._Element) -> str:
    """The exact text of a ``<pre>`` (iterative walk; gutters and buttons left out)."""
    out: list[str] = []
    walker = etree.iterwalk(pre, events=("start", "end", "comment", "pi"))
    for event, node in walker:
        if event == "start":
            tag = element_tag(node)
            if node is not pre and (tag in _NOT_CODE_TAGS or is_gutter(node)):
                walker.skip_subtree()
            elif tag == "br":
                out.append("\n")
            elif node.text:
                out.append(node.text)
        elif node is not pre and node.tail:
            out.append(node.tail)
    return "".join(out)


def _class_language(element: etree._Element) -> str | None:
    for token in class_tokens(element):
        match = _LANGUAGE_CLASS.match(token)
        if match:
            return match.group(1)
    return None


def code_language(pre: etree._Element) -> str | None:
    """The language named by ``pre``, its ``<code>`` child or its wrappers, or ``None``."""
    code = next((child for child in pre if element_tag(child) == "code"), None)
    own = [node for node in (code, pre) if node is not None]
    for node in own:
        for attribute in ("data-lang", "data-language", "lang"):
            value = (node.get(attribute) or "").strip()
            if value and _LANGUAGE_NAME.match(value):
                return value
    for node in own:
        language = _class_language(node)
        if language:
            return language
    ancestor = pre.getparent()
    for _ in range(_MAX_WRAPPERS):
        if ancestor is None:
            break
        language = _class_language(ancestor)
        if language:
            return language
        ancestor = ancestor.getparent()
    return None


def fenced(text: str, language: str | None) -> str:
    """A fenced code block holding ``text`` exactly (a final newline is implied by the fence)."""
    if "```" not in text:
        fence = "```"
    elif "~~~" not in text:
        fence = "~~~"
    else:
        longest = max(len(run) for run in re.findall(r"`+", text))
        fence = "`" * (longest + 1)
    body = text if not text or text.endswith("\n") else text + "\n"
    return f"{fence}{language or ''}\n{body}{fence}"


def code_block(state: State, pre: etree._Element) -> None:
    """Write ``pre`` as a fenced block (or a code span inside a GFM table cell)."""
    text = pre_text(pre)
    if state.cell_depth:
        collapsed = HTML_WHITESPACE.sub(" ", text).strip()
        state.add_code(collapsed)
        return
    if text.strip() == "":
        return
    state.add_block("code", fenced(text, code_language(pre)))


def start_pre(state: State, element: etree._Element) -> None:
    """``<pre>``."""
    state.skip()
    code_block(state, element)


def start_span(state: State, element: etree._Element) -> None:
    """``<span>``: transparent, except a code block's language label (VitePress ``span.lang``
    beside the ``<pre>`` in ``div.language-vue``), which is not text of the page."""
    parent = element.getparent()
    if parent is None or len(element) or element_tag(parent) != "div":
        return
    classes = parent.get("class") or ""
    if "language-" not in classes:
        return
    label = (element.text or "").strip()
    if label and f"language-{label}" in classes.split():
        state.skip()
