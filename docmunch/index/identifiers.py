"""Identifiers verbatim: query pieces written in code punctuation, looked for in the best candidates.

The analyser keeps words and identifiers joined by ``-``, ``_``, ``.``, ``/`` or ``::``, but
drops the rest of code's punctuation: ``Arc<Mutex<T>>`` is the terms ``arc``, ``mutex``, ``t``,
``&str`` is ``str``. :func:`identifiers` takes such pieces from the query, casefolded; search
reads back the text of the :data:`IDENTIFIER_CHECKS` best candidates (raw cache) and adds
:data:`IDENTIFIER_BOOST` × the share of them found verbatim, each identifier weighted by its
rarity among those candidates (:func:`identifier_weights`). What counts as an identifier, and
why, is measured in ``docs/search.md`` (rounds 3, 6 and 7).

An operator written on its own (``?``, ``..=``, ``=>``, ``&&``) has no word for the analyser at
all, and ``?`` or ``&`` stand in nearly every section's prose or code. What names a section about
one is its title (``The ? Operator Shortcut``, ``Matching Ranges of Values with ..=``), so
:func:`symbols` takes such pieces from the query and search looks for them as whole tokens of
section titles: a query of operators only (no word to rank by) is answered by the sections
titled with them (:data:`SYMBOL_TITLE_BOOST`). With words beside it the operator is not used:
``propagating errors ? operator`` wants its words' section (``Propagating Errors``), and the
boost put the ``?`` subsections above it (keywords MRR@10 0.898 → 0.880).
"""

from __future__ import annotations

import math
import re

from docmunch.index.analyze import MAX_TERM_CHARS, WORD_PATTERN

__all__ = [
    "IDENTIFIER_BOOST",
    "IDENTIFIER_CHECKS",
    "IDENTIFIER_MAX_CHARS",
    "SYMBOL_MAX_CHARS",
    "SYMBOL_TITLE_BOOST",
    "identifier_weights",
    "identifiers",
    "symbols",
    "title_has_symbol",
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
SYMBOL_TITLE_BOOST = IDENTIFIER_BOOST
"""Score, times the share of the query's :func:`symbols` it holds, of a section whose title holds
them as whole tokens, for a query of operators only (``?`` → ``The ? Operator Shortcut``). The
weight of a verbatim identifier: both are code written as the user wrote it."""
SYMBOL_MAX_CHARS = 4
"""Longest operator taken from a query (characters): ``..=``, ``>>=``, ``<=>``; longer runs of
punctuation are decoration (``-----``)."""
_PROSE_SYMBOLS = frozenset(
    {"-", "--", "–", "—", ",", ".", "..", "...", ";", ":", "'", '"', "`", "/", "(", ")", "()", "*"}
)
"""Punctuation that stands alone in prose (dashes, ellipses, quotes, a list bullet), never taken
for an operator."""
_SYMBOL = re.compile(r"[!-/:-@\[-`{-~]+")
"""A run of ASCII punctuation only."""
_QUOTES = "`'\"“”‘’"
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


def symbols(query: str) -> list[str]:
    """Operators written on their own in ``query`` (``? operator`` → ``["?"]``; ``what does `=>`
    do`` → ``["=>"]``): whitespace-separated pieces of 1–:data:`SYMBOL_MAX_CHARS` ASCII
    punctuation characters once quotes and backticks around them are removed, other than the
    punctuation of prose (dashes, ellipses, commas, a list bullet: ``_PROSE_SYMBOLS``). In order,
    each once."""
    out: list[str] = []
    for piece in query.split():
        core = piece.strip(_QUOTES) if len(piece) > 2 else piece
        if len(core) > SYMBOL_MAX_CHARS or core in _PROSE_SYMBOLS or _SYMBOL.fullmatch(core) is None:
            continue
        out.append(core)
    return list(dict.fromkeys(out))


def title_has_symbol(title: str, symbol: str) -> bool:
    """Whether ``symbol`` is a whole whitespace-separated token of ``title``, quotes and
    backticks around it aside (``The ? Operator`` has ``?``; ``What Is Ownership?`` has not)."""
    return any(token == symbol or token.strip(_QUOTES) == symbol for token in title.split())
