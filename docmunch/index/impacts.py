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
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from docmunch.index.analyze import CHAR_PREFIX, token_terms, tokens

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
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

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
    return _prior(_COMMENT.sub(" ", body))


def _prior(text: str) -> float:
    """:func:`content_prior` of a body whose HTML comments are already blanked (blanking them
    again changes nothing: the space that replaces one cannot complete another)."""
    if "{{" in text:
        text = _SHORTCODE.sub(" ", text)
    if "[" in text:
        text = _REF_LINK.sub(" ", text)
        text = _LINK.sub(" ", text)
    for count, _ in enumerate(_WORDS.finditer(text), start=1):
        if count >= MIN_CONTENT_WORDS:
            return 1.0
    return NON_CONTENT_PRIOR


class _Tokens(dict[str, int]):
    """Every distinct token this thread has analysed, numbered (``{token: number}``), with its
    terms, numbered too.

    A token is analysed once (:func:`~docmunch.index.analyze.token_terms`, on its first lookup),
    and a document's tokens become arrays of numbers, so :func:`document_terms` counts and
    weighs terms with numpy instead of a Python loop per section and term. ``term_start[k] …
    term_start[k + 1]`` indexes the terms of token ``k`` in ``term_ids``. Cleared (by
    :func:`_tokens`) when it holds more than :data:`MAX_CACHED_TOKENS` tokens.
    """

    def __init__(self) -> None:
        super().__init__()
        self.term_index: dict[str, int] = {}
        self.terms: list[str] = []
        self.term_start = array("q", [0])
        self.term_ids = array("q")
        self.is_char = array("b")
        """Per term: 1 for a CJK character term (not counted in a field's length)."""

    def __missing__(self, token: str) -> int:
        index = self.term_index
        for term in token_terms(token):
            tid = index.get(term)
            if tid is None:
                tid = index[term] = len(self.terms)
                self.terms.append(term)
                self.is_char.append(term[0] == CHAR_PREFIX)
            self.term_ids.append(tid)
        number = self[token] = len(self)
        self.term_start.append(len(self.term_ids))
        return number


MAX_CACHED_TOKENS = 500_000
"""Distinct tokens (words, CJK runs) whose analysis a process keeps (≈ 100 bytes each); the
memo (one per thread) is emptied before a document once it holds more (k8s-en has about 34,000)."""

_PER_THREAD = threading.local()
"""Holds each thread's own :class:`_Tokens` (``.tokens``): a memo shared by threads would be
read half-updated (a token numbered before its terms are appended) and its arrays could not
grow while another thread holds numpy views of them (``BufferError``)."""


def _tokens() -> _Tokens:
    """This thread's token memo, emptied first when it has grown beyond its bound."""
    table: _Tokens | None = getattr(_PER_THREAD, "tokens", None)
    if table is None or len(table) > MAX_CACHED_TOKENS:
        table = _PER_THREAD.tokens = _Tokens()
    return table
_SECTION_FIELDS = 4
"""title, heading path, document, body (the order of :data:`FIELD_WEIGHTS`)."""


def _ranges(starts: Ints, ends: Ints) -> Ints:
    """The concatenation of ``arange(starts[i], ends[i])`` over ``i``."""
    lengths = ends - starts
    total = int(lengths.sum())
    if not total:
        return np.empty(0, np.int64)
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return shift + np.arange(total, dtype=np.int64)


def _quantised(tf: Floats, k1: float) -> bytes:
    """Impact bytes ``max(1, round(IMPACT_LEVELS · tf / (k1 + tf)))`` (halves up) of ``tf``."""
    levels = np.floor(IMPACT_LEVELS * tf / (k1 + tf) + 0.5)
    return np.maximum(levels, 1).astype(np.uint8).tobytes()


def _norms(lengths: Ints, weights: Sequence[float], b: Sequence[float], avg: Sequence[float]) -> Floats:
    """BM25F field factors ``W / (1 − B + B · len / AVG)`` of fields laid out field-fastest."""
    n = len(weights)
    w, bb, a = (np.tile(np.asarray(v, np.float64), lengths.size // n) for v in (weights, b, avg))
    out: Floats = w / (1 - bb + bb * lengths / a)
    return out


def document_terms(
    document: str, sections: Sequence[SectionText]
) -> tuple[list[SectionTerms], DocumentTerms]:
    """Prior, terms and impacts of every section of a document, and the document's own.

    Each distinct token is analysed once per thread (:class:`_Tokens`); the term counts of
    every field of every section, their lengths and the BM25F impacts are then computed with
    numpy for the whole document at once, with the same floating-point operations, in the same
    order, as the formula in this module's docstring (so the bytes do not depend on how they
    were computed).

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
    n = len(sections)
    bodies = [_COMMENT.sub(" ", s.body) for s in sections]
    # Pieces of token text, in this order: the document, every title, every body, every
    # distinct heading path. The document-level fields are the first 1 + 2n pieces, contiguous.
    pieces: list[list[str]] = [tokens(document)]
    pieces.extend(tokens(s.title) for s in sections)
    pieces.extend(tokens(body) for body in bodies)
    path_piece: dict[str, int] = {}
    for s in sections:
        if s.heading_path not in path_piece:  # siblings share their heading path
            path_piece[s.heading_path] = len(pieces)
            pieces.append(tokens(s.heading_path))
    stream = [token for piece in pieces for token in piece]
    table = _tokens()
    token_ids = np.fromiter(map(table.__getitem__, stream), np.int64, len(stream))
    term_start = np.frombuffer(table.term_start, np.int64)
    all_terms = np.frombuffer(table.term_ids, np.int64)
    is_char = np.frombuffer(table.is_char, np.int8)
    # Term occurrences of every piece, in order; piece p's are term_at[p] … term_at[p + 1].
    per_token = term_start[token_ids + 1] - term_start[token_ids]
    occurrences = all_terms[_ranges(term_start[token_ids], term_start[token_ids + 1])]
    token_at = np.zeros(len(pieces) + 1, np.int64)
    np.cumsum([len(p) for p in pieces], out=token_at[1:])
    term_at = np.concatenate([np.zeros(1, np.int64), np.cumsum(per_token)])[token_at]
    counted = is_char[occurrences] == 0

    # The document's vocabulary: its terms in order of first appearance.
    unique, first = np.unique(occurrences, return_index=True)
    order = np.argsort(first, kind="stable")
    vocabulary_ids = unique[order]
    local = np.empty(unique.size, np.int64)
    local[order] = np.arange(unique.size)
    local_terms = local[np.searchsorted(unique, occurrences)]
    size = vocabulary_ids.size

    # Document-level fields: title and path (piece 0), headings (titles), bodies.
    ends = term_at[[1, 1 + n, 1 + 2 * n]]
    field = np.repeat(np.arange(3), np.diff(np.concatenate([[0], ends])))
    doc_lengths = np.bincount(field[counted[: ends[-1]]], minlength=3)
    doc_counts = np.bincount(local_terms[: ends[-1]] * 3 + field, minlength=3 * size).reshape(size, 3)
    norm = _norms(doc_lengths, DOC_FIELD_WEIGHTS, DOC_B, DOC_AVG_FIELD_TERMS)
    tf = doc_counts[:, 0] * norm[0] + doc_counts[:, 1] * norm[1] + doc_counts[:, 2] * norm[2]
    vocabulary = [table.terms[i] for i in vocabulary_ids.tolist()]
    doc_terms = (vocabulary, _quantised(tf, DOC_K1))

    # Section fields: each section's term occurrences as title, heading path, document, body.
    piece_of = np.empty(_SECTION_FIELDS * n, np.int64)
    piece_of[0::4] = np.arange(1, 1 + n)
    piece_of[1::4] = [path_piece[s.heading_path] for s in sections]
    piece_of[2::4] = 0
    piece_of[3::4] = np.arange(1 + n, 1 + 2 * n)
    at = _ranges(term_at[piece_of], term_at[piece_of + 1])
    slot = np.repeat(np.arange(piece_of.size), term_at[piece_of + 1] - term_at[piece_of])
    lengths = np.bincount(slot[counted[at]], minlength=piece_of.size)
    norms = _norms(lengths, FIELD_WEIGHTS, B, AVG_FIELD_TERMS).reshape(n, _SECTION_FIELDS)
    section = slot // _SECTION_FIELDS
    keys, first, inverse = np.unique(section * size + local_terms[at], return_index=True, return_inverse=True)
    counts = np.bincount(inverse * 4 + slot % 4, minlength=4 * keys.size).reshape(keys.size, 4)
    owner = keys // size if size else keys
    f = norms[owner]
    tf = counts[:, 0] * f[:, 0] + counts[:, 1] * f[:, 1] + counts[:, 2] * f[:, 2] + counts[:, 3] * f[:, 3]
    order = np.argsort(first, kind="stable")  # by section, then first appearance in it
    words = (keys[order] % size if size else keys).astype("<u4")
    impacts = _quantised(tf[order], K1)
    bounds = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n), out=bounds[1:])
    out: list[SectionTerms] = []
    for i, s in enumerate(sections):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        prior = _prior(bodies[i]) * (PAGE_TITLE_PRIOR if s.page_title else 1.0)
        out.append((prior, words[lo:hi].tobytes(), impacts[lo:hi]))
    return out, doc_terms
