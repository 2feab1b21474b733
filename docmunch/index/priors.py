"""Section priors: the score multiplier a section carries into every query.

A prior says how likely a section is to be an answer at all, whatever the query. Two kinds of
section are rarely one:

- **Non-content sections** (:data:`NON_CONTENT_PRIOR`): a section with fewer than
  :data:`MIN_CONTENT_WORDS` words of its own prose once HTML comments, template shortcodes
  (``{{< … >}}``, ``{{% … %}}``), links and link reference definitions are removed — headings
  that are only a shortcode, empty "What's next" stubs — and a **link list**: a section whose
  body is a CommonMark list (bullet ``-`` ``+`` ``*`` or ordered ``1.`` ``1)`` items) of at
  least :data:`LINK_LIST_MIN_ITEMS` items, at least :data:`LINK_LIST_LINKED_SHARE` of them
  holding a link, none longer than :data:`LINK_ITEM_MAX_WORDS` words, with fewer than
  :data:`MIN_CONTENT_WORDS` words outside the list ("What's next", "See also", the "Resource
  Types" index of a generated reference page, in any language). It is the link-density idea of
  Readability's candidate cleaning (Mozilla Readability.js, ``_getLinkDensity``) applied to a
  Markdown section: navigation points elsewhere and answers nothing itself.
- **The page-title section** (:data:`PAGE_TITLE_PRIOR`): the section carrying the document's
  own title, whose words are also every section's document field.

The dev-set figures behind each constant are in ``docs/search.md``.
"""

from __future__ import annotations

import re

__all__ = [
    "LINK_ITEM_MAX_WORDS",
    "LINK_LIST_LINKED_SHARE",
    "LINK_LIST_MIN_ITEMS",
    "MIN_CONTENT_WORDS",
    "NON_CONTENT_PRIOR",
    "PAGE_TITLE_PRIOR",
    "blank_comments",
    "content_prior",
    "is_link_list",
    "section_prior",
]

MIN_CONTENT_WORDS = 8
"""A section with fewer words of its own prose (links, comments, template shortcodes and the
heading line removed) counts as non-content (empty "What's next" lists, shortcode-only
headings) and gets :data:`NON_CONTENT_PRIOR`."""
NON_CONTENT_PRIOR = 0.5
"""Score multiplier of a non-content section (keeps shortcode headings and empty link lists
below the section that answers a mixed query; spec fixtures)."""
PAGE_TITLE_PRIOR = 0.7
"""Score multiplier of the section that carries the page's own title (level 0 or 1, title
equal to the document title): its words are also every section's document field, so it
matched them twice and outranked the section answering a question (dev set MRR@10 0.654
→ 0.665; 0.5 measured the same as 0.7)."""
LINK_LIST_MIN_ITEMS = 2
"""Fewest list items a link list has (one linked item is a sentence with a link)."""
LINK_LIST_LINKED_SHARE = 0.8
"""Least share of a link list's items that hold a link (a stray item of plain text, such as
"and the API reference", does not make a list content)."""
LINK_ITEM_MAX_WORDS = 20
"""Most words an item of a link list has, link text excluded (CJK: one word per two
characters). Longer items describe what they link to. At 12 the k8s-zh "What's next" lists,
whose items are whole sentences, stayed content: Chinese-only MRR@10 dev 0.452 → 0.455 and
validation unchanged, against 0.459 and 0.476 at 20 (docs/search.md, round 12)."""

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_USE = re.compile(r"\[[^\]]+\]\[[^\]]*\]")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$", re.M)
_WORDS = re.compile(r"\w+")
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_ITEM = re.compile(r"[ \t]*(?:[*+-]|\d{1,9}[.)])[ \t]+")
"""A CommonMark list item's first line: indentation, bullet or ordered marker, space."""


def blank_comments(text: str) -> str:
    """``text`` with every HTML comment (``<!-- … -->``) replaced by one space."""
    return _COMMENT.sub(" ", text) if "<!--" in text else text


def content_prior(body: str) -> float:
    """:data:`NON_CONTENT_PRIOR` for a non-content body (heading line excluded; see the module
    docstring: too few words of prose, or a link list), else 1.0."""
    return _body_prior(blank_comments(body))


def section_prior(blanked_body: str, *, page_title: bool) -> float:
    """The prior of one section: :func:`content_prior` times :data:`PAGE_TITLE_PRIOR` when the
    section carries the page title.

    Args:
        blanked_body: the body after its heading line, comments already blanked
            (:func:`blank_comments`; the term index blanks them anyway).
        page_title: the section carries the document's own title.
    """
    return _body_prior(blanked_body) * (PAGE_TITLE_PRIOR if page_title else 1.0)


def _body_prior(text: str) -> float:
    """:func:`content_prior` of a body whose HTML comments are already blanked (blanking them
    again changes nothing: the space that replaces one cannot complete another).

    Every shortcode, link and reference-definition match begins and ends at a non-word
    character (or a line end), so removing one removes whole words and never splits or joins
    one: a text of fewer words than :data:`MIN_CONTENT_WORDS` is non-content as it stands, and
    one with no ``{{`` or ``[`` before the end of its first that many words keeps them all."""
    end = _words_end(text)
    if end < 0:
        return NON_CONTENT_PRIOR
    if ("](" in text or "][" in text) and is_link_list(text):
        return NON_CONTENT_PRIOR
    if "{{" not in text[:end] and "[" not in text[:end]:
        return 1.0
    if "{{" in text:
        text = _SHORTCODE.sub(" ", text)
    if "[" in text:
        text = _REF_LINK.sub(" ", text)
        text = _LINK.sub(" ", text)
    for count, _ in enumerate(_WORDS.finditer(text), start=1):
        if count >= MIN_CONTENT_WORDS:
            return 1.0
    return NON_CONTENT_PRIOR


def is_link_list(text: str) -> bool:
    """Whether ``text`` (a section body, comments blanked) is a link list (module docstring).

    An item runs from its marker line over the lines that continue it: indented lines, and
    unindented lines before the next blank line (CommonMark's lazy continuation). Any other
    line is text outside the list, except a line ending with a colon, which introduces a list
    ("Learn more about Services and how they fit into Kubernetes:").
    """
    if "{{" in text:
        text = _SHORTCODE.sub(" ", text)
    items: list[str] = []
    outside: list[str] = []
    in_item = after_blank = False
    for line in text.splitlines():
        if not line.strip():
            after_blank = True
            continue
        if _ITEM.match(line):
            items.append(line)
            in_item = True
        elif in_item and (not after_blank or line[:1] in " \t"):
            items[-1] += " " + line
        else:
            in_item = False
            if not line.rstrip().endswith((":", "：")):  # a lead-in ("Read the following:")
                outside.append(line)
        after_blank = False
    if len(items) < LINK_LIST_MIN_ITEMS:
        return False
    linked = sum(1 for item in items if _LINK.search(item) or _REF_USE.search(item))
    if linked < LINK_LIST_LINKED_SHARE * len(items):
        return False
    if any(_prose_words(item) > LINK_ITEM_MAX_WORDS for item in items):
        return False
    return _prose_words(" ".join(outside)) < MIN_CONTENT_WORDS


def _prose_words(text: str) -> int:
    """Words of ``text`` outside links and reference definitions; CJK characters count one
    word per two (a CJK run has no spaces to count)."""
    text = _LINK.sub(" ", _REF_LINK.sub(" ", _REF_USE.sub(" ", text)))
    cjk = len(_CJK_CHAR.findall(text))
    if cjk:
        text = _CJK_CHAR.sub(" ", text)
    return len(_WORDS.findall(text)) + cjk // 2


def _words_end(text: str) -> int:
    """The end of the :data:`MIN_CONTENT_WORDS`-th word of ``text`` (-1 when it has fewer)."""
    for count, match in enumerate(_WORDS.finditer(text), start=1):
        if count >= MIN_CONTENT_WORDS:
            return match.end()
    return -1
