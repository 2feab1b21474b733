"""Article boilerplate inside the chosen content: one pass, :func:`strip_boilerplate`, after scoring.

Readability-style scoring picks the right container on news and blog pages but keeps what the
publisher put *inside* it: photo captions, credit lines, "read also" links, share and newsletter
boxes, author cards, dates, comment headers. This pass removes those, with rules that hold on
any site (no site or theme names; the few words it knows are labels that mean the same in every
publication). Each rule below is a function; the evidence is the number of ``without`` snippets of
``articles-dev`` it removes and the ``with`` snippets it costs, measured on docmunch's output
before the pass (330 pages, ``python -m bench articles``):

1. **Photo captions** (:func:`_photo_caption`, removes 25, costs 2): a ``<figcaption>``, or an
   element whose class/id says ``caption``/``credit``, beside an image (``img``, ``picture``,
   ``video``…) and no code or table. News captions describe the photo and credit the agency;
   human annotators (and trafilatura's default) leave them out of the article text.
2. **Credit and copyright lines** (:func:`_credit_line`, removes 12, costs 1): a short block that
   starts with a picture/source label (``Foto:``, ``Quelle:``, ``Source:``, ``©``…, list
   :data:`CREDIT_LABEL`) or states a copyright (``©``, "all rights reserved").
3. **Date lines** (:func:`_date_line`, removes 8, costs 1): a short block that is a date or
   time plus at most a few words ("Publiziert: 03.04.2020, 12:35"), and ``<time>`` blocks.
4. **Advertising labels** (:func:`_ad_label`): a block whose whole text is a label such as
   "Advertisement", "Anzeige" or "Continue reading the main story" (:data:`AD_LABEL`).
5. **Link teasers** (:func:`_link_teaser`, removes 16, costs 4): a short paragraph or heading that
   is (almost) all link text — "Lea también: …", "MIRA: …", "zurück zur Listenansicht" — and a
   list made only of such links; a short label line ending in ``:`` right before one goes too.
6. **Chrome by class** (:func:`_chrome_by_class`, removes 12, costs 0): a small element (text
   under :data:`CHROME_MAX_CHARS`) whose class/id names a share bar, newsletter or paywall box,
   author card, reading-time or meta line, or (when link-heavy) related-story teasers; a small
   ``<nav>`` (tab bars, "in this series" menus) inside the content.
7. **Comment, login, subscription and author boxes** (:func:`_comment_header`,
   :func:`_subscribe_call`, :func:`_author_box`; remove 11, cost 1): a short block that opens a
   comment section ("Kommentare (0)", "3 Comments", "Leave a reply") or says one must be logged in
   to comment; a short line inviting to subscribe or sign up for a newsletter; an author box
   titled "About the author" / "Über den Autor" (:data:`AUTHOR_BOX_LABEL`) with its short bio.
8. **Galleries** (:func:`_gallery`): a list or container whose every item is an image with a
   short caption; the caption text repeats per slide and is not article text.
9. **Orphan headings** (:func:`_orphan_headings`), last: a heading with no text after it before
   the next heading of the same or a higher level — the title of a box the rules above emptied
   ("Auch interessant", "Weitere Artikel", "Das könnte Sie auch interessieren").

Never removed: the content root, anything inside ``<pre>``/``<code>``/``<table>``/``<math>``, and a
node holding more than :data:`BULK_SHARE` of the content's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom
from docmunch.extract._fold import FoldedPattern
from docmunch.extract._prep import has_permalink
from docmunch.extract._weights import is_section_anchor

__all__ = ["WRAPPER_NAMES", "strip_boilerplate"]

WRAPPER_NAMES = "data-docmunch-wrapper"
"""Attribute carrying the class/id of a ``<div>`` the scorer replaced by its only ``<p>`` (Readability
collapses ``<div class="newsletter"><p>…</p></div>`` to the ``<p>``); read by the class rule, and
removed by :func:`strip_boilerplate` so it never reaches the output."""

PERMALINK_HEADINGS = 2
"""Headings with a permalink anchor that make a page documentation (see :func:`technical_page`)."""
BULK_SHARE = 0.3
"""No rule removes a node holding more than this share of the content's text (characters)."""
JUDGED_MAX_RAW_CHARS = 4000
"""Elements with more raw text than this (characters, whitespace included) are never judged: every
rule targets short blocks (the longest limit below is :data:`CHROME_MAX_CHARS` after whitespace
folding), and skipping big ones keeps the pass linear in the page size."""
LINE_MAX_CHARS = 160
"""Longest "line" (credit, teaser link, label) the text rules judge, in characters."""
DATE_LINE_MAX_CHARS = 60
"""Longest date line, in characters; at most :data:`DATE_LINE_MAX_WORD_CHARS` letters besides the date."""
DATE_LINE_MAX_WORD_CHARS = 30
COPYRIGHT_MAX_CHARS = 250
"""Longest copyright statement, in characters."""
TEASER_LINK_DENSITY = 0.7
LINKED_CONTENT_DENSITY = 0.35
"""Link teasers are only removed when less than this share of the whole content is link text: on
a page that is itself a list of links (an index, a link-heavy essay) the links are the content."""
"""Share of a line's characters inside links above which it is a link teaser."""
CHROME_MAX_CHARS = 800
"""Largest element (characters) the class rule removes: widgets are small, article bodies are not."""
RELATED_LINK_DENSITY = 0.3
"""A ``related``/``teaser`` element goes only when at least this share of its text is links
(a "teaser" class alone often marks the article's own lead paragraph)."""
CAPTION_MAX_CHARS = 400
"""Longest photo caption, in characters (a longer "caption" is a story item of a list page)."""
TEASER_MIN_CHARS = 15
"""Shortest link teaser, in characters: a headline, not a bare "link" or "PDF"."""
GALLERY_CAPTION_MAX_CHARS = 200
"""Longest per-image caption of a gallery item, in characters."""

_BLOCKS = frozenset(
    ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "dd", "dt", "span", "small",
     "header", "time", "blockquote", "em", "strong", "b", "i", "section", "aside", "center", "footer")
)  # fmt: skip
_LINE_BLOCKS = frozenset(("p", "div", "h2", "h3", "h4", "h5", "h6", "center"))
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_MEDIA = ("img", "picture", "video", "svg", "iframe")
_KEEP = frozenset(("pre", "code", "table", "math"))

CREDIT_LABEL = FoldedPattern(
    r"^[(\[]?\s*(fotos?|bild(er)?|titelbild|quellen?|source|sources|photos?|images?|imagen|"
    r"foto\s?credits?|credits?|crédito|źródło|zdjęcie|©|copyright|\(c\))\s*[:©/]",
)
"""Labels a credit line starts with (de, en, es, fr, pl); a colon, ``©`` or ``/`` follows."""
_COPYRIGHT = FoldedPattern(
    r"^\s*(©|\(c\)|copyright\b)|all rights reserved|alle rechte vorbehalten|tous droits réservés|"
    r"todos los derechos|wszelkie prawa zastrzeżone",
)
_DATE = re.compile(
    r"\b(\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})\b"
)
_WORD_CHAR = re.compile(r"\w")
AD_LABEL = FoldedPattern(
    r"^[-–—\s]*(advertisement|advertising|anzeige|werbung|publicité|publicidad|pubblicità|reklama|"
    r"реклама|广告|continue reading( the main story)?)[-–—\s]*$",
)
"""Whole-block labels of ad slots and of "read the rest" breaks."""
_COMMENT_HEADER = FoldedPattern(
    r"^\d*\s*(\(\d+\)\s*)?(comments?|kommentare?|kommentieren|commentaires?|comentarios?|komentarz[ey]?|"
    r"leave a (reply|comment)|schreibe einen kommentar)\b.{0,20}$",
)
_LOGIN_PROMPT = FoldedPattern(
    r"eingeloggt|angemeldet sein|logged in|log in (to|for)|sign in to|connecté|zalogowan",
)
_SUBSCRIBE_CALL = FoldedPattern(
    r"newsletter|(?<!un)subscri(be|ption)\b|abonnier|sign(ing)? up|abonnez|suscr[ií]b",
)
CALL_MAX_CHARS = 200
"""Longest newsletter/subscription or login call-to-action line, in characters."""
AUTHOR_BOX_LABEL = FoldedPattern(
    r"^(über (den|die) autor(in)?|zur person|about the author|à propos de l'auteur|sobre el autor|"
    r"o autorze)$",
)
"""Titles of author boxes; the box (the label and its next block, if small) goes."""
_WIDGET_CLASS = FoldedPattern(
    r"shar(e|ing)|social|newsletter|subscri|sign-?up|paywall|payant|(^|[-_ ])rating",
)
_POST_LINE_CLASS = FoldedPattern(
    r"author|(^|[-_ ])bio($|[-_ ])|byline|reading-?time|readingtime|(^|[-_ ])(meta|dateline)($|[-_ ])",
)
_RELATED_CLASS = FoldedPattern(r"related|teaser|recommend")
_TITLE_CLASS = FoldedPattern(r"headline|heading|title")
_DRAWING_FILE = re.compile(r"\.(png|svg|gif)(?:$|[?#])", re.IGNORECASE)
"""File names of drawings (diagrams, charts, screenshots); photographs are JPEG, WebP, AVIF, HEIC."""
_IMAGE_SOURCE_ATTRS = ("src", "data-src", "data-lazy-src", "data-original", "srcset", "data-srcset")
_CAPTION_CREDIT = FoldedPattern(
    r"\b(fotos?|bild(er)?|quellen?|source|photos?|images?|imagen|foto\s?credits?|credits?|crédito|źródło|"
    r"zdjęcie)\s*[:/]|©|\(c\)",
)
"""A caption naming a photographer, agency or source ("Foto: dpa", "© Jane Doe") is a photo credit."""
_FIGURE_CAPTION_CLASS = FoldedPattern(r"(?<!no)(?<!no[-_])(caption|credit)")


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
        *((_photo_caption, _credit_line, _date_line) if news else ()),
        _ad_label,
        _chrome_by_class if news else _widget_by_class,
        _comment_header,
        _subscribe_call,
        _author_box,
        _gallery,
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
            class_only = all(rule in (_chrome_by_class, _widget_by_class) for rule in applicable)
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
            content, lambda el: el.tag in _TEASER_TAGS and sizes.get(el, 0) <= limit and _link_teaser(el)
        )
    _orphan_headings(content)


def _may_apply(rule: Callable[[HtmlElement, str], bool], tag: str) -> bool:
    """Whether ``rule`` can return ``True`` for an element named ``tag`` (its own first test)."""
    if rule in (_chrome_by_class, _widget_by_class):
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
    for heading in content.iter(*_HEADINGS):
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


def _class_id(el: HtmlElement) -> str:
    """Class, id and wrapper names; an id that is the slug of the element's heading is left out
    (``<h2 id="sharing-configs">`` names its section, not a share bar)."""
    ident = el.get("id") or ""
    if ident and is_section_anchor(el):
        ident = ""
    return f"{el.get('class') or ''} {ident} {el.get(WRAPPER_NAMES) or ''}"


def _has_media(el: HtmlElement | None) -> bool:
    return el is not None and any(True for _ in el.iter(*_MEDIA))


def _has_code_or_table(el: HtmlElement) -> bool:
    return any(True for _ in el.iter("pre", "table"))


def _photo_caption(el: HtmlElement, text: str) -> bool:
    if el.tag != "figcaption" and not (el.tag in _BLOCKS and _FIGURE_CAPTION_CLASS.found_in(_class_id(el))):
        return False
    if any(True for _ in el.iter("img", "picture", "video")):
        return False  # a figure whose class mentions its caption: the image stays
    if len(text) > CAPTION_MAX_CHARS:
        return False
    parent = el.getparent()
    if el.tag == "figcaption" and parent is not None and parent.tag == "figure":
        if _has_code_or_table(parent):
            return False
        return not _is_diagram(parent, text)  # no image at all: a photo the page never filled in
    for holder in (parent, parent.getparent() if parent is not None else None):
        if holder is not None and _has_media(holder) and not _has_code_or_table(holder):
            return not _is_diagram(holder, text)
    return False


def _is_diagram(holder: HtmlElement, caption: str) -> bool:
    """Whether ``holder``'s pictures are drawings (PNG, SVG, GIF) and the caption credits nobody.

    News photos are JPEG/WebP files credited to a photographer or agency; a PNG or SVG under a
    caption is a diagram, chart or screenshot the text refers to ("the three processes and the
    sockets between them"), and its caption is part of the explanation. A picture without a
    readable file name (no ``src``, a ``data:`` placeholder) counts as a photo.
    """
    if _CAPTION_CREDIT.found_in(caption):
        return False
    found = False
    for media in holder.iter("img", "svg", "source"):
        if media.tag == "svg":
            found = True
            continue
        names = [media.get(name) or "" for name in _IMAGE_SOURCE_ATTRS]
        urls = [url for value in names for url in value.split(",") if url.strip()]
        urls = [url for url in urls if not url.strip().startswith("data:")]
        if not urls:
            continue  # a placeholder (lazy image, <source> media query): says nothing
        if not all(_DRAWING_FILE.search(url.split()[0]) for url in urls):
            return False
        found = True
    return found


def _credit_line(el: HtmlElement, text: str) -> bool:
    if el.tag not in _BLOCKS:
        return False
    if not text:
        return False
    if len(text) < LINE_MAX_CHARS and CREDIT_LABEL.starts(text):
        return True
    return len(text) < COPYRIGHT_MAX_CHARS and _COPYRIGHT.found_in(text) and _is_line(el)


def _is_line(el: HtmlElement) -> bool:
    """A block of its own (not a phrase inside a paragraph with other text)."""
    parent = el.getparent()
    if el.tag in _LINE_BLOCKS or el.tag in ("li", "small", "footer", "figcaption"):
        return True
    return parent is not None and dom.inner_text(parent) == dom.inner_text(el)


def _date_line(el: HtmlElement, text: str) -> bool:
    if el.tag not in _BLOCKS or el.tag in _HEADINGS:
        return False  # a heading that is a date opens a section (a changelog entry, a diary day)
    if not 0 < len(text) <= DATE_LINE_MAX_CHARS:
        return False
    if el.tag == "time" and _is_line(el):
        return True
    if not _DATE.search(text) or not _is_line(el):
        return False
    return len(_WORD_CHAR.findall(_DATE.sub("", text))) <= DATE_LINE_MAX_WORD_CHARS


def _ad_label(el: HtmlElement, text: str) -> bool:
    return el.tag in _BLOCKS and AD_LABEL.starts(text)


def _chrome_by_class(el: HtmlElement, text: str) -> bool:
    return _by_class(el, text, news=True)


def _widget_by_class(el: HtmlElement, text: str) -> bool:
    """Rule 6 on a technical page: widgets only; author, byline, date and meta lines stay."""
    return _by_class(el, text, news=False)


def _by_class(el: HtmlElement, text: str, *, news: bool) -> bool:
    if el.tag in ("a", "body"):
        return False
    if el.tag == "nav":
        return len(text) < CHROME_MAX_CHARS
    names = _class_id(el)
    if not names.strip() or len(text) >= CHROME_MAX_CHARS:
        return False
    if _WIDGET_CLASS.found_in(names) or (news and _POST_LINE_CLASS.found_in(names)):
        return True
    return _RELATED_CLASS.found_in(names) and dom.link_density(el) >= RELATED_LINK_DENSITY


_COMMENT_HEADER_TAGS = frozenset((*_HEADINGS, "p", "div"))


def _comment_header(el: HtmlElement, text: str) -> bool:
    if el.tag not in _COMMENT_HEADER_TAGS:
        return False
    if not 0 < len(text) < LINE_MAX_CHARS:
        return False
    return _COMMENT_HEADER.starts(text) or _LOGIN_PROMPT.found_in(text)


def _author_box(el: HtmlElement, text: str) -> bool:
    if el.tag not in _LINE_BLOCKS:
        return False
    if not AUTHOR_BOX_LABEL.starts(text.rstrip(":")):
        return False
    bio = el.getnext()
    if bio is not None and len(dom.inner_text(bio)) < CHROME_MAX_CHARS:
        dom.remove(bio)
    return True


def _subscribe_call(el: HtmlElement, text: str) -> bool:
    if el.tag not in _LINE_BLOCKS and el.tag not in ("li", "i", "em", "strong", "b"):
        return False
    return 0 < len(text) < CALL_MAX_CHARS and _SUBSCRIBE_CALL.found_in(text) and _is_line(el)


def _gallery(el: HtmlElement, text: str) -> bool:
    if el.tag not in ("ul", "ol", "div"):
        return False
    items = [child for child in el if isinstance(child.tag, str)]
    if len(items) < 3:
        return False
    for item in items:
        if not _has_media(item) or len(dom.inner_text(item)) > GALLERY_CAPTION_MAX_CHARS:
            return False
    return True


def _is_teaser_line(el: HtmlElement) -> bool:
    if el.tag not in _LINE_BLOCKS and el.tag != "li":
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


_LABEL_TAGS = _LINE_BLOCKS | {"strong", "b"}
LABEL_MAX_CHARS = 60
"""A label line ("Lesen Sie auch:") is shorter than this, in characters."""


def _is_label_line(el: HtmlElement | None) -> bool:
    if el is None or el.tag not in _LABEL_TAGS:
        return False
    text = dom.text_of(el).strip()
    if not text.endswith(":"):  # the last character survives the whitespace folding of inner_text
        return False
    if len(text) >= LABEL_MAX_CHARS:
        text = dom.normalize_spaces(text)  # == inner_text(el)
    return len(text) < LABEL_MAX_CHARS and dom.link_density(el) == 0


def _link_teaser(el: HtmlElement) -> bool:
    """Rule 5: a teaser line (not a list item alone) or a list made only of teaser lines.

    A label line ending in ``:`` right before it ("Lesen Sie auch:") is removed with it.
    """
    if el.tag in ("ul", "ol"):
        items = [li for li in el if li.tag == "li"]
        teaser = len(items) >= 2 and all(_is_teaser_line(li) for li in items)
    else:
        teaser = el.tag != "li" and _is_teaser_line(el)
    label = el.getprevious()
    if teaser and label is not None and _is_label_line(label):
        dom.remove(label)
    return teaser


def _heading_level(el: HtmlElement) -> int:
    return int(el.tag[1]) if el.tag in _HEADINGS else 0


def _orphan_headings(content: HtmlElement) -> None:
    """Rule 9: drop the trailing headings and label lines that no text follows (emptied boxes' titles).

    Only the run at the end of the content goes: a heading followed by nothing but a video or a
    sub-heading inside the article is the article's own structure.
    """
    elements = list(content.iter())
    inside = set(elements)
    # Whether an element is a box title is judged on the tree as it was before this rule
    # removed anything. Walking backwards, an element's subtree only changes when a title
    # inside it goes, so its ancestors are judged just before that removal; the others are
    # judged when reached, and the walk stops at the first title with text after it.
    judged: dict[HtmlElement, bool] = {}

    def is_title(el: HtmlElement) -> bool:
        found = judged.get(el)
        if found is None:
            found = judged[el] = isinstance(el.tag, str) and _is_box_title(el)
        return found

    for el in reversed(elements):
        if not is_title(el):
            continue
        if el.getparent() is None or _section_text_after(el, 0, inside):
            return  # the first heading or label with text after it ends the trailing run
        for anc in el.iterancestors():
            is_title(anc)
            if anc is content:
                break
        dom.remove(el)


def _is_box_title(el: HtmlElement) -> bool:
    """A heading, a label line, or a short link-less element whose class calls it a headline/title."""
    if el.tag in _HEADINGS or _is_label_line(el):
        return True
    if el.tag not in ("span", "div", "p", "strong", "b") or not _TITLE_CLASS.found_in(_class_id(el)):
        return False
    text = dom.inner_text(el)
    return 0 < len(text) < LABEL_MAX_CHARS and dom.link_density(el) == 0


def _section_text_after(heading: HtmlElement, level: int, inside: set[HtmlElement]) -> bool:
    """Whether any text follows ``heading`` (in document order) before a heading of level ≤ ``level``."""
    if heading.tail and heading.tail.strip():
        return True
    node: HtmlElement | None = dom.next_node(heading, True)
    while node is not None:
        if node not in inside:
            return False
        if node.tag in _HEADINGS and _heading_level(node) <= level:
            return False
        if node.tag in _HEADINGS:
            if dom.inner_text(node) or (node.tail and node.tail.strip()):
                return True
            node = dom.next_node(node, True)
            continue
        if node.text and node.text.strip():
            return True
        if node.tail and node.tail.strip():
            return True
        if node.tag in _MEDIA:
            return True
        node = dom.next_node(node)
    return False


_RULE_TAGS: dict[str, frozenset[str]] = {
    "_photo_caption": _BLOCKS,
    "_credit_line": _BLOCKS,
    "_date_line": _BLOCKS - frozenset(_HEADINGS),
    "_ad_label": _BLOCKS,
    "_comment_header": frozenset((*_HEADINGS, "p", "div")),
    "_subscribe_call": _LINE_BLOCKS | {"li", "i", "em", "strong", "b"},
    "_author_box": _LINE_BLOCKS,
    "_gallery": frozenset(("ul", "ol", "div")),
}
"""Element names each text rule can remove (the test each rule makes first), so the pass reads
an element's text only when some rule may apply to it."""
_TEASER_TAGS = _LINE_BLOCKS | {"li", "ul", "ol"}
