"""Text analysis shared by indexing and querying: words, stems, identifiers, CJK words.

One function, :func:`terms`, turns text into index terms; the index and the query use it
alike, so a query term matches exactly the terms indexed for the same surface text.

* **Latin (and any non-CJK) words** — runs of Unicode letters and digits (``_`` separates),
  casefolded; words of ASCII letters are reduced to their Snowball English stem
  (Porter2, through PyStemmer: ``configuring`` → ``configur``). English stop words
  (:data:`docmunch.index.stopwords.ENGLISH`) are dropped.
* **camelCase / PascalCase words** (``readinessProbe``, ``ImagePullBackOff``) also yield their
  parts (``readi``, ``probe``), so a question in plain words finds the identifier.
* **Identifiers** — word runs joined by ``-``, ``_``, ``.``, ``/`` or ``::`` (``dry-run``,
  ``app.kubernetes.io/name``, ``std::env::var``) are one extra term each (casefolded, not
  stemmed), so a query naming the identifier prefers text containing it verbatim.
* **CJK** (Han, Kana, Hangul runs) — segmented into words by jieba's algorithm with its
  shipped dictionary (``rjieba``, the Rust port: loads in ~0.1 s against ~0.8 s for the Python
  ``jieba``, and segments ~10× faster; same output). Index text uses search-engine mode
  (``cut_for_search``: long words also yield their dictionary sub-words, ``服务质量`` →
  ``服务``, ``质量``, ``服务质量``); queries use precise mode. Chinese function words
  (:data:`docmunch.index.stopwords.CHINESE`) are dropped. Every CJK character also becomes a
  *character term* (``\x01`` + character), which keeps one-character queries (``库``) and
  words the dictionary splits differently findable. ``rjieba`` is imported on the first CJK
  text (its import loads the dictionary, ≈ 0.14 s of a command's start-up): a command or a
  search that never meets Chinese, Japanese or Korean never pays it.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from types import ModuleType

import Stemmer

from docmunch.index.stopwords import CHINESE, ENGLISH

__all__ = [
    "CHAR_PREFIX",
    "MAX_TERM_CHARS",
    "TOKEN_PATTERN",
    "WORD_PATTERN",
    "cjk_words",
    "content_words",
    "is_cjk",
    "stem",
    "terms",
    "title_key",
    "token_terms",
    "tokens",
    "too_long_words",
    "word_terms",
]

MAX_TERM_CHARS = 64
"""Longer words and identifiers (hashes, base64, minified code) are not indexed (characters)."""

CHAR_PREFIX = "\x01"
"""Marks a single-CJK-character term (cannot occur in text terms: control characters are dropped)."""

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(rf"[^\W_{_CJK}]+(?:(?:::|[-_./])[^\W_{_CJK}]+)*")
WORD_PATTERN = _WORD
"""A non-CJK word run, possibly an identifier with connectors (what :func:`word_terms` takes)."""
TOKEN_PATTERN = re.compile(rf"{_WORD.pattern}|[{_CJK}]+")
"""A *token*: a non-CJK word run (as :data:`WORD_PATTERN`) or a run of CJK characters. The
tokens of a text, in order, are what :func:`terms` analyses (see :func:`token_terms`); a word
run never holds a CJK character, so the two kinds never overlap."""
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]++(?:(?:::|[-_./])[A-Za-z0-9]++)*+")
""":data:`TOKEN_PATTERN` for ASCII text, where ``[^\\W_]`` is ``[A-Za-z0-9]`` and no CJK run can
occur (same matches; about twice as fast, and possessive: nothing to backtrack into)."""
_CJK_SPLIT = re.compile(f"([{_CJK}]+)")
_PART = re.compile(rf"[^\W_{_CJK}]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CJK_RUN = re.compile(f"[{_CJK}]")

_STEMMER = Stemmer.Stemmer("english")


def is_cjk(text: str) -> bool:
    """Whether ``text`` contains a CJK character."""
    return _CJK_RUN.search(text) is not None


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Casefolded index form of one word: the Snowball English stem for ASCII letters only,
    the casefolded word otherwise (``Pods`` → ``pod``, ``v1beta1`` → ``v1beta1``)."""
    folded = word.casefold()
    if folded.isascii() and folded.isalpha():
        stemmed: str = _STEMMER.stemWord(folded)  # PyStemmer has no type hints
        return stemmed
    return folded


@lru_cache(maxsize=50_000)
def word_terms(word: str) -> tuple[str, ...]:
    """Terms of one non-CJK word run (possibly an identifier with connectors), in order."""
    out: list[str] = []
    parts = _PART.findall(word)
    if len(parts) > 1 and len(word) <= MAX_TERM_CHARS:
        out.append(word.casefold())
    for part in parts:
        if len(part) > MAX_TERM_CHARS:
            continue
        folded = part.casefold()
        if folded not in ENGLISH:
            out.append(stem(part))
        if part.isalpha() and not part.islower() and not part.isupper():
            pieces = _CAMEL.findall(part)
            if len(pieces) > 1:
                out.extend(stem(p) for p in pieces if p.casefold() not in ENGLISH)
    return tuple(out)


@lru_cache(maxsize=1)
def _rjieba() -> ModuleType:
    """The ``rjieba`` module, imported on first use (its import loads jieba's dictionary)."""
    return importlib.import_module("rjieba")


def cjk_words(run: str, *, query: bool = False) -> list[str]:
    """jieba words of a CJK run (search-engine mode for text, precise mode for queries),
    without Chinese function words."""
    segmenter = _rjieba()
    words = segmenter.cut(run) if query else segmenter.cut_for_search(run)
    return [w for w in words if w not in CHINESE]


def tokens(text: str) -> list[str]:
    """``TOKEN_PATTERN.findall(text)``: the text's tokens in order."""
    return (_ASCII_TOKEN if text.isascii() else TOKEN_PATTERN).findall(text)


def token_terms(token: str) -> tuple[str, ...]:
    """Index terms of one token of :data:`TOKEN_PATTERN`, as :func:`terms` gives them for indexed
    text: a word run's :func:`word_terms`; a CJK run's jieba words (search-engine mode, function
    words dropped) followed by one character term per character.

    ``terms(text)`` equals the concatenation of ``token_terms`` over
    ``TOKEN_PATTERN.findall(text)``, so an indexer can analyse each distinct token once.
    """
    if _CJK_RUN.match(token) is None:
        return word_terms(token)
    return (*cjk_words(token), *(CHAR_PREFIX + ch for ch in token))


def terms(text: str, *, query: bool = False) -> list[str]:
    """Index terms of ``text`` in text order (repeated terms repeated).

    Args:
        text: any string.
        query: analyse as a query (precise CJK segmentation, no character terms) instead of
            as indexed text.
    """
    out: list[str] = []
    if _CJK_RUN.search(text) is None:
        for word in _WORD.findall(text):
            out.extend(word_terms(word))
        return out
    for i, piece in enumerate(_CJK_SPLIT.split(text)):
        if i % 2 == 0:
            for word in _WORD.findall(piece):
                out.extend(word_terms(word))
            continue
        out.extend(cjk_words(piece, query=query))
        if not query:
            out.extend(CHAR_PREFIX + ch for ch in piece)
    return out


def title_key(text: str) -> str:
    """The distinct query-mode terms of ``text``, sorted and joined by spaces: equal for two
    texts that name the same thing in other words of no weight (``what is a StatefulSet`` and
    ``StatefulSets``; ``什么是 Pod？`` and ``Pod``). A camelCase word counts as its parts only,
    so ``PersistentVolume`` and ``Persistent Volumes`` meet. ``""`` for a text without terms.

    Sections store the key of their title (``sections.title_key``); a query's key equal to it
    marks a section titled like the query (:data:`docmunch.index.search.TITLE_TERMS_BOOST`)."""
    found = set(terms(text, query=True))
    for word in _WORD.findall(text):
        for part in _PART.findall(word):
            camel = part.isalpha() and not part.islower() and not part.isupper()
            if camel and len(_CAMEL.findall(part)) > 1:
                found.discard(stem(part))
    return " ".join(sorted(found))


def singular(part: str) -> str:
    """Casefolded ``part`` with an English plural ending removed (``Pods`` → ``pod``,
    ``Policies`` → ``policy``, ``Classes`` → ``class``), nothing else: unlike :func:`stem`,
    ``Scheduler`` and ``Scheduling`` stay apart. A rule of the "S-stemmer" kind (Harman,
    "How effective is suffixing?", JASIS 42(1), 1991), not the full algorithm: words of at
    most three letters and non-letters are only casefolded."""
    w = part.casefold()
    if not (w.isascii() and w.isalpha()) or len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def title_words(text: str) -> str:
    """The distinct words of ``text`` that carry terms, casefolded, plurals folded
    (:func:`singular`), sorted and joined by spaces: :func:`title_key` with plural folding
    instead of stemming. Two texts with the same :func:`title_key` but other
    ``title_words`` name different things: ``the scheduler`` and ``Scheduling``. CJK runs
    give their jieba words (precise mode), identifiers their whole form and their parts,
    camelCase words their parts only (as :func:`title_key`)."""
    found: set[str] = set()
    for i, piece in enumerate(_CJK_SPLIT.split(text)):
        if i % 2:
            found.update(cjk_words(piece, query=True))
            continue
        for word in _WORD.findall(piece):
            parts = _PART.findall(word)
            if len(parts) > 1 and len(word) <= MAX_TERM_CHARS:
                found.add(word.casefold())
            for part in parts:
                if len(part) > MAX_TERM_CHARS:
                    continue
                camel = part.isalpha() and not part.islower() and not part.isupper()
                pieces = _CAMEL.findall(part) if camel else []
                if len(pieces) > 1:
                    found.update(singular(x) for x in pieces if x.casefold() not in ENGLISH)
                elif part.casefold() not in ENGLISH:
                    found.add(singular(part))
    return " ".join(sorted(found))


def content_words(text: str) -> list[str]:
    """The words of a query that yield terms, as written and in order, each once: non-CJK
    words that are not stop words, and CJK words (precise segmentation) that are not
    function words (``how do I share data`` → ``["share", "data"]``)."""
    out: list[str] = []
    for i, piece in enumerate(_CJK_SPLIT.split(text)):
        if i % 2:
            out.extend(cjk_words(piece, query=True))
        else:
            out.extend(word for word in _WORD.findall(piece) if word_terms(word))
    return list(dict.fromkeys(out))


def too_long_words(text: str) -> list[str]:
    """The non-CJK words of ``text`` with a part longer than :data:`MAX_TERM_CHARS` (which
    :func:`word_terms` leaves out: hashes, base64, a word pasted twice without a space), as
    written and in order, each once."""
    out = [w for w in _WORD.findall(text) if any(len(p) > MAX_TERM_CHARS for p in _PART.findall(w))]
    return list(dict.fromkeys(out))
