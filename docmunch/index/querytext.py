"""What a query string becomes before analysis: valid Unicode, half-width Latin, no invisible
characters.

Agents and people paste queries from anywhere, and a Chinese input method types Latin letters
and digits in their full-width forms (``Ｐｏｄ``, ``ｋｕｂｅｃｔｌ ｄｒａｉｎ``): as written
they are other characters than the docs' ``Pod``, so the word matched nothing. Four
normalisations, in order:

1. **Lone surrogates** (``\\udcff``: bytes that were not UTF-8, kept by Python's
   ``surrogateescape``) become U+FFFD, so SQLite, which takes UTF-8 only, can bind the text.
2. **Width folding**: the full-width forms of ASCII letters and digits (U+FF10–U+FF19,
   U+FF21–U+FF3A, U+FF41–U+FF5A) become ASCII and the ideographic space (U+3000) a space —
   what Unicode's compatibility decomposition (NFKC) and Lucene's ``CJKWidthFilter``
   (Elasticsearch's ``cjk_width`` token filter) do for them. Full-width punctuation is left as
   it is: it is Chinese punctuation (``，``, ``：``, ``？``, ``（``), and folded to ASCII it
   joined the words of a Chinese sentence into one code identifier (``失败时,pod``) for the
   verbatim check (:func:`docmunch.index.identifiers.identifiers` ends pieces at it).
3. **Connectors between Latin letters or digits**: the full-width hyphen, low line, full stop
   and solidus (U+FF0D, U+FF3F, U+FF0E, U+FF0F) and the Unicode hyphen and non-breaking hyphen
   (U+2010, U+2011, which web pages put in names so they do not wrap: ``kube‑system``) become
   ``-``, ``_``, ``.``, ``/`` when a letter or digit of ASCII stands on both sides, so
   ``ｋｕｂｅ－ｓｙｓｔｅｍ`` is the identifier ``kube-system`` again. Beside a Chinese
   character they stay punctuation.
4. **Invisible format characters** are removed: zero-width space, non-joiner and joiner
   (U+200B–U+200D), word joiner (U+2060), the byte-order mark / zero-width no-break space
   (U+FEFF) and the soft hyphen (U+00AD) — pasted from web pages, they split a word in two
   (``dra\\u200bin`` searched as ``dra`` and ``in``).

A query is also **bounded** (:data:`QUERY_MAX_CHARS`): only its first 65,536 characters are
searched, cut at the last whitespace before the limit (a pasted log of megabytes cost seconds
of analysis and blocked the requests behind it: 1.7 MB of 200k distinct words took 4.8 s in
the server; 65,536 characters take about 0.2 s). Search answers say when it was cut
(:func:`query_cut`).

Only queries are normalised. Indexed text is not: none of the four bench corpora holds a
full-width Latin letter or one of those format characters, and folding stored terms would
change the analysis of existing indexes (a schema change and a term rebuild) for no measured
gain. (A doc that did write ``Ｐｏｄ`` keeps it as its own term, ``ｐｏｄ``, which neither
``Pod`` nor, once folded, ``Ｐｏｄ`` matches; ``docs/search.md`` round 16.)
"""

from __future__ import annotations

import re

from docmunch.limits import Limit

__all__ = ["FORMAT_CHARACTERS", "QUERY_MAX_CHARS", "query_cut", "query_text", "unicode_text"]

QUERY_MAX_CHARS = Limit("QUERY_MAX_CHARS", 65_536, "characters")
"""Characters of a query that are searched (module doc); raise with ``DOCMUNCH_QUERY_MAX_CHARS``."""

FORMAT_CHARACTERS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
"""Invisible characters removed from queries (soft hyphen, zero-width space / non-joiner /
joiner, word joiner, zero-width no-break space)."""

_ALNUM_BLOCKS = ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
_WIDTH = {code: code - 0xFEE0 for first, last in _ALNUM_BLOCKS for code in range(first, last + 1)}
_FOLDED = {**_WIDTH, 0x3000: 0x20, **dict.fromkeys(map(ord, FORMAT_CHARACTERS))}
_CONNECTORS = {"\u2010": "-", "\u2011": "-", "\uff0d": "-", "\uff3f": "_", "\uff0e": ".", "\uff0f": "/"}
_CONNECTOR = re.compile(f"(?<=[A-Za-z0-9])[{''.join(_CONNECTORS)}](?=[A-Za-z0-9])")
_NEEDS_FOLDING = re.compile(
    f"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u3000{FORMAT_CHARACTERS}{''.join(_CONNECTORS)}]"
)


def unicode_text(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate replaced by U+FFFD; valid text is returned
    as it is (step 1 of the module doc: for paths and globs as well as queries)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def query_cut(text: str) -> int | None:
    """The number of characters of ``text`` that are searched when it is longer than
    :data:`QUERY_MAX_CHARS` (cut at its last whitespace before the limit, else at the limit),
    ``None`` when it is searched whole.

    Raises:
        ConfigError: ``DOCMUNCH_QUERY_MAX_CHARS`` is set but is not a positive integer.
    """
    limit = QUERY_MAX_CHARS.value()
    if len(text) <= limit:
        return None
    space = max(text.rfind(" ", 0, limit + 1), text.rfind("\n", 0, limit + 1))
    return space if space > 0 else limit


def query_text(text: str) -> str:
    """A query as it is analysed: its first :data:`QUERY_MAX_CHARS` characters
    (:func:`query_cut`), :func:`unicode_text`, full-width letters and digits and the
    ideographic space folded to ASCII, connectors between ASCII letters or digits folded,
    :data:`FORMAT_CHARACTERS` removed (module doc). Short ASCII text
    is returned as it is.

    Raises:
        ConfigError: ``DOCMUNCH_QUERY_MAX_CHARS`` is set but is not a positive integer.
    """
    cut = query_cut(text)
    if cut is not None:
        text = text[:cut]
    if text.isascii():
        return text
    text = unicode_text(text)
    if _NEEDS_FOLDING.search(text) is None:
        return text
    text = text.translate(_FOLDED)
    return _CONNECTOR.sub(lambda match: _CONNECTORS[match.group()], text)
