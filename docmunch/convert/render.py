"""The converter driver: parse (for strings), walk the tree, dispatch elements to handlers.

The walk uses ``lxml.etree.iterwalk`` start/end events, so nesting depth costs heap, not Python
stack: 5,000 nested ``<div>``/``<span>``/``<ul>`` convert without reaching the recursion limit.
Handlers live in one module per concern (:mod:`.blocks`, :mod:`.inline`, :mod:`.code`,
:mod:`.lists`, :mod:`.tables`, :mod:`.math`); each takes ``(state, element)`` and returns the
handler to call at the element's end (or ``None``).
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from docmunch.convert import blocks, code, inline, lists, math, tables
from docmunch.convert.blocks import EndHandler, join_blocks
from docmunch.convert.state import State, element_tag, finish_paragraph
from docmunch.errors import ConvertError
from docmunch.extract import check_budget, page_budget, parse_html

__all__ = ["html_to_markdown", "parse_fragment"]

StartHandler = Callable[[State, etree._Element], EndHandler | None]

_SKIPPED = frozenset(
    {
        "head", "title", "meta", "link", "style", "template", "noscript", "svg", "canvas",
        "iframe", "object", "embed", "button", "select", "option", "textarea", "audio",
        "video", "source", "track", "map", "dialog", "col", "colgroup", "base", "param",
    }
)  # fmt: skip

_TRANSPARENT_BLOCKS = frozenset(
    {
        "html", "body", "p", "div", "section", "article", "main", "header", "footer", "nav",
        "address", "center", "figure", "figcaption", "form", "fieldset", "legend", "hgroup",
        "dl", "dd", "search",
    }
)  # fmt: skip


# Heading permalinks (Sphinx, Docusaurus, VitePress, MkDocs, anchor.js): page chrome, not text.
_PERMALINK_CLASSES = frozenset({"headerlink", "hash-link", "header-anchor", "anchorjs-link", "headeranchor"})


def _skip(state: State, element: etree._Element) -> None:
    state.skip()


def _start_script(state: State, element: etree._Element) -> None:
    if math.is_math_script(element):
        math.start_math_script(state, element)
    else:
        state.skip()


_HANDLERS: dict[str, StartHandler] = {
    **{tag: _skip for tag in _SKIPPED},
    **{tag: blocks.start_transparent for tag in _TRANSPARENT_BLOCKS},
    **{f"h{level}": blocks.start_heading for level in range(1, 7)},
    "blockquote": blocks.start_quote,
    "aside": blocks.start_admonition,
    "details": blocks.start_admonition,
    "summary": blocks.start_title,
    "dt": blocks.start_dt,
    "hr": blocks.start_hr,
    "pre": code.start_pre,
    "span": code.start_span,
    "ul": lists.start_list,
    "ol": lists.start_list,
    "menu": lists.start_list,
    "li": lists.start_li,
    "table": tables.start_table,
    "thead": tables.start_section,
    "tbody": tables.start_section,
    "tfoot": tables.start_section,
    "tr": tables.start_row,
    "td": tables.start_cell,
    "th": tables.start_cell,
    "caption": tables.start_caption,
    "math": math.start_math,
    "script": _start_script,
    "em": inline.start_emphasis,
    "i": inline.start_emphasis,
    "cite": inline.start_emphasis,
    "dfn": inline.start_emphasis,
    "var": inline.start_emphasis,
    "strong": inline.start_emphasis,
    "b": inline.start_emphasis,
    "del": inline.start_emphasis,
    "s": inline.start_emphasis,
    "strike": inline.start_emphasis,
    "a": inline.start_link,
    "img": inline.start_img,
    "br": inline.start_br,
    "code": inline.start_code,
    "tt": inline.start_code,
    "samp": inline.start_code,
    "kbd": inline.start_kbd,
    "sup": inline.start_html_inline,
    "sub": inline.start_html_inline,
    "input": inline.start_checkbox,
}


def _dispatch(state: State, element: etree._Element, tag: str) -> EndHandler | None:
    classes = element.get("class")
    if classes is not None or tag.startswith("mjx-"):
        tokens = frozenset(classes.split()) if classes else frozenset()
        if math.is_math_duplicate(tag, tokens) or not _PERMALINK_CLASSES.isdisjoint(tokens):
            state.skip()
            return None
        role = blocks.admonition_role(tag, tokens, classes or "")
        if role == "title":
            return blocks.start_title(state, element)
        if role == "admonition":
            return blocks.start_admonition(state, element)
    handler = _HANDLERS.get(tag)
    return handler(state, element) if handler is not None else None


def parse_fragment(markup: str) -> etree._Element:
    """Parse an HTML string (document or fragment) as a browser does; returns ``<body>``.

    Uses the extractor's WHATWG parser (:func:`docmunch.extract.parse_html`: lexbor, depth
    clamped at 512 like Chromium, linear in the input), so deep nesting cannot blow up here.
    """
    root = parse_html(markup)
    body = root.find("body")
    return body if body is not None else root


def html_to_markdown(root: etree._Element | str, *, base_url: str | None = None) -> str:
    """Convert HTML to CommonMark + GFM-table Markdown.

    Args:
        root: the element to convert (its tail is ignored), typically the extractor's cleaned
            main-content ``lxml.html.HtmlElement``; or an HTML string, parsed by
            :func:`parse_fragment` (WHATWG rules) and converted from its ``<body>``.
        base_url: absolute URL that relative link and image URLs are resolved against.

    Returns:
        Markdown text ending with exactly one ``"\\n"``, or ``""`` when there is no content.
        Blocks are separated by one blank line; no line has trailing whitespace outside code.

    Raises:
        ConvertError: ``root`` is neither a string nor an lxml element.
        PageTooComplex: the conversion exceeded the page budget (:mod:`docmunch.extract._budget`;
            an outer budget opened by the caller counts instead).
    """
    with page_budget(url=base_url):
        return _convert(root, base_url)


def _convert(root: etree._Element | str, base_url: str | None) -> str:
    if isinstance(root, str):
        element = parse_fragment(root)
    elif isinstance(root, etree._Element):
        element = root
    else:
        raise ConvertError(
            f"cannot convert {type(root).__name__} to Markdown; expected HTML text or an lxml element"
        )
    state = State(base_url)
    end_handlers: list[EndHandler | None] = []
    walker = etree.iterwalk(element, events=("start", "end", "comment", "pi"))
    state.attach(walker)
    add_text = state.add_text
    push = end_handlers.append
    pop = end_handlers.pop
    for event, node in walker:
        if event == "start":
            check_budget()
            state.skipped = False
            push(_dispatch(state, node, element_tag(node)))
            text = node.text
            if text and not state.skipped:
                add_text(text)
            continue
        if event == "end":
            end = pop()
            if end is not None:
                end(state, node)
        tail = node.tail
        if tail and node is not element:
            add_text(tail)
    frame, content = state.pop_block()
    body = list(frame.blocks)
    paragraph = finish_paragraph(content)
    if paragraph:
        body.append(("p", paragraph))
    markdown = join_blocks(body).strip("\n")
    return markdown + "\n" if markdown else ""
