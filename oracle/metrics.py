"""Extraction-quality metrics (design brief §8), on word tokens.

Tokens are Unicode ``\\w+`` runs of the NFC-normalised text, casefolded, except that every CJK
ideograph, kana or hangul character is a token of its own (those scripts do not put spaces
between words, so a whole sentence would otherwise be one token).

All functions are pure; token lists are order-preserving, multisets are
:class:`collections.Counter`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

__all__ = [
    "PRF",
    "code_block_exact_share",
    "heading_recall",
    "noise_residue",
    "normalize_title",
    "prf",
    "title_match",
    "token_similarity",
    "tokens",
]

_CJK = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u3130-\u318f"  # Hangul Compatibility Jamo
    "\u31f0-\u31ff"  # Katakana Phonetic Extensions
    "\u3400-\u4dbf"  # CJK Unified Ideographs Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uac00-\ud7af"  # Hangul Syllables
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\uff66-\uff9f"  # Halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK Unified Ideographs Extensions B-H, Compatibility Supplement
)
_TOKEN = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")
_SPACE = re.compile(r"\s+")


def tokens(text: str) -> list[str]:
    """Word tokens of ``text`` in order: NFC, then ``\\w+`` runs casefolded; each CJK character alone.

    ``tokens("Hello, World! 日本語") == ["hello", "world", "日", "本", "語"]``.
    """
    return [m.group().casefold() for m in _TOKEN.finditer(unicodedata.normalize("NFC", text))]


def normalize_title(title: str | None) -> str:
    """Title as compared: NFC, every whitespace run collapsed to one space, trimmed (``None`` → ``""``)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", title or "")).strip()


def title_match(ours: str | None, reference: str | None) -> bool:
    """True when both titles are equal after :func:`normalize_title` (exact, case-sensitive)."""
    return normalize_title(ours) == normalize_title(reference)


def token_similarity(ours: Sequence[str], reference: Sequence[str]) -> float:
    """Order-sensitive similarity in [0, 1]: rapidfuzz ``Indel.normalized_similarity`` on token lists.

    Indel similarity = 1 - (insertions + deletions) / (len(ours) + len(reference)), i.e.
    2·LCS / (len(ours) + len(reference)). Two empty lists score 1.0.
    """
    if not ours and not reference:
        return 1.0
    return float(Indel.normalized_similarity(list(ours), list(reference)))


def noise_residue(ours: Iterable[str], reference: Iterable[str]) -> float:
    """Share of our tokens (multiset) that the reference lacks, in [0, 1]; 0.0 when we have no tokens.

    A token we have 3 times and the reference once counts 2 of our tokens as noise.
    """
    have, ref = Counter(ours), Counter(reference)
    total = sum(have.values())
    if total == 0:
        return 0.0
    return sum((have - ref).values()) / total


@dataclass(frozen=True, slots=True)
class PRF:
    """Multiset token precision, recall and F1, each in [0, 1]."""

    precision: float
    """Overlap / our token count (1.0 when we have none and neither has the reference)."""
    recall: float
    """Overlap / reference token count (1.0 when the reference is empty)."""
    f1: float
    """Harmonic mean of precision and recall (0.0 when both are 0)."""


def prf(ours: Iterable[str], reference: Iterable[str]) -> PRF:
    """Multiset precision/recall/F1 of our tokens against the reference tokens (bag of words)."""
    have, ref = Counter(ours), Counter(reference)
    n_have, n_ref = sum(have.values()), sum(ref.values())
    overlap = sum((have & ref).values())
    precision = overlap / n_have if n_have else (1.0 if n_ref == 0 else 0.0)
    recall = overlap / n_ref if n_ref else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def _heading_key(level: int, text: str) -> tuple[int, str]:
    return (int(level), " ".join(tokens(text)))


def heading_recall(ours: Iterable[tuple[int, str]], truth: Iterable[tuple[int, str]]) -> float | None:
    """Share of the truth's headings (multiset of ``(level, text)``) we reproduced with the same level.

    Texts are compared by their token lists (so a trailing ``¶`` anchor or spacing does not
    matter, but a changed word or level does). ``None`` when the truth has no headings.
    """
    want = Counter(_heading_key(level, text) for level, text in truth)
    if not want:
        return None
    have = Counter(_heading_key(level, text) for level, text in ours)
    return sum((want & have).values()) / sum(want.values())


def code_block_exact_share(ours: Iterable[str], truth: Iterable[str]) -> float | None:
    """Share of the truth's code blocks (multiset) found verbatim among ours.

    Byte-exact up to trailing newlines (the truth stores ``<pre>`` text without its final
    newline). ``None`` when the truth has no code blocks.
    """
    want = Counter(block.rstrip("\n") for block in truth)
    if not want:
        return None
    have = Counter(block.rstrip("\n") for block in ours)
    return sum((want & have).values()) / sum(want.values())


def chrome_leaks(text: str, chrome: Iterable[str]) -> tuple[str, ...]:
    """The ``chrome`` strings (page furniture: nav labels, footers) that occur in ``text``.

    Both sides are compared with whitespace runs collapsed to one space, so a line break from
    a block boundary does not hide a leak.
    """
    flat = " ".join(text.split())
    return tuple(sample for sample in chrome if " ".join(sample.split()) and " ".join(sample.split()) in flat)
