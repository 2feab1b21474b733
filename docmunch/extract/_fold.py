"""Case-insensitive patterns that test ASCII text (class names, ids, short labels) fast.

Python's ``re`` with ``IGNORECASE`` tries the case variants of every literal at every position:
Readability's ``unlikelyCandidates`` alternation (30 words) takes about 13 µs on a 30-character
``class + " " + id`` string. Lower-casing ASCII text and matching a case-sensitive compile of
the same lower-case pattern gives the same answer 4–5× faster (measured on the class strings of
the 330 ``articles-dev`` pages). Text with any non-ASCII character takes the ``IGNORECASE``
compile, so every answer equals ``re.compile(pattern, re.IGNORECASE)``'s.

That equality needs two things of the pattern, both checked when it is built (``ValueError``):
no upper-case ASCII letter outside an escape (``\\S``, ``\\W`` and ``\\b`` are fine), and no
non-ASCII character that ``IGNORECASE`` equates with an ASCII letter (``ſ`` matches ``s``,
the Kelvin sign matches ``k``): lower-cased ASCII text could not match those.
"""

from __future__ import annotations

import re
import string

__all__ = ["FoldedPattern"]

_ESCAPE = re.compile(r"\\.", re.DOTALL)


class FoldedPattern:
    """A pattern matched case-insensitively; :meth:`found_in` and :meth:`starts` answer ``bool``
    (named unlike ``re``'s methods, which return a match object or ``None``)."""

    __slots__ = ("_folded", "_full", "pattern")

    def __init__(self, pattern: str) -> None:
        """``pattern``: a regular expression written in lower case (see the module docstring).

        Raises ``ValueError`` when it has an upper-case ASCII letter outside an escape, or a
        non-ASCII character that matches an ASCII letter case-insensitively.
        """
        bare = _ESCAPE.sub("", pattern)
        if any(c in string.ascii_uppercase for c in bare):
            raise ValueError(f"pattern must be lower case: {pattern!r}")
        for char in {c for c in bare if not c.isascii()}:
            if any(re.fullmatch(re.escape(char), a, re.IGNORECASE) for a in string.ascii_letters):
                raise ValueError(f"{char!r} matches an ASCII letter case-insensitively: {pattern!r}")
        self.pattern = pattern
        """The source pattern."""
        self._folded = re.compile(pattern)
        self._full = re.compile(pattern, re.IGNORECASE)

    def found_in(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (``re.search``, ignoring case)."""
        if text.isascii():
            return self._folded.search(text.lower()) is not None
        return self._full.search(text) is not None

    def starts(self, text: str) -> bool:
        """Whether the pattern matches at the start of ``text`` (``re.match``, ignoring case)."""
        if text.isascii():
            return self._folded.match(text.lower()) is not None
        return self._full.match(text) is not None

    def __repr__(self) -> str:
        return f"FoldedPattern({self.pattern!r})"
