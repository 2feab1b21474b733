"""GitHub-compatible heading slugs, their de-duplication and explicit ``{#id}`` attributes.

The slug algorithm follows the one GitHub uses for heading anchors, as documented by the
``github-slugger`` npm package (design only, no code copied): lower-case the heading's text,
keep Unicode letters, marks and digits (categories ``L*``, ``M*``, ``N*``), connector
punctuation (``_``, category ``Pc``) and ``-``, turn each space into ``-`` (runs are *not*
collapsed: ``"a  b"`` → ``"a--b"``) and drop every other character (punctuation, symbols,
emoji, control characters). CJK ideographs are letters, so Chinese headings keep their text.

De-duplication (also github-slugger's rule): every slug handed out is remembered; a slug
already taken gets the smallest suffix ``-N`` (N = 1, 2, …) counted per base slug that is not
taken either, and the result is remembered too. So ``a``, ``a``, ``a-1`` give ``a``, ``a-1``,
``a-1-1``: a suffixed slug never collides with a later natural one, nor the other way round.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["Slugger", "slugify", "split_explicit_id"]

# A trailing attribute block ``{#id}`` or ``{#id .class key=val}`` (Pandoc / kramdown /
# Hugo / mdBook heading attributes). The braces must not be doubled, so the Hugo shortcode
# ``{{< x >}}`` and mdBook's ``{{#include x}}`` never match.
_EXPLICIT_ID_RE = re.compile(r"(?<!\{)[ \t]*\{[ \t]*#([^\s{}#]+)(?:[ \t]+[^{}]*)?\}[ \t]*\Z")


@lru_cache(maxsize=4096)
def slugify(text: str) -> str:
    """GitHub-style slug of a heading's plain text.

    Args:
        text: the heading's plain text (no Markdown markup).

    Returns:
        The slug (may be empty when the text has no letter, digit, ``_``, ``-`` or space).
    """
    out: list[str] = []
    for ch in text.lower():
        if ch == " " or ch == "-":
            out.append("-")
        elif ch.isalnum() or ch == "_":
            out.append(ch)
        else:
            category = unicodedata.category(ch)
            if category[0] in "LMN" or category == "Pc":
                out.append(ch)
    return "".join(out)


def split_explicit_id(source: str) -> tuple[str, str | None]:
    """Split a trailing ``{#id ...}`` attribute block off a heading's inline source.

    Args:
        source: the heading's inline Markdown source (markdown-it's ``inline`` token content).

    Returns:
        ``(source_without_attributes, id)``; ``id`` is ``None`` (and the source unchanged)
        when the heading carries no explicit id.
    """
    match = _EXPLICIT_ID_RE.search(source)
    if match is None:
        return source, None
    return source[: match.start()].rstrip(), match.group(1)


class Slugger:
    """Hands out unique slugs within one document (github-slugger's de-duplication rule)."""

    __slots__ = ("_counts", "_taken")

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._counts: dict[str, int] = {}

    def unique(self, base: str) -> str:
        """Return ``base`` if unused, else ``base-N`` with the smallest free N ≥ 1; reserve it.

        Args:
            base: a natural slug, an explicit id or a fallback slug.

        Returns:
            A slug not returned before by this slugger.
        """
        slug = base
        if slug in self._taken:
            n = self._counts.get(base, 0)
            while True:
                n += 1
                slug = f"{base}-{n}"
                if slug not in self._taken:
                    break
            self._counts[base] = n
        self._taken.add(slug)
        return slug
