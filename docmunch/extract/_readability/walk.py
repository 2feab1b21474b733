"""Step 1 of the scoring: the cleaning walk over a copy of the body (Readability.js's node loop).

In document order: hidden nodes (:func:`is_visible`) and modal dialogs go; the first byline
(Readability's ``_isValidByline``) is kept as metadata and its node goes; the first ``<h1>``/
``<h2>`` that repeats the title goes (an ``<h1>`` is marked and kept instead, see
:mod:`docmunch.extract._title`); ``<pre>``, ``<code>``, ``<math>`` and ``<svg>`` are stepped
over whole. While ``STRIP_UNLIKELY`` is on, nodes whose class/id look like chrome
(:data:`UNLIKELY` and not :data:`MAYBE_CANDIDATE`) go — except section anchors, nodes inside a
table or ``<code>``, code containers and a layout wrapper holding most of the page's text
(:data:`PAGE_WRAPPER_SHARE`) — and so do nodes with a navigation role (:data:`UNLIKELY_ROLES`).
Empty sections and headings go. A ``<div>`` around a single, link-poor ``<p>`` gives way to it,
a ``<div>`` without block children becomes a ``<p>``, and loose phrasing runs inside a
``<div>`` are wrapped in ``<p>``. Returned: the elements to score (:data:`TAGS_TO_SCORE`,
``<pre>``, the new ``<p>``s), for :mod:`.candidates`.
"""

from __future__ import annotations

from functools import lru_cache

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import WRAPPER_NAMES
from docmunch.extract._budget import check_budget
from docmunch.extract._code import is_code_container
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._metadata import text_similarity
from docmunch.extract._prep import wrap_phrasing
from docmunch.extract._title import TITLE_MARK, rescue_title
from docmunch.extract._weights import STRIP_UNLIKELY, is_section_anchor

__all__ = ["is_visible", "prepare_and_collect"]

PAGE_WRAPPER_SHARE = 0.5
"""An "unlikely" node (class ``has-sidebar``, ``header-wrapper``…) holding more than this share of
the page's text (characters) is a layout wrapper, not chrome, and is not stripped (divergence)."""

UNLIKELY = FoldedPattern(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|"
    r"legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|"
    r"ad-break|agegate|pagination|pager|popup|yom-remote"
)
MAYBE_CANDIDATE = FoldedPattern(r"and|article|body|column|content|main|mathjax|shadow")
BYLINE = FoldedPattern(r"byline|author|dateline|writtenby|p-author")
_DISPLAY_NONE = FoldedPattern(r"display\s*:\s*none")
_VISIBILITY_HIDDEN = FoldedPattern(r"visibility\s*:\s*hidden")

UNLIKELY_ROLES = frozenset(
    ("menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog")
)
DIV_TO_P = frozenset(("blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"))
TAGS_TO_SCORE = frozenset(("section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"))
_EMPTY_REMOVABLE = frozenset(("div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"))
_OPAQUE = frozenset(("pre", "code", "math", "svg"))


def _visible_attributes(attrs: dict[str, str]) -> bool:
    style = attrs.get("style")
    if style and (_DISPLAY_NONE.found_in(style) or _VISIBILITY_HIDDEN.found_in(style)):
        return False
    if attrs.get("hidden") is not None:
        return False
    return attrs.get("aria-hidden") != "true" or "fallback-image" in (attrs.get("class") or "")


_NO_ATTRIBUTES: dict[str, str] = {}


def is_visible(el: HtmlElement) -> bool:
    """Readability's ``_isProbablyVisible``: no ``display: none``/``visibility: hidden`` style,
    no ``hidden`` attribute, not ``aria-hidden`` (except a fallback image)."""
    return _visible_attributes(dict(el.items()))


@lru_cache(maxsize=4096)
def _byline_match(match: str) -> bool:
    return BYLINE.found_in(match)


@lru_cache(maxsize=4096)
def _unlikely_match(match: str) -> bool:
    """Readability's unlikely-candidate test on ``class + " " + id`` (cached: pages repeat them)."""
    return UNLIKELY.found_in(match) and not MAYBE_CANDIDATE.found_in(match)


def _is_byline(el: HtmlElement, attrs: dict[str, str], match: str) -> bool:
    """Readability's ``_isValidByline`` test on ``el`` (``attrs``: its attributes)."""
    if attrs.get("rel") == "author" or "author" in (attrs.get("itemprop") or "") or _byline_match(match):
        length = len(dom.text_of(el).strip())
        return 0 < length < 100
    return False


def _byline_text(el: HtmlElement) -> str:
    for sub in el.iterdescendants():
        if "name" in (sub.get("itemprop") or ""):
            return dom.text_of(sub).strip()
    return dom.text_of(el).strip()


def _is_page_wrapper(node: HtmlElement, page_chars: int) -> bool:
    """A node holding most of the page's text is a layout wrapper, whatever its class says."""
    if page_chars <= 0:
        return False
    bound = PAGE_WRAPPER_SHARE * page_chars
    raw = dom.text_of(node)
    # the normalised length (dom.inner_length) never exceeds the raw one: most nodes are ruled
    # out without it
    return len(raw) > bound and len(" ".join(raw.split())) > bound



def prepare_and_collect(
    page: HtmlElement, flags: int, title: str, need_byline: bool
) -> tuple[list[HtmlElement], str | None]:
    """Step 1: clean the walk, return the elements to score and the byline found."""
    to_score: list[HtmlElement] = []
    byline: str | None = None
    remove_title_header = True
    strip = bool(flags & STRIP_UNLIKELY)
    page_chars = dom.inner_length(page)
    node: HtmlElement | None = page
    count = 0
    while node is not None:
        count += 1
        if not count & 63:
            check_budget()
        tag = node.tag
        # one C call for the attributes: most nodes have none, and lxml's get() is slow
        items = node.items()
        if items:
            attrs: dict[str, str] = dict(items)
            match = (attrs.get("class") or "") + " " + (attrs.get("id") or "")
            if not _visible_attributes(attrs):
                node = dom.remove_and_get_next(node)
                continue
            if attrs.get("aria-modal") == "true" and attrs.get("role") == "dialog":
                node = dom.remove_and_get_next(node)
                continue
            if need_byline and byline is None and _is_byline(node, attrs, match):
                byline = _byline_text(node)
                node = dom.remove_and_get_next(node)
                continue
        else:
            attrs, match = _NO_ATTRIBUTES, " "
        if (
            remove_title_header
            and tag in ("h1", "h2")
            and title
            and text_similarity(title, dom.inner_text(node, False)) > 0.75
        ):
            remove_title_header = False
            if tag == "h1":  # docs-aware: the page's own title heading stays (see _title)
                node.set(TITLE_MARK, "")
            else:
                node = dom.remove_and_get_next(node)
                continue
        if tag in _OPAQUE:
            if tag == "pre":
                to_score.append(node)
            node = dom.next_node(node, True)
            continue
        if strip and tag not in ("body", "a"):
            if (
                _unlikely_match(match)
                and not (is_section_anchor(node) and not UNLIKELY.found_in(node.get("class") or ""))
                and not dom.has_ancestor_tag(node, "table")
                and not dom.has_ancestor_tag(node, "code")
                and not _is_page_wrapper(node, page_chars)
                and not is_code_container(node)
            ):
                rescued = rescue_title(node, title) if remove_title_header else None
                if rescued is not None:  # a post header: its title h1 stays in the header's place
                    remove_title_header = False
                    dom.replace(node, rescued)
                    node = dom.next_node(rescued, True)
                    continue
                node = dom.remove_and_get_next(node)
                continue
            if attrs.get("role") in UNLIKELY_ROLES:
                node = dom.remove_and_get_next(node)
                continue
        if tag in _EMPTY_REMOVABLE and dom.without_content(node):
            node = dom.remove_and_get_next(node)
            continue
        if tag in TAGS_TO_SCORE:
            to_score.append(node)
        if tag == "div":
            wrap_phrasing(node)
            if dom.has_single_tag_inside(node, "p") and dom.link_density(node) < 0.25:
                child = node[0]
                names = dom.class_and_id(node).strip()
                if names:  # the boilerplate pass still needs the wrapper's class and id
                    child.set(WRAPPER_NAMES, f"{child.get(WRAPPER_NAMES, '')} {names}".strip())
                dom.replace(node, child)
                node = child
                to_score.append(node)
            elif not dom.has_child_block(node, DIV_TO_P):
                node.tag = "p"
                to_score.append(node)
        node = node[0] if len(node) else dom.next_node(node, True)  # dom.next_node(node), inlined
    return to_score, byline
