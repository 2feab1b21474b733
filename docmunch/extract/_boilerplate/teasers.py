"""Rule 5: link teasers — short lines that are (almost) all link text, and the label before them.

"Lea también: …", "MIRA: …", "zurück zur Listenansicht": a teaser paragraph or heading, or a
list made only of such links (:func:`link_teaser`); a short label line ending in ``:`` right
before one (:func:`is_label_line`, "Lesen Sie auch:") goes with it. The pass runs this rule
only on news pages whose content is not itself mostly links.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.elements import LINE_BLOCKS, LINE_MAX_CHARS

__all__ = ["LABEL_MAX_CHARS", "TEASER_LINK_DENSITY", "TEASER_MIN_CHARS", "is_label_line", "link_teaser"]

TEASER_LINK_DENSITY = 0.7
"""Share of a line's characters inside links above which it is a link teaser."""
TEASER_MIN_CHARS = 15
"""Shortest link teaser, in characters: a headline, not a bare "link" or "PDF"."""
LABEL_MAX_CHARS = 60
"""A label line ("Lesen Sie auch:") is shorter than this, in characters."""

_LABEL_TAGS = LINE_BLOCKS | {"strong", "b"}


def _is_teaser_line(el: HtmlElement) -> bool:
    if el.tag not in LINE_BLOCKS and el.tag != "li":
        return False
    if el.tag == "div" and not dom.all_phrasing(el):
        return False
    text = dom.inner_text(el)
    if not TEASER_MIN_CHARS <= len(text) < LINE_MAX_CHARS or dom.link_density(el) < TEASER_LINK_DENSITY:
        return False
    hrefs = [a.get("href") or "" for a in el.iter("a")]
    if len(set(hrefs)) > 1:
        return False  # a row of links ("GitHub - Documentation") is a resource line, not a headline
    return not all(href.startswith(("mailto:", "tel:")) for href in hrefs)  # contact lines are content


def is_label_line(el: HtmlElement | None) -> bool:
    if el is None or el.tag not in _LABEL_TAGS:
        return False
    text = dom.text_of(el).strip()
    if not text.endswith(":"):  # the last character survives the whitespace folding of inner_text
        return False
    if len(text) >= LABEL_MAX_CHARS:
        text = dom.normalize_spaces(text)  # == inner_text(el)
    return len(text) < LABEL_MAX_CHARS and dom.link_density(el) == 0


def link_teaser(el: HtmlElement) -> bool:
    """Rule 5: a teaser line (not a list item alone) or a list made only of teaser lines.

    A label line ending in ``:`` right before it ("Lesen Sie auch:") is removed with it.
    """
    if el.tag in ("ul", "ol"):
        items = [li for li in el if li.tag == "li"]
        teaser = len(items) >= 2 and all(_is_teaser_line(li) for li in items)
    else:
        teaser = el.tag != "li" and _is_teaser_line(el)
    label = el.getprevious()
    if teaser and label is not None and is_label_line(label):
        dom.remove(label)
    return teaser
