"""Cleaning of the chosen article: Readability.js's ``_prepArticle`` and helpers, on lxml.

Source of the rules: Mozilla Readability.js 0.6 (Apache-2.0) — ``_markDataTables``,
``_cleanConditionally`` (the "fishy node" heuristics: image/paragraph ratio, list items vs
paragraphs, inputs, link density against class weight, embeds, text density), ``_clean``,
``_cleanHeaders``, ``_cleanMatchedNodes`` (share widgets). Re-implemented here.

Divergences: a node holding most of the article's text is never removed for its class weight
alone (:data:`BULK_SHARE`). Docs-aware divergences: an element holding a ``<pre>`` code block,
``<math>`` or a data table is never removed conditionally (unless its class/id weight is
negative and it is not a code container); ``<h1>`` keeps its level; admonition and footnote
``<aside>``s stay (:mod:`docmunch.extract._asides`).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._asides import is_content_aside
from docmunch.extract._budget import check_budget
from docmunch.extract._code import is_code_container
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._weights import CLEAN_CONDITIONALLY, class_weight

__all__ = ["mark_data_tables", "prep_article"]

_VIDEOS = re.compile(
    r"//(www\.)?((dailymotion|youtube|youtube-nocookie|player\.vimeo|v\.qq)\.com|"
    r"(archive|upload\.wikimedia)\.org|player\.twitch\.tv)",
    re.IGNORECASE,
)
_SHARE = FoldedPattern(r"(\b|_)(share|sharedaddy)(\b|_)")
_AD_WORDS = FoldedPattern(
    r"^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|anuncio)$",
)
_LOADING_WORDS = FoldedPattern(r"^((loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$")
_LABEL_MAX = 40
"""Longer texts cannot be one of the ``_AD_WORDS`` / ``_LOADING_WORDS`` labels (13 chars max)."""
_PRESENTATIONAL = (
    "align",
    "background",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "frame",
    "hspace",
    "rules",
    "style",
    "valign",
    "vspace",
)
BULK_SHARE = 0.5
"""A node holding more than this share of the article's text (characters) is not removed for a
negative class weight alone (Drupal's ``field--label-hidden`` wraps whole article bodies)."""
_SIZE_ELEMS = frozenset(("table", "th", "td", "hr", "pre"))
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_TEXTISH = ("span", "li", "td", "blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul")
_EMBEDS = ("object", "embed", "iframe")
_DATA_TABLE_DESCENDANTS = ("col", "colgroup", "tfoot", "thead", "th")


_PRESENTATIONAL_SET = frozenset(_PRESENTATIONAL)


def clean_styles(root: HtmlElement) -> None:
    """Drop presentational attributes (``style``, ``align``, …) outside ``<svg>``.

    Reads each element's attribute names once (``keys()``, one C call; most elements have
    none): 4× faster than testing each name with ``in attrib`` or selecting with XPath.
    """
    for el in root.iter():
        keys = el.keys()
        if not keys or el.tag == "svg":
            continue
        attrib = None
        for name in keys:
            if name in _PRESENTATIONAL_SET or (name in ("width", "height") and el.tag in _SIZE_ELEMS):
                if attrib is None:
                    attrib = el.attrib
                del attrib[name]


def _row_col_count(table: HtmlElement) -> tuple[int, int]:
    rows = columns = 0
    for tr in table.iter("tr"):
        rows += _int(tr.get("rowspan")) or 1
        in_row = sum((_int(td.get("colspan")) or 1) for td in tr.iter("td"))
        columns = max(columns, in_row)
    return rows, columns


def _int(value: str | None) -> int:
    if not value:
        return 0
    digits = re.match(r"\s*(\d+)", value)
    return int(digits.group(1)) if digits else 0


def mark_data_tables(root: HtmlElement) -> set[HtmlElement]:
    """Readability's ``_markDataTables``: the set of tables that hold data, not layout."""
    data: set[HtmlElement] = set()
    for table in root.iter("table"):
        if table.get("role") == "presentation" or table.get("datatable") == "0":
            continue
        if table.get("summary"):
            data.add(table)
            continue
        caption = next(table.iter("caption"), None)
        if caption is not None and (caption.text or len(caption)):
            data.add(table)
            continue
        if any(next(table.iter(tag), None) is not None for tag in _DATA_TABLE_DESCENDANTS):
            data.add(table)
            continue
        if any(True for _ in table.iterdescendants("table")):
            continue
        rows, columns = _row_col_count(table)
        if columns == 1 or rows == 1:
            continue
        if rows >= 10 or columns > 4 or rows * columns > 10:
            data.add(table)
    return data


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


def _has_video(el: HtmlElement) -> bool:
    if any(_VIDEOS.search(value) for value in el.attrib.values()):
        return True
    if el.tag == "object":
        from lxml.html import tostring

        return bool(_VIDEOS.search(tostring(el, encoding="unicode")))
    return False


def _protected(root: HtmlElement, data_tables: set[HtmlElement]) -> set[HtmlElement]:
    """Elements inside a data table, ``<code>`` or ``<pre>``: never removed conditionally.

    Computed once per article (one pass per protecting ancestor) instead of walking every
    candidate's ancestors, which is quadratic on deeply nested pages.
    """
    protected: set[HtmlElement] = set()
    for holder in (*data_tables, *root.iter("code", "pre")):
        if holder not in protected:
            protected.update(holder.iterdescendants())
    return protected


LINK_CONTENT_SHARE = 0.5
"""Docs-aware: when the blocks that Readability's link-density bars (0.2, or 0.5 for a positive
class) would remove hold at least this share of the article's text, those blocks *are* the
content (a plugin gallery of linked cards, a link catalogue): the bars are not applied. On an
ordinary page the link-dense blocks are a small share (related links, tag lists) and go."""

LINK_GRID_WORDS = 6
"""… and only when those links average at least this many words: cards (a title and a sentence)
and described entries, not menus of one- to three-word links."""

LINK_GRID_DENSITY = 0.6
"""… and only when those blocks are mostly link text (weighted mean link density): a grid of
linked cards, not a page wrapper that mixes an article with its menus."""

LINK_GRID_MAX_PROSE = 800
"""… and only when the rest of the article (its prose) is shorter than this many characters:
a gallery page has an introduction, not an essay; an essay whose candidate swallowed the
site's menus keeps Readability's bars."""

BUTTON_CONTENT_SHARE = 0.25
"""Docs-aware: when ``<button>``s hold at least this share of the article's text they are its
content (an icon gallery of buttons) and are unwrapped instead of deleted."""


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
    for embed in node.iter(*_EMBEDS):
        if _has_video(embed):
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

    ``link_grid``: the article is made of link-dense blocks (:func:`is_link_grid`); the
    link-density bars are then not applied.
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


def is_link_grid(article: HtmlElement, flags: int) -> bool:
    """Whether link-dense ``div``/``table``/``ul`` blocks hold :data:`LINK_CONTENT_SHARE` or
    more of ``article``'s text (innermost such blocks, Readability's bars and class weight), the
    rest is under :data:`LINK_GRID_MAX_PROSE` characters, the blocks are mostly link text
    (:data:`LINK_GRID_DENSITY`) and their links average :data:`LINK_GRID_WORDS` words."""
    total = dom.inner_length(article)
    if not total:
        return False
    link_text = dom.link_lengths(article)
    if link_text.get(article, 0.0) < LINK_CONTENT_SHARE * LINK_GRID_DENSITY * total:
        return False  # not enough link text on the whole page for the rule to hold
    blocks = [
        node
        for node in article.iterdescendants("div", "table", "ul", "section")
        if node in link_text
        and link_text[node] > (0.5 if class_weight(node, flags) >= 25 else 0.2) * dom.inner_length(node)
    ]
    outer: set[HtmlElement] = set()  # dense blocks holding a dense block: look inside them
    for node in blocks:
        for anc in node.iterancestors():
            if anc is article or anc in outer:
                break
            outer.add(anc)
    dense = linked = links = words = 0.0
    for node in blocks:
        if node in outer:
            continue
        dense += dom.inner_length(node)
        linked += link_text[node]
        for link in node.iter("a"):
            links += 1
            words += len(dom.text_of(link).split())
    return (
        dense >= LINK_CONTENT_SHARE * total
        and total - dense < LINK_GRID_MAX_PROSE
        and linked >= LINK_GRID_DENSITY * dense
        and words >= LINK_GRID_WORDS * links
    )


def _unwrap_content_buttons(article: HtmlElement) -> None:
    buttons = list(article.iterdescendants("button"))
    if not buttons:
        return
    total = dom.inner_length(article)
    in_buttons = sum(dom.inner_length(b) for b in buttons)
    if total and in_buttons >= BUTTON_CONTENT_SHARE * total:
        for button in buttons:
            button.tag = "span"


def _clean(root: HtmlElement, tag: str) -> None:
    embed = tag in _EMBEDS
    dom.remove_all(
        node
        for node in list(root.iterdescendants(tag))
        if not (embed and _has_video(node))
        and not (tag == "aside" and is_content_aside(node))  # docs-aware: admonitions, footnotes
    )


def _share_candidates(root: HtmlElement) -> list[HtmlElement]:
    """Descendants whose class or id contains "share" (any case), in document order."""
    found = []
    for node in root.iterdescendants():
        keys = node.keys()
        if keys and ("class" in keys or "id" in keys) and "share" in dom.class_and_id(node).lower():
            found.append(node)
    return found


def _clean_share(root: HtmlElement) -> None:
    """Readability's ``_cleanMatchedNodes`` for share widgets, below ``root``'s children.

    The candidates (class or id containing "share", any case) are found first; in document
    order each one that matches :data:`_SHARE` with under 500 characters of text is removed,
    unless it is a child of ``root`` or inside an already removed one.
    """
    for node in _share_candidates(root):
        if node.getparent() is root or not _SHARE.found_in(dom.class_and_id(node)):
            continue
        if any(anc.getparent() is None and anc is not root for anc in node.iterancestors()):
            continue  # inside a removed candidate
        if node.getparent() is not None and len(dom.text_of(node)) < 500:
            dom.remove(node)


def prep_article(article: HtmlElement, flags: int, scores: dict[HtmlElement, float]) -> None:
    """Readability's ``_prepArticle`` on the joined article ``<div>`` (mutates it)."""
    from docmunch.extract._images import fix_lazy_images

    del scores
    clean_styles(article)
    data_tables = mark_data_tables(article)
    protected = _protected(article, data_tables)
    fix_lazy_images(article)
    link_grid = is_link_grid(article, flags)
    _unwrap_content_buttons(article)
    clean_conditionally(article, "form", flags, data_tables, protected)
    clean_conditionally(article, "fieldset", flags, data_tables, protected)
    for tag in ("object", "embed", "footer", "link", "aside"):
        _clean(article, tag)
    _clean_share(article)
    for tag in ("iframe", "input", "textarea", "select", "button"):
        _clean(article, tag)
    for header in reversed(list(article.iterdescendants("h1", "h2"))):
        if class_weight(header, flags) < 0:
            dom.remove(header)
    for tag in ("table", "ul", "div"):
        clean_conditionally(article, tag, flags, data_tables, protected, link_grid)
    for p in reversed(list(article.iterdescendants("p"))):
        check_budget()
        if not any(True for _ in p.iter("img", "embed", "object", "iframe")) and not dom.text_of(p).strip():
            dom.remove(p)
    for br in list(article.iterdescendants("br")):
        after = br.getnext()
        if (br.tail is None or not br.tail.strip()) and after is not None and after.tag == "p":
            dom.remove(br)
    for table in list(article.iterdescendants("table")):
        body = table[0] if dom.has_single_tag_inside(table, "tbody") else table
        if dom.has_single_tag_inside(body, "tr"):
            row = body[0]
            if dom.has_single_tag_inside(row, "td"):
                cell = row[0]
                cell.tag = "p" if dom.all_phrasing(cell) else "div"
                dom.replace(table, cell)
