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

Each section's impacts are multiplied by its **prior** (:mod:`docmunch.index.priors`: non-content
sections and the page-title section count less). The numbers behind every constant are in
``docs/search.md``.
"""

from __future__ import annotations

import math
import sys
import threading
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from docmunch.index.analyze import CHAR_PREFIX, token_terms, tokens
from docmunch.index.priors import blank_comments, section_prior

__all__ = [
    "AVG_FIELD_TERMS",
    "DOC_AVG_FIELD_TERMS",
    "DOC_B",
    "DOC_FIELD_WEIGHTS",
    "DOC_K1",
    "FIELD_WEIGHTS",
    "IMPACT_LEVELS",
    "K1",
    "B",
    "DocumentTerms",
    "SectionTerms",
    "SectionText",
    "TermImpacts",
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
    """The section carries the document's own title (see :data:`~docmunch.index.priors.PAGE_TITLE_PRIOR`)."""


Analysis = tuple[tuple[str, ...], int]
"""The terms of one token (:func:`~docmunch.index.analyze.token_terms`) and how many of them
count in a field's length (all but CJK character terms)."""


def _analysis(token: str) -> Analysis:
    found = token_terms(token)
    return found, sum(1 for term in found if term[0] != CHAR_PREFIX)


MAX_CACHED_TOKENS = 500_000
"""Distinct tokens (words, CJK runs) whose analysis a process keeps (≈ 100 bytes each); the
memo (one per thread) is emptied before a document once it holds more (k8s-en has about 34,000)."""

_PER_THREAD = threading.local()
"""Holds each thread's own token memo (``.tokens``: ``{token: Analysis}``), so that no thread
reads an entry another is writing."""


def _tokens() -> dict[str, Analysis]:
    """This thread's token memo, emptied first when it has grown beyond its bound."""
    table: dict[str, Analysis] | None = getattr(_PER_THREAD, "tokens", None)
    if table is None or len(table) > MAX_CACHED_TOKENS:
        table = _PER_THREAD.tokens = {}
    return table


class _Piece:
    """The term counts of one piece of text (a title, a body, the document field, a heading
    path), with the document's vocabulary they index into."""

    __slots__ = ("counts", "length")

    def __init__(self, counts: dict[int, int], length: int) -> None:
        self.counts = counts
        """``{vocabulary index: occurrences}`` in order of first appearance in the piece."""
        self.length = length
        """The piece's length in terms (character terms not counted)."""


def _piece(text: str, memo: dict[str, Analysis], local: dict[str, int], vocabulary: list[str]) -> _Piece:
    """Count the terms of ``text``, adding its new terms to ``vocabulary`` (and ``local``, the
    index of each term in it) in order of first appearance.

    Each distinct token is counted once and its terms weighted by its count: a term's first
    appearance is always within the first occurrence of a token holding it, so iterating the
    distinct tokens in order of first appearance numbers the terms in the same order as
    iterating every occurrence.
    """
    counts: dict[int, int] = {}
    length = 0
    for token, k in Counter(tokens(text)).items():
        found = memo.get(token)
        if found is None:
            found = memo[token] = _analysis(token)
        names, counted = found
        length += counted * k
        for term in names:
            at = local.get(term)
            if at is None:
                at = local[term] = len(vocabulary)
                vocabulary.append(term)
            counts[at] = counts.get(at, 0) + k
    return _Piece(counts, length)


def _norm(weight: float, b: float, avg: float, length: int) -> float:
    """The BM25F field factor ``W / (1 − B + B · len / AVG)``."""
    return weight / (1 - b + b * length / avg)


def _impact(tf: float, k1: float) -> int:
    """The impact byte ``max(1, round(IMPACT_LEVELS · tf / (k1 + tf)))`` (halves up) of ``tf``."""
    level = math.floor(IMPACT_LEVELS * tf / (k1 + tf) + 0.5)
    return level if level > 1 else 1


def _weighed(pieces: Sequence[_Piece], norms: Sequence[float], k1: float) -> tuple[list[int], bytes]:
    """Terms and impact bytes of fields ``pieces`` (factors ``norms``): ``tf~`` summed field by
    field in field order, terms in order of first appearance over the fields."""
    tf: dict[int, float] = {}
    for piece, norm in zip(pieces, norms, strict=True):
        for at, k in piece.counts.items():
            tf[at] = tf.get(at, 0.0) + k * norm
    return list(tf), bytes([_impact(t, k1) for t in tf.values()])


def _uint32le(values: list[int]) -> bytes:
    """``values`` as little-endian uint32."""
    packed = array("I", values)
    if packed.itemsize != 4:  # pragma: no cover - platforms where C int is not 32 bits
        return b"".join(v.to_bytes(4, "little") for v in values)
    if sys.byteorder != "little":  # pragma: no cover - big-endian platforms
        packed.byteswap()
    return packed.tobytes()


def document_terms(
    document: str, sections: Sequence[SectionText]
) -> tuple[list[SectionTerms], DocumentTerms]:
    """Prior, terms and impacts of every section of a document, and the document's own.

    Each distinct token is analysed once per thread (the token memo, :func:`_tokens`), and
    counted once per piece of text (:func:`_piece`); impacts follow the formula in this
    module's docstring term by term (a field's ``tf~`` terms added in field order).

    Args:
        document: the document's title and path words (the document field of every section).
        sections: the document's sections in order.

    Returns:
        ``([(prior, term indices, impacts) per section], (vocabulary, impacts) of the
        document)``: the document's vocabulary holds every term of its sections in order of
        first appearance (document field, then the titles, then the bodies), and a section's
        terms are indices into it (little-endian uint32) in their order of first appearance in
        the section (title, heading path, document, body), so the writer maps each term to its
        id once per document.
    """
    memo = _tokens()
    local: dict[str, int] = {}
    vocabulary: list[str] = []
    bodies = [blank_comments(s.body) for s in sections]
    doc = _piece(document, memo, local, vocabulary)
    titles = [_piece(s.title, memo, local, vocabulary) for s in sections]
    texts = [_piece(body, memo, local, vocabulary) for body in bodies]
    paths: dict[str, _Piece] = {}
    for s in sections:
        if s.heading_path not in paths:  # siblings share their heading path
            paths[s.heading_path] = _piece(s.heading_path, memo, local, vocabulary)

    # Document-level fields: title and path, headings (all titles), bodies.
    headings = _Piece(_summed(titles), sum(p.length for p in titles))
    prose = _Piece(_summed(texts), sum(p.length for p in texts))
    fields = (doc, headings, prose)
    norms = [
        _norm(DOC_FIELD_WEIGHTS[f], DOC_B[f], DOC_AVG_FIELD_TERMS[f], piece.length)
        for f, piece in enumerate(fields)
    ]
    tf = [0.0] * len(vocabulary)
    for piece, norm in zip(fields, norms, strict=True):
        for at, k in piece.counts.items():
            tf[at] += k * norm
    doc_terms = (vocabulary, bytes([_impact(t, DOC_K1) for t in tf]))

    out: list[SectionTerms] = []
    doc_norm = _norm(FIELD_WEIGHTS[2], B[2], AVG_FIELD_TERMS[2], doc.length)
    for i, s in enumerate(sections):
        path = paths[s.heading_path]
        norms = [
            _norm(FIELD_WEIGHTS[0], B[0], AVG_FIELD_TERMS[0], titles[i].length),
            _norm(FIELD_WEIGHTS[1], B[1], AVG_FIELD_TERMS[1], path.length),
            doc_norm,
            _norm(FIELD_WEIGHTS[3], B[3], AVG_FIELD_TERMS[3], texts[i].length),
        ]
        words, impacts = _weighed((titles[i], path, doc, texts[i]), norms, K1)
        prior = section_prior(bodies[i], page_title=s.page_title)
        out.append((prior, _uint32le(words), impacts))
    return out, doc_terms


def _summed(pieces: Sequence[_Piece]) -> dict[int, int]:
    """The term counts of ``pieces`` added up."""
    total: dict[int, int] = {}
    for piece in pieces:
        for at, k in piece.counts.items():
            total[at] = total.get(at, 0) + k
    return total
