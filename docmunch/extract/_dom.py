"""Small DOM operations on lxml trees, shaped like the DOM calls Readability.js makes.

lxml keeps text in ``.text``/``.tail`` rather than in text nodes, so "remove a node" must
hand its tail to the previous sibling, and "wrap phrasing content in a <p>" must treat
``.text`` and each ``.tail`` as the text nodes a DOM would have. Every walk here is
iterative (explicit loops or lxml's C iterators): trees thousands of levels deep are fine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import lxml.etree as etree
from lxml.html import HtmlElement

_SPACES = re.compile(r"\s\s+")  # runs of 2+ (faster to match than \s{2,})
_HAS_CONTENT = re.compile(r"\S$")

# Readability.js PHRASING_ELEMS (https://developer.mozilla.org/en-US/docs/Web/Guide/HTML/Content_categories#Phrasing_content)
PHRASING = frozenset(
    (
        "abbr",
        "audio",
        "b",
        "bdo",
        "br",
        "button",
        "cite",
        "code",
        "data",
        "datalist",
        "dfn",
        "em",
        "embed",
        "i",
        "img",
        "input",
        "kbd",
        "label",
        "mark",
        "math",
        "meter",
        "noscript",
        "object",
        "output",
        "progress",
        "q",
        "ruby",
        "samp",
        "script",
        "select",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "textarea",
        "time",
        "var",
        "wbr",
    )
)
PHRASING_IF_CHILDREN = frozenset(("a", "del", "ins"))


_STRING = etree.XPath("string()", smart_strings=False)


def text_of(el: HtmlElement) -> str:
    """DOM ``textContent`` of ``el`` (its own text and all descendants', no tail).

    A leaf's ``textContent`` is its ``.text``: read directly, a third faster than the XPath
    call (most links, list items and spans are leaves).
    """
    if not len(el):
        text = el.text
        return text if text is not None else ""
    return str(_STRING(el))


def inner_text(el: HtmlElement, normalize: bool = True) -> str:
    """Readability's ``_getInnerText``: trimmed textContent, runs of 2+ spaces → one space."""
    text = text_of(el).strip()
    return _SPACES.sub(" ", text) if normalize else text


def inner_length(el: HtmlElement) -> int:
    """``len(inner_text(el))`` without building the normalised string.

    Equal by construction: both strip the ends and turn every run of whitespace into one
    character (``str.split`` and the ``\\s`` of ``re`` use the same Unicode whitespace), but
    ``str.split`` runs several times faster than the regular expression on long texts.
    """
    return len(" ".join(text_of(el).split()))


def normalize_spaces(text: str) -> str:
    return _SPACES.sub(" ", text)


def remove(el: HtmlElement) -> None:
    """Detach ``el`` from its parent, keeping its tail text in place (DOM ``removeChild``)."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    el.tail = None
    parent.remove(el)


def remove_all(elements: Iterable[HtmlElement]) -> None:
    """:func:`remove` for many elements at once, each parent's text rebuilt in one pass.

    Removing siblings one by one appends each tail to the same previous text, which is
    quadratic when thousands of them follow one element (``<script></script>word`` × 100,000);
    here every parent's children are walked once and each kept text is joined once.
    Elements inside other removed elements are removed with them.
    """
    doomed = {id(el): el for el in elements}
    parents: dict[int, HtmlElement] = {}
    for el in doomed.values():
        parent = el.getparent()
        if parent is not None:
            parents.setdefault(id(parent), parent)
    for parent in parents.values():
        if id(parent) in doomed or any(id(anc) in doomed for anc in parent.iterancestors()):
            continue  # goes with its removed ancestor
        _drop_children(parent, doomed)


def _drop_children(parent: HtmlElement, doomed: dict[int, HtmlElement]) -> None:
    target: HtmlElement | None = None  # None: the parent's own .text
    pieces: list[str] = [parent.text or ""]
    for child in list(parent):
        if id(child) in doomed:
            if child.tail:
                pieces.append(child.tail)
            child.tail = None
            parent.remove(child)
            continue
        _put_text(parent, target, pieces)
        target = child
        pieces = [child.tail or ""]
    _put_text(parent, target, pieces)


def _put_text(parent: HtmlElement, target: HtmlElement | None, pieces: list[str]) -> None:
    text = "".join(pieces) or None
    if target is None:
        parent.text = text
    else:
        target.tail = text


def unwrap(el: HtmlElement) -> None:
    """Replace ``el`` by its children and text (keeps everything but the tag itself)."""
    el.drop_tag()


def replace(old: HtmlElement, new: HtmlElement) -> None:
    """DOM ``replaceChild(new, old)``: ``new`` takes ``old``'s place; ``old``'s tail stays put."""
    parent = old.getparent()
    if parent is None:
        return
    new_parent = new.getparent()
    if new_parent is not None:
        remove(new)
    new.tail = old.tail
    old.tail = None
    parent.replace(old, new)


def next_node(node: HtmlElement, ignore_self_and_kids: bool = False) -> HtmlElement | None:
    """Readability's ``_getNextNode``: depth-first successor in document order."""
    if not ignore_self_and_kids and len(node):
        return node[0]
    nxt = node.getnext()
    if nxt is not None:
        return nxt
    parent = node.getparent()
    while parent is not None:
        nxt = parent.getnext()
        if nxt is not None:
            return nxt
        parent = parent.getparent()
    return None


def remove_and_get_next(node: HtmlElement) -> HtmlElement | None:
    nxt = next_node(node, True)
    remove(node)
    return nxt


def ancestors(node: HtmlElement, max_depth: int = 0) -> list[HtmlElement]:
    """Parents of ``node``, nearest first, at most ``max_depth`` of them (0: all)."""
    out: list[HtmlElement] = []
    parent = node.getparent()
    while parent is not None:
        out.append(parent)
        if max_depth and len(out) == max_depth:
            break
        parent = parent.getparent()
    return out


def has_ancestor_tag(
    node: HtmlElement, tag: str, max_depth: int = 3, predicate: Callable[[HtmlElement], bool] | None = None
) -> bool:
    """Readability's ``_hasAncestorTag``; ``max_depth`` <= 0 means unlimited."""
    depth = 0
    parent = node.getparent()
    while parent is not None:
        if max_depth > 0 and depth > max_depth:
            return False
        if parent.tag == tag and (predicate is None or predicate(parent)):
            return True
        parent = parent.getparent()
        depth += 1
    return False


def is_phrasing(el: HtmlElement) -> bool:
    """Phrasing content as Readability defines it; ``a``/``del``/``ins`` need phrasing children."""
    if el.tag in PHRASING:
        return True
    if el.tag not in PHRASING_IF_CHILDREN:
        return False
    stack = list(el)
    while stack:
        child = stack.pop()
        if child.tag in PHRASING:
            continue
        if child.tag in PHRASING_IF_CHILDREN:
            stack.extend(child)
            continue
        return False
    return True


def all_phrasing(el: HtmlElement) -> bool:
    return all(is_phrasing(child) for child in el)


def has_single_tag_inside(el: HtmlElement, tag: str) -> bool:
    """Exactly one element child, of ``tag``, and no text node ending in non-space."""
    if len(el) != 1 or el[0].tag != tag:
        return False
    return not any(t and _HAS_CONTENT.search(t) for t in (el.text, el[0].tail))


def without_content(el: HtmlElement) -> bool:
    """Readability's ``_isElementWithoutContent``: no text and only <br>/<hr> children."""
    for text in el.itertext():  # stops at the first word
        if text and not text.isspace():
            return False
    n = len(el)
    if n == 0:
        return True
    return n == sum(1 for _ in el.iter("br", "hr"))  # descendants, as getElementsByTagName


def has_child_block(el: HtmlElement, block_tags: frozenset[str]) -> bool:
    """Whether some descendant of ``el`` is named one of ``block_tags`` (lxml filters the names)."""
    return next(el.iterdescendants(*block_tags), None) is not None


def elements(root: HtmlElement, tags: Iterable[str]) -> list[HtmlElement]:
    """``querySelectorAll(tags)``: descendants of ``root`` with one of ``tags``, document order."""
    return list(root.iterdescendants(*tags))


def iter_text_nodes(el: HtmlElement) -> Iterator[str]:
    """The direct text-node children of ``el``: its ``.text`` and each child's ``.tail``."""
    if el.text:
        yield el.text
    for child in el:
        if child.tail:
            yield child.tail


def _link_weight(a: HtmlElement) -> float:
    href = a.get("href")
    coefficient = 0.2 if href and len(href) > 1 and href[0] == "#" else 1.0
    return inner_length(a) * coefficient


def link_density(el: HtmlElement) -> float:
    """Readability's ``_getLinkDensity``: link text / text; in-page ``#`` links count 0.2."""
    length = inner_length(el)
    if not length:
        return 0.0
    return sum(_link_weight(a) for a in el.iter("a")) / length


def link_lengths(root: HtmlElement) -> dict[HtmlElement, float]:
    """Weighted link text (as :func:`link_density` counts it) under every element of ``root``.

    One pass over the anchors, each added to itself and its ancestors up to ``root``, in
    document order, so ``link_lengths(root)[el] / inner_length(el)`` equals
    ``link_density(el)`` exactly (same terms, same order) for all elements at once; elements
    without links are absent. Use it while the tree does not change.
    """
    out: dict[HtmlElement, float] = {}
    for a in root.iter("a"):
        weight = _link_weight(a)
        node: HtmlElement | None = a
        while node is not None:
            out[node] = out.get(node, 0.0) + weight
            if node is root:
                break
            node = node.getparent()
    return out


def class_and_id(el: HtmlElement) -> str:
    return (el.get("class") or "") + " " + (el.get("id") or "")


_BLOCKS = frozenset(
    (
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "caption",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    )
)


def block_text(el: HtmlElement) -> str:
    """``textContent`` with a line break at block boundaries and ``<br>`` when none is there.

    Differs from :func:`text_of` only where two blocks touch without whitespace
    (``<td>a</td><td>b</td>`` → ``"a\\nb"``, ``a<br>b`` → ``"a\\nb"``), like a browser's
    ``innerText`` would separate them. Iterative (``lxml.etree.iterwalk``).
    """
    from lxml.etree import iterwalk

    parts: list[str] = []

    def brk() -> None:
        if parts and parts[-1] and not parts[-1][-1].isspace():
            parts.append("\n")

    for event, node in iterwalk(el, events=("start", "end")):
        if event == "start":
            if node.tag in _BLOCKS:
                brk()
            if node.text:
                parts.append(node.text)
        else:
            if node.tag in _BLOCKS:
                brk()
            if node is not el and node.tail:
                parts.append(node.tail)
    return "".join(parts).strip("\n") if parts else ""
