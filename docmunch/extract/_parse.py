"""HTML bytes/text → lxml tree, built by a WHATWG (HTML Living Standard) parser.

Parser choice (measured on the 62 readability test pages + 62 docs-site pages, 2-core box):

==========================  ============  ==========================================
parser                      ms/page       notes
==========================  ============  ==========================================
html5lib (lxml treebuilder)  ~49          pure Python; WHATWG; correct but slow
html5-parser 0.5 (gumbo)     —            builds, but refuses to import: it must share
                                          libxml2 with lxml, and lxml's wheel bundles
                                          2.14 while the system has 2.9.14
selectolax 1.0 (lexbor) →    ~4.2         lexbor is a WHATWG-conformant C parser; we
lxml transfer                             copy its tree into lxml iteratively
lxml.html (libxml2)          ~1.1         not WHATWG (no adoption agency, foster
                                          parenting, …): rejected
==========================  ============  ==========================================

So :func:`parse_html` parses with lexbor (through selectolax) and transfers the tree into
``lxml.html.HtmlElement`` nodes with an explicit stack (no recursion), in document order, with
the depth clamped at :data:`~docmunch.extract._depth.MAX_TREE_DEPTH` (raw HTML nested deeper
than that is flattened before parsing, :mod:`docmunch.extract._depth`).
html5lib is the fallback when selectolax is not importable. Comments, doctype and processing
instructions are dropped; ``<template>`` content is not copied (lexbor keeps it apart).
Characters that XML forbids (C0 controls, U+FFFE/U+FFFF, lone surrogates) are removed because
lxml cannot store them; names lxml rejects are sanitised (``fb:like`` → ``fb_like``).
"""

from __future__ import annotations

import codecs
import re
import warnings
from typing import TYPE_CHECKING, Any, cast

import lxml.etree as etree
import lxml.html

from docmunch.extract._budget import check_budget
from docmunch.extract._depth import MAX_TREE_DEPTH, flatten_deep_nesting

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser

__all__ = ["decode_bytes", "parse_html"]

# A C-level class lookup (every element is an HtmlElement): lxml.html's own lookup runs Python code
# for each proxy it creates, which costs ~40 % of extraction time on large pages.
# (the annotation tells the type checker what the lookup below makes)
_PARSER: etree.HTMLParser[lxml.html.HtmlElement] = etree.HTMLParser()
_PARSER.set_element_class_lookup(
    etree.ElementDefaultClassLookup(element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment)
)
_MAKE = _PARSER.makeelement
_SUB = etree.SubElement
# (the surrogate range is built with chr(): mypyc cannot compile surrogates in string literals)
_XML_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff" + chr(0xD800) + "-" + chr(0xDFFF) + "]")
_GOOD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.\-]")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def _load_lexbor() -> type[LexborHTMLParser] | None:
    try:  # pragma: no branch - depends on the environment
        from selectolax.lexbor import LexborHTMLParser
    except ImportError:  # pragma: no cover - fallback path
        return None
    return LexborHTMLParser


_Lexbor = _load_lexbor()


def decode_bytes(data: bytes) -> str:
    """Decode HTML bytes to text.

    Uses ``docmunch.fetch.decode_html`` (WHATWG sniffing) when that module exists, else a
    minimal sniff: BOM, then ``<meta charset>`` in the first 1024 bytes, then UTF-8 with
    replacement characters. Never raises on bad bytes.
    """
    try:
        from docmunch.fetch import decode_html
    except ImportError:  # pragma: no cover - fallback path
        pass
    else:
        text, _encoding = decode_html(data)
        return text
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    match = _META_CHARSET.search(data[:1024])
    if match:
        label = match.group(1).decode("ascii", "replace").lower()
        label = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "ascii": "cp1252"}.get(
            label, label
        )
        try:
            return data.decode(label, errors="replace")
        except LookupError:
            pass
    return data.decode("utf-8", errors="replace")


def _clean_text(text: str) -> str:
    return _XML_BAD_CHARS.sub("", text) if _XML_BAD_CHARS.search(text) else text


def _clean_name(name: str) -> str:
    if _GOOD_NAME.match(name):
        return name
    name = _BAD_NAME_CHARS.sub("_", name)
    return name if name and (name[0].isalpha() or name[0] == "_") else "x" + name


_TAG_NAMES: dict[str, str] = {}
_ATTRIBUTE_OK: dict[str, bool] = {}
_GOOD_ATTRIBUTES: set[str] = set()
"""Attribute names seen and found valid (:data:`_GOOD_NAME`), at most :data:`_NAME_CACHE_SIZE`."""
_NAME_CACHE_SIZE = 4096


def _tag_name(tag: str) -> str:
    name = _TAG_NAMES.get(tag)
    if name is None:
        name = _clean_name(tag)
        if len(_TAG_NAMES) < _NAME_CACHE_SIZE:
            _TAG_NAMES[tag] = name
    return name


def _attributes(attributes: dict[str, str | None], clean: bool) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for key, value in attributes.items():
        ok = _ATTRIBUTE_OK.get(key)
        if ok is None:
            ok = _GOOD_NAME.match(key) is not None
            if len(_ATTRIBUTE_OK) < _NAME_CACHE_SIZE:
                _ATTRIBUTE_OK[key] = ok
                if ok:
                    _GOOD_ATTRIBUTES.add(key)
        if not ok:
            continue  # xmlns:fb, stray quotes …: meaningless to extraction
        attrs[key] = (_clean_text(value) if clean else value) if value else ""
    return attrs


def _copyable(attributes: dict[str, str | None]) -> dict[str, str]:
    """``attributes`` itself when :func:`_attributes` would return an equal dict (every name
    known valid, no empty attribute), else that filtered copy: two C-level tests instead of a
    Python loop for most elements."""
    if attributes.keys() <= _GOOD_ATTRIBUTES and None not in attributes.values():
        return cast("dict[str, str]", attributes)  # no None value: checked just above
    return _attributes(attributes, False)


def _make(tag: str, attributes: dict[str, Any]) -> lxml.html.HtmlElement:
    return _MAKE(_tag_name(tag), _attributes(attributes, True))


def _set_text(element: lxml.html.HtmlElement, last: lxml.html.HtmlElement | None, text: str) -> None:
    """Append ``text`` after ``last`` (as its tail) or as ``element``'s text; lxml refuses
    characters XML forbids, which are then removed (rare: checked only when lxml complains).
    The copy calls it once per run of text, so appending never grows a string repeatedly."""
    try:
        if last is None:
            old = element.text
            element.text = old + text if old else text
        else:
            old = last.tail
            last.tail = old + text if old else text
    except ValueError:
        _set_text(element, last, _clean_text(text))


def _put_run(parent: lxml.html.HtmlElement, last: lxml.html.HtmlElement | None, run: list[str]) -> None:
    """Set a run of text nodes, joined, as ``last``'s tail or (``last`` is ``None``) ``parent``'s
    text. The copy fills each slot once, on a new element, so nothing is appended; characters
    XML forbids are removed only when lxml refuses the text."""
    text = run[0] if len(run) == 1 else "".join(run)
    try:
        if last is None:
            parent.text = text
        else:
            last.tail = text
    except ValueError:
        _set_text(parent, last, _clean_text(text))


def _from_lexbor(html: str) -> lxml.html.HtmlElement:
    """Copy lexbor's tree into lxml in document order, clamping depth at :data:`MAX_TREE_DEPTH`.

    One pre-order walk with an explicit stack; every node is visited once and appended in O(1)
    (each frame remembers its last child), so the copy is linear in the number of nodes. An
    element that would sit deeper than the cap is not created: its content (text and
    children, recursively) joins the deepest allowed element, in document order.
    """
    assert _Lexbor is not None
    source = _Lexbor(html).root
    if source is None or source.tag is None:  # lexbor always builds <html>; never seen untagged
        return _MAKE("html", {})
    root = _MAKE(_tag_name(source.tag), _attributes(source.attributes, True))
    etree.ElementTree(root)  # SubElement needs the root in a document
    # a frame is [element, its last element child so far, its depth, pending text or None]:
    # a frame at the depth cap never gets children, and all text below it goes to its element's
    # .text, gathered in a list and joined once at the end (appending would be quadratic)
    frame: list[Any] = [root, None, 1, None]
    flat: list[list[Any]] = []
    stack: list[tuple[Any, list[Any]]] = [(source.child, frame)]
    push, pop = stack.append, stack.pop
    sub, names, attributes_of, copyable = _SUB, _TAG_NAMES, _attributes, _copyable
    count = 0
    while stack:
        child, frame = pop()
        parent, last, depth, pending = frame
        run: list[str] | None = None  # consecutive text nodes (split by comments), joined once
        while child is not None:
            tag = child.tag
            if tag == "-text":
                text = child.text_content
                if text:
                    if pending is not None:
                        pending.append(text)
                    elif run:
                        run.append(text)
                    else:
                        run = [text]
                child = child.next
                continue
            if not tag or tag[0] in "-_!":
                child = child.next
                continue
            count += 1
            if not count & 4095:
                check_budget()
            inner = child.child
            if pending is not None:  # too deep: the element's content joins this frame
                if inner is not None:
                    push((child.next, frame))
                    child = inner
                else:
                    child = child.next
                continue
            if run:  # the text before this element: after ``last``, or the parent's own text
                _put_run(parent, last, run)
                run = None
            attributes = child.attributes
            name = names.get(tag) or _tag_name(tag)
            if attributes:  # inlined _element (it runs for every element)
                try:
                    last = sub(parent, name, copyable(attributes))
                except ValueError:  # a value with a character XML forbids
                    last = sub(parent, name, attributes_of(attributes, True))
            else:
                last = sub(parent, name)
            if inner is not None:
                frame[1] = last
                push((child.next, frame))
                depth += 1
                parent, last = last, None
                pending = [] if depth >= MAX_TREE_DEPTH else None
                frame = [parent, None, depth, pending]
                if pending is not None:
                    flat.append(frame)
                child = inner
                continue
            child = child.next
        if run:
            _put_run(parent, last, run)
        frame[1] = last
    for element, _last, _depth, texts in flat:
        if texts:
            _set_text(element, None, "".join(texts))
    return root


def _from_html5lib(html: str) -> lxml.html.HtmlElement:  # pragma: no cover - fallback path
    import html5lib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = html5lib.parse(_clean_text(html), treebuilder="lxml", namespaceHTMLElements=False)
    source = tree.getroot()
    root = _make(str(source.tag), dict(source.attrib))
    root.text = source.text
    stack = [(source, root)]
    while stack:
        src, dst = stack.pop()
        for child in src:
            if not isinstance(child.tag, str):
                if child.tail:
                    last = dst[-1] if len(dst) else None
                    if last is None:
                        dst.text = (dst.text or "") + child.tail
                    else:
                        last.tail = (last.tail or "") + child.tail
                continue
            element = _make(child.tag, dict(child.attrib))
            element.text, element.tail = child.text, child.tail
            dst.append(element)
            stack.append((child, element))
    return root


def parse_html(html: str | bytes, *, url: str | None = None) -> lxml.html.HtmlElement:
    """Parse a whole HTML document the way a browser does; return the ``<html>`` element.

    ``html``: text, or bytes decoded by :func:`decode_bytes`. ``url`` is accepted for API
    symmetry (the tree does not depend on it). The result always has ``<head>`` and ``<body>``
    and no element deeper than :data:`MAX_TREE_DEPTH` (see :mod:`docmunch.extract._depth`).
    """
    del url
    text = flatten_deep_nesting(decode_bytes(html) if isinstance(html, bytes) else html)
    root = _from_lexbor(text) if _Lexbor is not None else _from_html5lib(text)
    if root.find("head") is None:
        root.insert(0, _MAKE("head", {}))
    if root.find("body") is None:
        root.append(_MAKE("body", {}))
    etree.ElementTree(root)  # give the root a document
    return root
