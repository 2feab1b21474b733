"""Index-time term weights: the BM25F impact of every term of a section and of its document.

Every section is analysed (:mod:`docmunch.index.analyze`) in four fields — its title, its
heading path (ancestor titles), its document (title and path) and its body — and each
distinct term gets one **impact**, the BM25F term-frequency part (Robertson, Zaragoza &
Taylor, "Simple BM25 extension to multiple weighted fields", CIKM 2004)::

    tf~ = Σ_field  W[field] · tf[field] / (1 − B[field] + B[field] · len[field] / AVG[field])
    impact = tf~ / (K1 + tf~)            (0 … 1, stored as 1 … IMPACT_LEVELS)

Every document gets the same kind of impact list over three document-level fields — its
title and path, all its headings, all its section bodies — so that a query can add the
evidence of the whole file to each of its sections (hierarchical "passage + document"
retrieval, e.g. Callan, "Passage-level evidence in document retrieval", SIGIR 1994; Bendersky
& Kurland, "Utilizing passage-based language models for document retrieval", 2008).

Field lengths are normalised by fixed reference lengths (:data:`AVG_FIELD_TERMS`,
:data:`DOC_AVG_FIELD_TERMS`) instead of the collection averages, so an impact never changes
after it is written (Anh & Moffat's impact-ordered indexes make the same trade). The query
multiplies impacts by the term's IDF at search time (:mod:`docmunch.index.rank`).

Each section also gets a **prior** (a score multiplier): :data:`NON_CONTENT_PRIOR` for a
section without prose of its own, :data:`PAGE_TITLE_PRIOR` for the section that carries the
page's own title. The numbers behind every constant are in ``docs/search.md``.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from docmunch.index.analyze import CHAR_PREFIX, is_cjk, term_counts

__all__ = [
    "AVG_FIELD_TERMS",
    "DOC_AVG_FIELD_TERMS",
    "DOC_B",
    "DOC_FIELD_WEIGHTS",
    "DOC_K1",
    "FIELD_WEIGHTS",
    "IMPACT_LEVELS",
    "K1",
    "MIN_CONTENT_WORDS",
    "NON_CONTENT_PRIOR",
    "PAGE_TITLE_PRIOR",
    "B",
    "DocumentTerms",
    "SectionTerms",
    "SectionText",
    "TermImpacts",
    "content_prior",
    "document_terms",
]

FIELD_WEIGHTS = (4.0, 2.0, 2.0, 1.0)
"""BM25F weights of title, heading path, document (title + path), body (dev set: title 3 / 6
and heading path 1 / 3 move MRR@10 by less than 0.005; docs/search.md)."""
B = (0.3, 0.3, 0.3, 0.75)
"""BM25F length normalisation per field (short fields barely; body the usual 0.75)."""
K1 = 2.0
"""BM25 saturation. 2.0 rather than Robertson's usual 1.2: a question's words are best matched
by a section that repeats them (dev set MRR@10 0.642 at 1.2, 0.665 at 2.0)."""
AVG_FIELD_TERMS = (4.0, 4.0, 12.0, 150.0)
"""Reference field lengths in terms (≈ the corpora's averages: title 3–8, heading path 2–5,
document 11–13, body 115–300)."""
DOC_FIELD_WEIGHTS = (2.0, 1.0, 1.0)
"""Document-level BM25F weights of the document's title and path, its headings, its bodies."""
DOC_B = (0.3, 0.5, 0.75)
"""Document-level length normalisation per field."""
DOC_K1 = 1.2
"""Document-level BM25 saturation (2.0 measured 0.004 lower MRR@10)."""
DOC_AVG_FIELD_TERMS = (12.0, 24.0, 1000.0)
"""Reference document field lengths in terms (corpora averages: title + path 10–13, headings
16–93, bodies 380–1550)."""
IMPACT_LEVELS = 255
"""Impacts are stored as integers 1 … 255 (0 never occurs: a posting means the term occurs)."""
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

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$", re.M)
_WORDS = re.compile(r"\w+")

TermImpacts = tuple[list[str], bytes]
"""``([term, …], impacts)``: distinct terms and one impact byte (1 … 255) each, same order."""
SectionTerms = tuple[float, bytes, bytes]
"""``(prior, term indices, impacts)`` of one section: indices (little-endian uint32) into its
document's vocabulary, one impact byte each."""
DocumentTerms = TermImpacts
"""The vocabulary of one document (every term of its sections) and its document-level impacts."""


@dataclass(frozen=True, slots=True)
class SectionText:
    """The text of one section as the term index sees it."""

    title: str
    """The section title (plain text)."""
    heading_path: str
    """Ancestor titles joined by ``" > "``."""
    body: str
    """The section text after its heading line (all of it for level 0)."""
    page_title: bool
    """The section carries the document's own title (see :data:`PAGE_TITLE_PRIOR`)."""


def content_prior(body: str) -> float:
    """:data:`NON_CONTENT_PRIOR` when ``body`` (heading line excluded) has fewer than
    :data:`MIN_CONTENT_WORDS` words outside comments, template shortcodes and links, else 1.0."""
    text = _COMMENT.sub(" ", body)
    text = _SHORTCODE.sub(" ", text)
    text = _REF_LINK.sub(" ", text)
    text = _LINK.sub(" ", text)
    for count, _ in enumerate(_WORDS.finditer(text), start=1):
        if count >= MIN_CONTENT_WORDS:
            return 1.0
    return NON_CONTENT_PRIOR


def _field(text: str) -> tuple[Counter[str], int]:
    """Term counts of one field and its length in terms (character terms of CJK text repeat the
    words' text, so they do not count towards it)."""
    counter = term_counts(text)
    length = counter.total()
    if length and is_cjk(text):
        length -= sum(n for t, n in counter.items() if t[0] == CHAR_PREFIX)
    return counter, length


def _impacts(
    fields: Sequence[tuple[Counter[str], int]],
    weights: Sequence[float],
    b: Sequence[float],
    avg: Sequence[float],
    k1: float,
) -> TermImpacts:
    tf: dict[str, float] = {}
    get = tf.get
    for f, (counter, length) in enumerate(fields):
        norm = weights[f] / (1 - b[f] + b[f] * length / avg[f])
        for term, n in counter.items():
            tf[term] = get(term, 0.0) + n * norm
    levels = IMPACT_LEVELS
    impacts = bytes([max(1, int(levels * t / (k1 + t) + 0.5)) for t in tf.values()])
    return list(tf), impacts


def document_terms(
    document: str, sections: Sequence[SectionText]
) -> tuple[list[SectionTerms], DocumentTerms]:
    """Prior, terms and impacts of every section of a document, and the document's own.

    Args:
        document: the document's title and path words (the document field of every section).
        sections: the document's sections in order.

    Returns:
        ``([(prior, term indices, impacts) per section], (vocabulary, impacts) of the
        document)``: the document's vocabulary holds every term of its sections, and a
        section's terms are indices into it (little-endian uint32), so the writer maps each
        term to its id once per document.
    """
    doc_field = _field(document)
    headings: Counter[str] = Counter()
    bodies: Counter[str] = Counter()
    heading_length = body_length = 0
    paths: dict[str, tuple[Counter[str], int]] = {}
    fields = []
    for s in sections:
        title = _field(s.title)
        body = _field(_COMMENT.sub(" ", s.body))
        headings.update(title[0])
        bodies.update(body[0])
        heading_length += title[1]
        body_length += body[1]
        path = paths.get(s.heading_path)
        if path is None:  # siblings share their heading path: analysed once
            path = paths[s.heading_path] = _field(s.heading_path)
        fields.append((title, path, doc_field, body))
    vocabulary, doc_impacts = _impacts(
        (doc_field, (headings, heading_length), (bodies, body_length)),
        DOC_FIELD_WEIGHTS,
        DOC_B,
        DOC_AVG_FIELD_TERMS,
        DOC_K1,
    )
    index = {term: i for i, term in enumerate(vocabulary)}
    out: list[SectionTerms] = []
    for s, section_fields in zip(sections, fields, strict=True):
        words, impacts = _impacts(section_fields, FIELD_WEIGHTS, B, AVG_FIELD_TERMS, K1)
        local = array("I", [index[w] for w in words])
        if sys.byteorder == "big":
            local.byteswap()
        prior = content_prior(s.body) * (PAGE_TITLE_PRIOR if s.page_title else 1.0)
        out.append((prior, local.tobytes(), impacts))
    return out, (vocabulary, doc_impacts)
