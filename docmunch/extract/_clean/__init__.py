"""Cleaning of the chosen article: Readability.js's ``_prepArticle`` and helpers, on lxml.

Source of the rules: Mozilla Readability.js 0.6 (Apache-2.0) — ``_markDataTables``,
``_cleanConditionally`` (the "fishy node" heuristics: image/paragraph ratio, list items vs
paragraphs, inputs, link density against class weight, embeds, text density), ``_clean``,
``_cleanHeaders``, ``_cleanMatchedNodes`` (share widgets). Re-implemented here.

Divergences: a node holding most of the article's text is never removed for its class weight
alone (:data:`.conditional.BULK_SHARE`). Docs-aware divergences: an element holding a ``<pre>``
code block, ``<math>`` or a data table is never removed conditionally (unless its class/id
weight is negative and it is not a code container); ``<h1>`` keeps its level; admonition and
footnote ``<aside>``s stay (:mod:`docmunch.extract._asides`).

Passes of :func:`prep_article`, in order, each in its module: :mod:`.attributes` (presentational
attributes), :mod:`.tables` (data tables and the elements they and code blocks protect),
:mod:`docmunch.extract._images` (lazy images), :mod:`.link_grid` (is the article a grid of
linked cards?), :mod:`.conditional` (Readability's "fishy node" removals) and
:mod:`.unconditional` (elements removed by tag, share widgets; content buttons kept); the last
small passes (headers with a negative class weight, empty paragraphs, ``<br>`` before a
paragraph, single-cell tables) run here.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._budget import check_budget
from docmunch.extract._clean.attributes import clean_styles
from docmunch.extract._clean.conditional import clean_conditionally
from docmunch.extract._clean.link_grid import is_link_grid
from docmunch.extract._clean.tables import mark_data_tables, protected_elements
from docmunch.extract._clean.unconditional import clean_share, remove_tag, unwrap_content_buttons
from docmunch.extract._weights import class_weight

__all__ = ["prep_article"]


def prep_article(article: HtmlElement, flags: int, scores: dict[HtmlElement, float]) -> None:
    """Readability's ``_prepArticle`` on the joined article ``<div>`` (mutates it)."""
    from docmunch.extract._images import fix_lazy_images

    del scores
    clean_styles(article)
    data_tables = mark_data_tables(article)
    protected = protected_elements(article, data_tables)
    fix_lazy_images(article)
    link_grid = is_link_grid(article, flags)
    unwrap_content_buttons(article)
    clean_conditionally(article, "form", flags, data_tables, protected)
    clean_conditionally(article, "fieldset", flags, data_tables, protected)
    for tag in ("object", "embed", "footer", "link", "aside"):
        remove_tag(article, tag)
    clean_share(article)
    for tag in ("iframe", "input", "textarea", "select", "button"):
        remove_tag(article, tag)
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
