"""Tab sets: every panel kept, each after its tab's label, the tab strip removed.

Docs put alternatives in tabs (npm / yarn / pnpm, Linux / macOS / Windows); a page shows one
panel and hides the others (``hidden``, ``aria-hidden``, ``display: none``), and the hidden
ones would be dropped as invisible. The WAI-ARIA tabs pattern is what generators emit:
``role="tablist"`` holding ``role="tab"`` elements, and ``role="tabpanel"`` panels. Each tab is
paired with its panel by ``aria-controls`` (panel ``id``), the panel's ``aria-labelledby``
(tab ``id``) or the tab's ``href="#panel-id"``; tabs left over are paired in order with the
unclaimed panels that follow the tab list inside its nearest :data:`PANEL_SEARCH_LEVELS`
ancestors. Each paired panel is made visible and preceded by a ``<p><strong>label</strong></p>``;
the tab list is removed (its labels now stand before their panels, so no word is lost).
Tab lists without any panel (navigation bars styled as tabs) are left alone.
"""

from __future__ import annotations

import re

import lxml.etree as etree
from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["PANEL_SEARCH_LEVELS", "unfold_tabs"]

PANEL_SEARCH_LEVELS = 3
"""Ancestors of a tab list searched for its panels when tabs do not name them."""

_TABLISTS = etree.XPath("//@role[.='tablist']/..")
"""Elements with ``role="tablist"``, document order (through the attribute: twice as fast as ``//*[…]``)."""
_DISPLAY_NONE = re.compile(r"display\s*:\s*none\s*;?", re.IGNORECASE)
_VISIBILITY_HIDDEN = re.compile(r"visibility\s*:\s*hidden\s*;?", re.IGNORECASE)


def _show(panel: HtmlElement) -> None:
    for name in ("hidden", "aria-hidden"):
        panel.attrib.pop(name, None)
    style = panel.get("style")
    if style:
        panel.set("style", _VISIBILITY_HIDDEN.sub("", _DISPLAY_NONE.sub("", style)))


def _panels_near(tablist: HtmlElement) -> list[HtmlElement]:
    node = tablist
    for _ in range(PANEL_SEARCH_LEVELS):
        parent = node.getparent()
        if parent is None:
            break
        found = [el for el in parent.iterdescendants() if el.get("role") == "tabpanel"]
        if found:
            return found
        node = parent
    return []


def _pairs(tablist: HtmlElement, by_id: dict[str, HtmlElement]) -> list[tuple[HtmlElement, HtmlElement]]:
    tabs = [el for el in tablist.iterdescendants() if el.get("role") == "tab"]
    if not tabs:
        return []
    nearby = _panels_near(tablist)
    labelled = {el.get("aria-labelledby"): el for el in nearby if el.get("aria-labelledby")}
    pairs: list[tuple[HtmlElement, HtmlElement]] = []
    claimed: set[HtmlElement] = set()
    unpaired: list[HtmlElement] = []
    for tab in tabs:
        href = tab.get("href") or ""
        panel = None
        for candidate in (
            by_id.get(tab.get("aria-controls") or ""),
            labelled.get(tab.get("id") or ""),
            by_id.get(href[1:]) if href.startswith("#") else None,
        ):
            if candidate is not None:
                panel = candidate
                break
        if panel is None or panel.get("role") != "tabpanel" or panel in claimed:
            unpaired.append(tab)
            continue
        claimed.add(panel)
        pairs.append((tab, panel))
    rest = [p for p in nearby if p not in claimed]
    pairs.extend(zip(unpaired, rest, strict=False))
    return sorted(pairs, key=lambda pair: tabs.index(pair[0]))


def unfold_tabs(root: HtmlElement) -> None:
    """Unfold every ARIA tab set under ``root`` (the ``<html>`` element), in place."""
    tablists = [el for el in _TABLISTS(root) if isinstance(el, HtmlElement)]
    if not tablists:
        return
    by_id = {key: el for el in root.iter() if el.get("role") == "tabpanel" and (key := el.get("id"))}
    for tablist in tablists:
        if tablist.getparent() is None:
            continue
        pairs = _pairs(tablist, by_id)
        if not pairs:
            continue
        for tab, panel in pairs:
            label = " ".join(dom.text_of(tab).split())
            _show(panel)
            if label:
                para = panel.makeelement("p", {})
                strong = para.makeelement("strong", {})
                strong.text = label
                para.append(strong)
                panel.addprevious(para)
        dom.remove(tablist)
