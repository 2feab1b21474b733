"""Text preparation for the full-text index and for user queries.

The FTS5 table uses ``unicode61``, which splits on anything that is not a letter, digit or
mark, and keeps a run of CJK characters as a single token. :func:`fts_text` puts a space
around every CJK character so each one is a token; :func:`match_expression` turns a user
string into a safe FTS5 expression in which a CJK run becomes a phrase of those
single-character tokens (so ``调度器`` matches the three characters in a row, and a two- or
one-character query works too — the trigram tokenizer needs at least three characters).

User strings never reach FTS5 as syntax: the query is split into word tokens here and every
token is written as a double-quoted FTS5 string, so ``"``, ``*``, ``AND``, ``NEAR(``, ``-``,
``:`` and ``^`` are plain text (and dropped when they are punctuation).
"""

from __future__ import annotations

import re

__all__ = ["fts_text", "match_expression", "query_terms"]

# Han (CJK unified + ext. A + compatibility), Hiragana, Katakana, Hangul syllables, CJK symbols
# are NOT included (they are punctuation to unicode61 anyway).
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_CHAR = re.compile(f"([{_CJK_CLASS}])")
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
# A query token: a run of word characters (Unicode letters, digits, underscore, marks).
_WORD = re.compile(r"\w+")


def fts_text(text: str) -> str:
    """``text`` with a space around each CJK character (other text unchanged)."""
    if not _CJK_RUN.search(text):
        return text
    return _CJK_CHAR.sub(r" \1 ", text)


def query_terms(query: str) -> list[str]:
    """The search terms of a user string: word runs, with CJK runs kept whole.

    ``"kubectl drain --force"`` → ``["kubectl", "drain", "force"]``; ``"调度器 Pod"`` →
    ``["调度器", "Pod"]``. Underscores are kept inside words (unicode61 splits them later).
    """
    terms: list[str] = []
    for word in _WORD.findall(query):
        # Split mixed runs like "Pod调度" into "Pod" and "调度".
        pos = 0
        for m in _CJK_RUN.finditer(word):
            if m.start() > pos:
                terms.append(word[pos : m.start()])
            terms.append(m.group())
            pos = m.end()
        if pos < len(word):
            terms.append(word[pos:])
    return [t for t in (t.strip("_") for t in terms) if t]


def _quoted(term: str) -> str:
    phrase = " ".join(term) if _CJK_RUN.fullmatch(term) else term
    return '"' + phrase.replace('"', '""') + '"'


def match_expression(query: str, *, any_term: bool = False) -> str | None:
    """A safe FTS5 MATCH expression for ``query``; ``None`` when it has no searchable term.

    Args:
        query: any user string.
        any_term: join terms with ``OR`` instead of the implicit ``AND``.
    """
    terms = query_terms(query)
    if not terms:
        return None
    unique: dict[str, str] = {}
    for term in terms:
        unique.setdefault(term.lower(), term)
    joiner = " OR " if any_term else " "
    return joiner.join(_quoted(t) for t in unique.values())
