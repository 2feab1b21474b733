"""Readability.js's ``_cleanConditionally``: "fishy" nodes removed from the article.

A candidate of one tag (``form``, ``fieldset``, ``table``, ``ul``, ``div``) goes, innermost
first, when its class/id weight is negative, or when its measures look like chrome: more images
than paragraphs, more list items than paragraphs, many inputs, short link-bearing text, link
density above 0.2 (0.5 with a positive class weight), embeds without a video, no text at all;
an advertising or "loading" label goes whatever its measures. Never removed: data tables and
the elements :func:`docmunch.extract._clean.tables.protected_elements` names, nodes holding a
``<pre>`` or ``<math>`` (docs-aware) or a video, text with 10 commas or more, and — for its
class weight alone — a node holding more than :data:`BULK_SHARE` of the article's text.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._budget import check_budget
from docmunch.extract._clean.unconditional import EMBEDS, has_video
from docmunch.extract._code import is_code_container
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._weights import CLEAN_CONDITIONALLY, class_weight

__all__ = ["BULK_SHARE", "clean_conditionally"]

_AD_WORDS = FoldedPattern(
    r"^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|anuncio)$",
)
_LOADING_WORDS = FoldedPattern(r"^((loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$")
_LABEL_MAX = 40
"""Longer texts cannot be one of the ``_AD_WORDS`` / ``_LOADING_WORDS`` labels (13 chars max)."""
BULK_SHARE = 0.5
"""A node holding more than this share of the article's text (characters) is not removed for a
negative class weight alone (Drupal's ``field--label-hidden`` wraps whole article bodies)."""
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_TEXTISH = ("span", "li", "td", "blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul")


def _text_density(el: HtmlElement, tags: tuple[str, ...], length: int) -> float:
    """Readability's ``_getTextDensity``: text of the ``tags`` descendants / text of ``el``."""
    if not length:
        return 0.0
    return sum(dom.inner_length(child) for child in el.iterdescendants(*tags)) / length


def _has_text_in(el: HtmlElement, tags: tuple[str, ...]) -> bool:
    """Whether some ``tags`` descendant has text: ``_getTextDensity(el, tags) > 0``, early exit.

    Readability sums the text of every such descendant (nested ones again and again), which is
    quadratic in nesting depth; the rule only asks whether the sum is zero.
    """
    return any(dom.text_of(child).strip() for child in el.iterdescendants(*tags))


def _list_share_above(el: HtmlElement, length: int, share: float) -> bool:
    """Whether the text of ``el``'s list descendants exceeds ``share`` × ``length`` (early exit)."""
    bound = share * length
    total = 0
    for lst in el.iterdescendants("ul", "ol"):
        total += dom.inner_length(lst)
        if total > bound:
            return True
    return False


def _should_remove(
    node: HtmlElement,
    tag: str,
    flags: int,
    data_tables: set[HtmlElement],
    protected: set[HtmlElement],
    article_chars: int = 0,
    link_grid: bool = False,
) -> bool:
    is_list = tag in ("ul", "ol")
    raw = dom.text_of(node)
    length = len(" ".join(raw.split()))  # == len(inner_text), see dom.inner_length
    # the exact normalised text is only needed for the ad/loading-label tests, which match
    # whole short labels; building it for long blocks was most of the cost on deep pages
    text = dom.normalize_spaces(raw.strip()) if length < _LABEL_MAX else ""
    if not is_list:
        is_list = bool(length) and _list_share_above(node, length, 0.9)
    if tag == "table" and node in data_tables:
        return False
    if node in protected:
        return False
    if any(t in data_tables for t in node.iterdescendants("table")):
        return False
    weight = class_weight(node, flags)
    if weight < 0 and article_chars and length > BULK_SHARE * article_chars:
        weight = 0  # the bulk of the article is not a "fishy" node, whatever its class says
    if weight < 0 and not is_code_container(node):
        return True
    if any(True for _ in node.iter("pre", "math")):
        return False  # docs-aware: code blocks and formulas are content
    if raw.count(",") >= 10:
        return False
    p = sum(1 for _ in node.iter("p"))
    img = sum(1 for _ in node.iter("img"))
    li = sum(1 for _ in node.iter("li")) - 100
    inputs = sum(1 for _ in node.iter("input"))
    heading_density = _text_density(node, _HEADINGS, length)
    embeds = 0
    for embed in node.iter(*EMBEDS):
        if has_video(embed):
            return False
        embeds += 1
    if _AD_WORDS.starts(text) or _LOADING_WORDS.starts(text):
        return True
    density = dom.link_density(node)
    in_figure = dom.has_ancestor_tag(node, "figure")
    remove = (
        (not in_figure and img > 1 and p / img < 0.5)
        or (not is_list and li > p)
        or (inputs > p // 3)
        or (
            not is_list
            and not in_figure
            and heading_density < 0.9
            and length < 25
            and (img == 0 or img > 2)
            and density > 0
        )
        or (not link_grid and not is_list and weight < 25 and density > 0.2)
        or (not link_grid and weight >= 25 and density > 0.5)
        or ((embeds == 1 and length < 75) or embeds > 1)
        or (img == 0 and not _has_text_in(node, _TEXTISH))
    )
    if is_list and remove:
        if any(len(child) > 1 for child in node):
            return remove
        if img == sum(1 for _ in node.iter("li")):
            return False
    return remove


def clean_conditionally(
    root: HtmlElement,
    tag: str,
    flags: int,
    data_tables: set[HtmlElement],
    protected: set[HtmlElement],
    link_grid: bool = False,
) -> None:
    """Readability's ``_cleanConditionally`` for ``tag``; innermost candidates judged first.

    ``link_grid``: the article is made of link-dense blocks
    (:func:`docmunch.extract._clean.link_grid.is_link_grid`); the link-density bars are then not
    applied.
    """
    if not flags & CLEAN_CONDITIONALLY:
        return
    candidates = list(root.iterdescendants(tag))
    if not candidates:
        return  # nothing to judge: the article's length is not needed
    article_chars = dom.inner_length(root)
    for node in reversed(candidates):
        check_budget()
        if node.getparent() is not None and _should_remove(
            node, tag, flags, data_tables, protected, article_chars, link_grid
        ):
            dom.remove(node)
