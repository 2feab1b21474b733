"""Document preparation before scoring, and tidying after it.

After Mozilla Readability.js 0.6 (Apache-2.0): ``_removeScripts``, ``_prepDocument`` (drop
``<style>``, turn ``<br><br>`` chains into paragraphs, ``<font>`` → ``<span>``),
``_simplifyNestedElements`` and ``_cleanClasses`` — the last one keeps, besides ``page``, the
classes the Markdown converter needs: code languages, admonitions/alerts, math, footnotes.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["clean_classes", "prep_document", "replace_brs", "simplify_nested"]

_KEEP_CLASS = re.compile(
    r"^(page|language-\S+|lang-\S+|highlight\S*|sourceCode|admonition\S*|note|tip|hint|warning|danger|"
    r"caution|important|attention|error|seealso|todo|info|success|alert\S*|markdown-alert\S*|"
    r"callout\S*|math\S*|katex\S*|MathJax\S*|footnote\S*|footnotes|arithmatex)$",
    re.IGNORECASE,
)


def replace_brs(body: HtmlElement) -> None:
    """Two or more ``<br>`` in a row start a new ``<p>`` holding the phrasing content after them."""
    for br in list(body.iter("br")):
        parent = br.getparent()
        if parent is None:
            continue
        replaced = False
        while not (br.tail and br.tail.strip()):
            nxt = br.getnext()
            if nxt is None or nxt.tag != "br":
                break
            replaced = True
            dom.remove(nxt)
        if not replaced:
            continue
        p = br.makeelement("p", {})
        p.text, br.tail = br.tail, None
        parent.replace(br, p)
        while True:
            nxt = p.getnext()
            if nxt is None:
                break
            if nxt.tag == "br":
                after = nxt.getnext()
                if not (nxt.tail and nxt.tail.strip()) and after is not None and after.tag == "br":
                    break
            if not dom.is_phrasing(nxt):
                break
            p.append(nxt)  # moves its tail (the following text node) along
        _trim_trailing_whitespace(p)
        if parent.tag == "p":
            parent.tag = "div"


def _trim_trailing_whitespace(p: HtmlElement) -> None:
    while len(p):
        last = p[-1]
        if last.tail and not last.tail.strip():
            last.tail = None
        if last.tail is None and last.tag == "br":
            p.remove(last)
            continue
        return
    if p.text and not p.text.strip():
        p.text = None


def prep_document(root: HtmlElement) -> None:
    """Remove scripts, noscripts, styles; fix ``<br>`` chains and ``<font>`` in place."""
    for el in list(root.iter("script", "noscript", "style")):
        dom.remove(el)
    body = root.find("body")
    if body is not None:
        replace_brs(body)
    for font in root.iter("font"):
        font.tag = "span"


def simplify_nested(article: HtmlElement) -> None:
    """Readability's ``_simplifyNestedElements``: unwrap div/section chains, drop empty ones."""
    node: HtmlElement | None = article
    while node is not None:
        if (
            node.getparent() is not None
            and node.tag in ("div", "section")
            and not (node.get("id") or "").startswith("readability")
        ):
            if dom.without_content(node):
                node = dom.remove_and_get_next(node)
                continue
            if dom.has_single_tag_inside(node, "div") or dom.has_single_tag_inside(node, "section"):
                child = node[0]
                for name, value in node.attrib.items():
                    child.set(name, value)
                dom.replace(node, child)
                node = child
                continue
        node = dom.next_node(node)


def clean_classes(article: HtmlElement) -> None:
    """Drop ``class`` attributes except the classes in ``_KEEP_CLASS``."""
    for el in article.iter():
        value = el.get("class")
        if value is None:
            continue
        kept = [c for c in value.split() if _KEEP_CLASS.match(c)]
        if kept:
            el.set("class", " ".join(kept))
        else:
            del el.attrib["class"]
