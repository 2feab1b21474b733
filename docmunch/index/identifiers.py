"""Identifiers verbatim: query pieces written in code punctuation, looked for in the best candidates.

The analyser keeps words and identifiers joined by ``-``, ``_``, ``.``, ``/`` or ``::``, but
drops the rest of code's punctuation: ``Arc<Mutex<T>>`` is the terms ``arc``, ``mutex``, ``t``,
``&str`` is ``str``. :func:`identifiers` takes such pieces from the query, casefolded; search
reads back the text of the :data:`IDENTIFIER_CHECKS` best candidates (raw cache) and adds
:data:`IDENTIFIER_BOOST` × the share of them found verbatim, each identifier weighted by its
rarity among those candidates (:func:`identifier_weights`). What counts as an identifier, and
why, is measured in ``docs/search.md`` (rounds 3, 6 and 7).
"""

from __future__ import annotations

import math
import re

from docmunch.index.analyze import MAX_TERM_CHARS, WORD_PATTERN

__all__ = [
    "IDENTIFIER_BOOST",
    "IDENTIFIER_CHECKS",
    "IDENTIFIER_MAX_CHARS",
    "identifier_weights",
    "identifiers",
]

IDENTIFIER_BOOST = 0.3
"""Added, times the share of the query's identifiers found, when a section's text contains
them verbatim (case-insensitive); each identifier counts by its rarity among the checked
candidates (:func:`identifier_weights`). Dev MRR@10 0.672 at 0.5, 0.678 at 0.3, 0.677 at 0.1
and 0.2, 0.677 without; validation 0.710 at each; keywords 0.877 at each (``docs/search.md``,
seventh round)."""
IDENTIFIER_MAX_CHARS = 100
"""A longer query piece is not checked verbatim (characters): no identifier is that long, and
trimming a piece costs time quadratic in its length (a 4 MB MCP message of ``(`` would take
hours)."""
IDENTIFIER_CHECKS = 30
"""How many of the best candidates are read back (raw cache) for the identifier check."""
_IDENTIFIER = re.compile(r"^(?=.*[^\W_])(?=.*[!-/:-@\[-`{-~]).+$")
"""A word character and an ASCII punctuation character: code is written in ASCII punctuation."""
_PIECE = re.compile(r"[^\s\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+")
"""A query piece: text between whitespace and CJK or full-width punctuation (``，``, ``？``, ``：``)."""
_EDGE = "\"'`“”‘’,.;:!?。，；！？"
"""Quotes and sentence punctuation, stripped from both ends of a piece."""
_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"), ("（", "）"))
_APOSTROPHES = str.maketrans("", "", "'’")


def _trim(piece: str) -> str:
    """``piece`` without quotes and sentence punctuation at its ends, and without a bracket at
    an end that has no partner inside (``(see`` → ``see``, ``Some(x)`` stays)."""
    while True:
        before = piece
        piece = piece.strip(_EDGE)
        for opening, closing in _BRACKETS:
            if piece.endswith(closing) and piece.count(closing) > piece.count(opening):
                piece = piece[:-1]
            if piece.startswith(opening) and piece.count(opening) > piece.count(closing):
                piece = piece[1:]
        if piece == before:
            return piece


def _one_term(piece: str) -> bool:
    """Whether the analyser indexes ``piece`` whole, as one term: a word run joined only by its
    connectors (``kube-system``, ``lib.rs``, ``std::env::var``, ``out-of-range``; the
    analyser's :data:`~docmunch.index.analyze.WORD_PATTERN`) of at most
    :data:`~docmunch.index.analyze.MAX_TERM_CHARS` characters."""
    return len(piece) <= MAX_TERM_CHARS and WORD_PATTERN.fullmatch(piece) is not None


def identifiers(query: str) -> list[str]:
    """Pieces of ``query`` written with code punctuation that the analyser drops
    (``Arc<Mutex<T>>``, ``&str``, ``--dry-run``, ``Some(x)``), casefolded, for the verbatim check.

    Pieces end at whitespace and at CJK and full-width punctuation: a Chinese sentence
    (``定时任务错过了计划时间，过后还会补跑吗？``) is prose, not one identifier, and ``Service，DNS``
    is two words. Quotes, sentence punctuation (a trailing ``:`` too: ``x509:``) and unpaired
    brackets at a piece's ends are removed (:func:`_trim`). Not identifiers:

    * pieces whose only punctuation is an apostrophe — English contractions and possessives
      (``aren't``, ``won't``, ``app's``) are prose, and found verbatim in most sections they
      gave the boost to whatever section said them;
    * pieces longer than :data:`IDENTIFIER_MAX_CHARS`;
    * words joined only by ``-``, ``_``, ``.``, ``/`` or ``::`` (``kube-node-lease``,
      ``crates.io``, ``String::from``): the analyser already indexes each as one term, so the
      boost counted the same evidence twice, and for the hyphenated English compounds of prose
      (``out-of-range``, ``per-node``, ``command-line``) it rewarded any section that used
      them. A leading dash is kept (``--prune``: the analyser drops it).
    """
    out: list[str] = []
    for piece in _PIECE.findall(query):
        if len(piece) > IDENTIFIER_MAX_CHARS:
            continue
        piece = _trim(piece)
        if len(piece) < 3 or not _IDENTIFIER.match(piece) or piece.isalnum():
            continue
        if piece.translate(_APOSTROPHES).isalnum() or _one_term(piece):
            continue
        out.append(piece.casefold())
    return list(dict.fromkeys(out))


def identifier_weights(wanted: list[str], texts: list[str]) -> dict[str, float]:
    """How much finding each identifier verbatim says, from its rarity among ``texts``.

    An inverse document frequency over the checked candidates (Spärck Jones 1972), scaled to
    0–1: ``ln((n + 1) / max(1, n_i)) / ln(n + 1)`` for an identifier found in ``n_i`` of the
    ``n`` texts: 1.0 when one candidate has it, about 0.01 when all of them do. ``--dry-run``
    is in every ``kubectl`` reference page, so finding it tells those pages nothing apart; a
    rare identifier still gives its section the whole boost.

    Args:
        wanted: casefolded identifiers (:func:`identifiers`).
        texts: the candidates' casefolded texts.

    Returns:
        ``{identifier: weight}``, each in (0, 1].
    """
    n = len(texts)
    scale = math.log(n + 1)
    found = {ident: sum(1 for t in texts if ident in t) for ident in wanted}
    return {ident: math.log((n + 1) / max(1, count)) / scale for ident, count in found.items()}
