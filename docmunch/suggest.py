"""Did-you-mean suggestions for a mistyped name (an option, a repo).

A leaf module (it imports nothing of docmunch) so :mod:`docmunch.errors` and the CLI share it.
Matching: a candidate is suggested when it equals the typed text up to case and surrounding
whitespace, starts with it, or is within :data:`MAX_EDIT_DISTANCE` edits of it (Levenshtein
distance, Wagner–Fischer dynamic programming) — at most half the candidate's length, so a
two-letter name is not "near" every other two-letter word.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MAX_EDIT_DISTANCE", "MAX_SUGGESTIONS", "edit_distance", "near_matches"]

MAX_EDIT_DISTANCE = 2
"""Most single-character edits (insert, delete, substitute) between a typo and a suggestion."""

MAX_SUGGESTIONS = 3
"""Most names one did-you-mean lists."""


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance between ``a`` and ``b`` in characters (Wagner & Fischer 1974)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def near_matches(text: str, candidates: Iterable[str], *, strip: str = "") -> list[str]:
    """The candidates ``text`` most likely meant, best first, at most :data:`MAX_SUGGESTIONS`.

    Args:
        text: what was typed.
        candidates: the valid names.
        strip: leading characters ignored when measuring (``"-"`` for options), so ``--limt``
            is compared as ``limt``; a typed text empty after stripping matches nothing.

    Returns:
        Exact matches up to case/whitespace first, then names ``text`` is a prefix of, then names
        by edit distance (ties in the candidates' order); ``text`` itself is never suggested.
    """
    typed = text.strip().casefold().lstrip(strip)
    if not typed:
        return []
    ranked: list[tuple[int, int, str]] = []
    for order, name in enumerate(dict.fromkeys(candidates)):
        if name == text:
            continue
        core = name.casefold().lstrip(strip)
        if core == typed:
            ranked.append((0, order, name))
        elif core.startswith(typed):
            ranked.append((1, order, name))
        else:
            distance = edit_distance(typed, core)
            if distance <= min(MAX_EDIT_DISTANCE, len(core) // 2):
                ranked.append((1 + distance, order, name))
    return [name for *_key, name in sorted(ranked)[:MAX_SUGGESTIONS]]
