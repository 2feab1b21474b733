"""Step 4 of the scoring: the siblings of the top candidate that join the article.

Readability.js's sibling loop: a sibling joins when its content score reaches
``max(10, 0.2 × top score)`` (plus 20 % of the top score when it has the top candidate's
class), or when it is a paragraph that is long (over 80 characters) and link-poor (link
density under 0.25), or shorter, without links and holding a full stop followed by a space
or the end. Joined siblings become ``<div>``s unless their tag is in
:data:`ALTER_TO_DIV_EXCEPTIONS`.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._budget import check_budget

__all__ = ["join_siblings"]

_DOT_END = re.compile(r"\.( |$)")
ALTER_TO_DIV_EXCEPTIONS = frozenset(("div", "article", "section", "p", "ol", "ul"))


def join_siblings(top: HtmlElement, scores: dict[HtmlElement, float]) -> HtmlElement:
    """A new ``<div>`` holding ``top`` and the siblings that join it, moved out of the page."""
    article = top.makeelement("div", {})
    parent = top.getparent()
    threshold = max(10.0, scores[top] * 0.2)
    top_class = top.get("class") or ""
    for sibling in list(parent) if parent is not None else [top]:
        check_budget()
        append = sibling is top
        if not append:
            bonus = scores[top] * 0.2 if top_class and sibling.get("class") == top_class else 0
            if sibling in scores and scores[sibling] + bonus >= threshold:
                append = True
            elif sibling.tag == "p":
                density = dom.link_density(sibling)
                text = dom.inner_text(sibling)
                long_enough = len(text) > 80 and density < 0.25
                sentence = 0 < len(text) < 80 and density == 0 and _DOT_END.search(text)
                append = bool(long_enough or sentence)
        if append:
            if sibling.tag not in ALTER_TO_DIV_EXCEPTIONS:
                sibling.tag = "div"
            dom.remove(sibling)
            article.append(sibling)
    return article
