"""Article boilerplate inside the chosen content: one pass, :func:`strip_boilerplate`, after scoring.

Readability-style scoring picks the right container on news and blog pages but keeps what the
publisher put *inside* it: photo captions, credit lines, "read also" links, share and newsletter
boxes, author cards, dates, comment headers. This pass removes those, with rules that hold on
any site (no site or theme names; the few words it knows are labels that mean the same in every
publication). Each rule below is a function; the evidence is the number of ``without`` snippets of
``articles-dev`` it removes and the ``with`` snippets it costs, measured on docmunch's output
before the pass (330 pages, ``python -m bench articles``):

1. **Photo captions** (:func:`.captions.photo_caption`, removes 25, costs 2): a ``<figcaption>``,
   or an element whose class/id says ``caption``/``credit``, beside an image (``img``,
   ``picture``, ``video``…) and no code or table. News captions describe the photo and credit the
   agency; human annotators (and trafilatura's default) leave them out of the article text.
2. **Credit and copyright lines** (:func:`.lines.credit_line`, removes 12, costs 1): a short block
   that starts with a picture/source label (``Foto:``, ``Quelle:``, ``Source:``, ``©``…, list
   :data:`.lines.CREDIT_LABEL`) or states a copyright (``©``, "all rights reserved").
3. **Date lines** (:func:`.lines.date_line`, removes 8, costs 1): a short block that is a date or
   time plus at most a few words ("Publiziert: 03.04.2020, 12:35"), and ``<time>`` blocks.
4. **Advertising labels** (:func:`.lines.ad_label`): a block whose whole text is a label such as
   "Advertisement", "Anzeige" or "Continue reading the main story" (:data:`.lines.AD_LABEL`).
5. **Link teasers** (:func:`.teasers.link_teaser`, removes 16, costs 4): a short paragraph or
   heading that is (almost) all link text — "Lea también: …", "MIRA: …", "zurück zur
   Listenansicht" — and a list made only of such links; a short label line ending in ``:`` right
   before one goes too.
6. **Chrome by class** (:func:`.by_class.chrome_by_class`, removes 12, costs 0): a small element
   (text under :data:`.elements.CHROME_MAX_CHARS`) whose class/id names a share bar, newsletter
   or paywall box, author card, reading-time or meta line, or (when link-heavy) related-story
   teasers; a small ``<nav>`` (tab bars, "in this series" menus) inside the content.
7. **Comment, login, subscription and author boxes** (:func:`.lines.comment_header`,
   :func:`.lines.subscribe_call`, :func:`.lines.author_box`; remove 11, cost 1): a short block
   that opens a comment section ("Kommentare (0)", "3 Comments", "Leave a reply") or says one must
   be logged in to comment; a short line inviting to subscribe or sign up for a newsletter; an
   author box titled "About the author" / "Über den Autor" (:data:`.lines.AUTHOR_BOX_LABEL`) with
   its short bio.
8. **Galleries** (:func:`.captions.gallery`): a list or container whose every item is an image
   with a short caption; the caption text repeats per slide and is not article text.
9. **Orphan headings** (:func:`.orphans.orphan_headings`), last: a heading with no text after it
   before the next heading of the same or a higher level — the title of a box the rules above
   emptied ("Auch interessant", "Weitere Artikel", "Das könnte Sie auch interessieren").

Never removed: the content root, anything inside ``<pre>``/``<code>``/``<table>``/``<math>``, and a
node holding more than :data:`BULK_SHARE` of the content's text.

Modules: this one runs the pass (which rules apply, the walks, :func:`technical_page`);
:mod:`.captions` (rules 1, 8), :mod:`.lines` (rules 2–4, 7), :mod:`.teasers` (rule 5),
:mod:`.by_class` (rule 6) and :mod:`.orphans` (rule 9) hold the rules; :mod:`.elements` the
element kinds, names and limits they share (and :data:`.elements.WRAPPER_NAMES`, which the
scorer writes).
"""

from __future__ import annotations

from collections.abc import Callable

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._boilerplate.by_class import chrome_by_class, widget_by_class
from docmunch.extract._boilerplate.captions import gallery, photo_caption
from docmunch.extract._boilerplate.elements import BLOCKS, HEADINGS, LINE_BLOCKS, WRAPPER_NAMES
from docmunch.extract._boilerplate.lines import (
    ad_label,
    author_box,
    comment_header,
    credit_line,
    date_line,
    subscribe_call,
)
from docmunch.extract._boilerplate.orphans import orphan_headings
from docmunch.extract._boilerplate.teasers import link_teaser
from docmunch.extract._prep import has_permalink

__all__ = ["strip_boilerplate"]

PERMALINK_HEADINGS = 2
"""Headings with a permalink anchor that make a page documentation (see :func:`technical_page`)."""
BULK_SHARE = 0.3
"""No rule removes a node holding more than this share of the content's text (characters)."""
JUDGED_MAX_RAW_CHARS = 4000
"""Elements with more raw text than this (characters, whitespace included) are never judged: every
rule targets short blocks (the longest limit is :data:`.elements.CHROME_MAX_CHARS` after whitespace
folding), and skipping big ones keeps the pass linear in the page size."""
LINKED_CONTENT_DENSITY = 0.35
"""Link teasers are only removed when less than this share of the whole content is link text: on
a page that is itself a list of links (an index, a link-heavy essay) the links are the content."""

_KEEP = frozenset(("pre", "code", "table", "math"))


def strip_boilerplate(content: HtmlElement) -> None:
    """Remove article boilerplate from ``content`` in place (rules 1–9 of the module docstring).

    ``content``: the extracted article element, classes and ids still on it (before
    ``clean_classes``). Never raises; an element without boilerplate is left as it is. One walk
    per rule group, each O(elements): text is only read for elements short enough to matter.
    """
    try:
        _strip(content)
    finally:
        for el in content.iter():
            if isinstance(el.tag, str) and WRAPPER_NAMES in el.attrib:
                del el.attrib[WRAPPER_NAMES]


def _strip(content: HtmlElement) -> None:
    sizes = _text_sizes(content)
    total = sizes.get(content, 0)
    if not total:
        return
    bulk = BULK_SHARE * total
    limit = min(bulk, JUDGED_MAX_RAW_CHARS)
    news = not technical_page(content)
    rules: tuple[Callable[[HtmlElement, str], bool], ...] = (
        *((photo_caption, credit_line, date_line) if news else ()),
        ad_label,
        chrome_by_class if news else widget_by_class,
        comment_header,
        subscribe_call,
        author_box,
        gallery,
    )

    # per element name: the rules that may apply (in order), and whether only the class rule does
    by_tag: dict[str, tuple[tuple[Callable[[HtmlElement, str], bool], ...], bool]] = {}

    def doomed(el: HtmlElement) -> bool:
        tag = el.tag
        if not isinstance(tag, str):  # _walk_and_remove judges elements only
            return False
        entry = by_tag.get(tag)
        if entry is None:
            applicable = tuple(rule for rule in rules if _may_apply(rule, tag))
            class_only = all(rule in (chrome_by_class, widget_by_class) for rule in applicable)
            entry = by_tag[tag] = (applicable, class_only and tag != "nav")
        applicable, class_only = entry
        if not applicable:
            return False
        size = sizes.get(el, 0)
        if size > limit:
            return False
        if class_only and not _has_names(el):
            return False  # the class rule needs a class, id or wrapper name
        text = dom.inner_text(el) if size else ""
        for rule in applicable:  # noqa: SIM110 - a loop, not any(<generator>): runs for most elements
            if rule(el, text):
                return True
        return False

    _walk_and_remove(content, doomed)
    if news and dom.link_density(content) < LINKED_CONTENT_DENSITY:  # a page made of links keeps its links
        _walk_and_remove(
            content, lambda el: el.tag in _TEASER_TAGS and sizes.get(el, 0) <= limit and link_teaser(el)
        )
    orphan_headings(content)


def _may_apply(rule: Callable[[HtmlElement, str], bool], tag: str) -> bool:
    """Whether ``rule`` can return ``True`` for an element named ``tag`` (its own first test)."""
    if rule in (chrome_by_class, widget_by_class):
        return tag not in ("a", "body")
    return tag in _RULE_TAGS[rule.__name__]


def _has_names(el: HtmlElement) -> bool:
    return bool(el.get("class") or el.get("id") or el.get(WRAPPER_NAMES))


def technical_page(content: HtmlElement) -> bool:
    """Whether ``content`` is documentation or a technical post, not news.

    Evidence: a code block (``<pre>``) or math with text, or :data:`PERMALINK_HEADINGS` headings
    carrying a permalink anchor (``¶``, ``#``, "Link to this heading": documentation generators
    put one on every heading, news sites do not). The news rules (photo captions, credit, date
    and link-teaser lines, author/byline/meta lines by class) do not apply there: in docs a
    figure caption explains a diagram, "Source:" names a reference, a date heads a changelog
    entry and a lone link paragraph is a reference.
    """
    if any(dom.text_of(el).strip() for el in content.iter("pre", "math")):
        return True
    anchored = 0
    for heading in content.iter(*HEADINGS):
        if has_permalink(heading):
            anchored += 1
            if anchored >= PERMALINK_HEADINGS:
                return True
    return False


def _text_sizes(content: HtmlElement) -> dict[HtmlElement, int]:
    """Characters of ``textContent`` of every element (one bottom-up pass, no string building)."""
    sizes: dict[HtmlElement, int] = {}
    for el in reversed(list(content.iter())):
        size = len(el.text or "") if isinstance(el.tag, str) else 0
        for child in el:
            size += sizes.get(child, 0) + len(child.tail or "")
        sizes[el] = size
    return sizes


def _walk_and_remove(content: HtmlElement, doomed: Callable[[HtmlElement], bool]) -> None:
    """Visit elements under ``content`` in document order; remove those ``doomed`` says, unvisited.

    Code, tables and math (:data:`_KEEP`) are neither judged nor entered.
    """
    stack = list(reversed(list(content)))
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _KEEP or el.getparent() is None:
            continue
        if doomed(el):
            dom.remove(el)
            continue
        stack.extend(reversed(list(el)))


_RULE_TAGS: dict[str, frozenset[str]] = {
    "photo_caption": BLOCKS,
    "credit_line": BLOCKS,
    "date_line": BLOCKS - frozenset(HEADINGS),
    "ad_label": BLOCKS,
    "comment_header": frozenset((*HEADINGS, "p", "div")),
    "subscribe_call": LINE_BLOCKS | {"li", "i", "em", "strong", "b"},
    "author_box": LINE_BLOCKS,
    "gallery": frozenset(("ul", "ol", "div")),
}
"""Element names each text rule can remove (the test each rule makes first), so the pass reads
an element's text only when some rule may apply to it."""
_TEASER_TAGS = LINE_BLOCKS | {"li", "ul", "ol"}
