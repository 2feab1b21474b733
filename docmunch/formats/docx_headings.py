"""Heading detection for DOCX paragraphs, strongest evidence first.

Strong evidence (any one makes a heading; first match wins):

1. The paragraph's own outline level, ``w:pPr/w:outlineLvl`` 0–8 (ECMA-376 Part 1 §17.3.1.20;
   9 = body text). Level = value + 1, capped at 6 (Markdown has six ATX levels, CommonMark
   0.31 §4.2).
2. The outline level of its paragraph style, following ``w:basedOn`` (§17.7.4.3). Word's
   built-in "heading 1–9" styles carry ``w:outlineLvl`` 0–8.
3. The style's name or id: ``heading N`` / ``Heading N`` / ``HeadingN`` / ``标题 N`` (Word
   stores built-in style names in English and localises only the UI; WPS and LibreOffice keep
   the same names; Chinese Word may write ids like ``1``/``2`` with name ``heading 1``).
   The ``Title`` style counts as level 1.

When fewer than two paragraphs have strong evidence, headings written in the Normal style are
inferred from formatting (the habit of authors who never use heading styles; cf. the
"heuristic heading detection" of docling's and pandoc's Word readers, designed here anew):

* Signals (patterns in :mod:`docmunch.formats.heading_rules`): font size above the body
  size (body = the most common size weighted by character count) by ≥ 0.5 pt — weight 2;
  the whole paragraph bold — 1; a numbering pattern (``第X章``, ``一、``, ``（一）``,
  ``1.``, ``1.2.3``, ``3 Title``, ``附录A``) — 1; centred — 1.
  A paragraph qualifies with weight ≥ 2 that includes a larger size or bold.
* Vetoes: table cells; captions (``图1``, ``表 2``, ``Table 2``, ``Figure 3``); continuation
  marks (``Results (continued)``, ``ESTIMATED COSTS—Continued``); sentence-like
  text (ends with ``。．.;；:：,，!?！？`` or is longer than 60 characters); and the whole
  inference when candidates would cover more than 60 % of the non-empty paragraphs or 40 % of
  the characters (a document written all in bold/large type has no visible hierarchy).
* Levels: distinct (size, bold) looks of the candidates, largest first, get levels 1, 2, …
  (capped at 6); strong headings keep their own levels.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from docmunch.formats.heading_rules import MAX_CHAR_SHARE, MAX_PARA_SHARE, is_numbered, vetoed_text

__all__ = ["ParaFacts", "assign_levels", "body_size"]

_HEADING_NAME = re.compile(r"^(?:heading|标题)\s*([1-9])$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ParaFacts:
    """What heading detection needs to know about one paragraph."""

    text: str
    """Visible text, whitespace-normalised."""
    style_id: str | None
    style_name: str
    para_outline: int | None
    """Direct ``w:outlineLvl`` (0–9) on the paragraph."""
    style_outline: int | None
    """``w:outlineLvl`` inherited from the style chain."""
    size_pt: float | None
    """Dominant font size by characters, in points."""
    bold: bool
    """Every non-space character is bold."""
    centred: bool
    in_table: bool


def body_size(paras: Sequence[ParaFacts]) -> float | None:
    """The most common font size (points) weighted by character count, ``None`` if no text."""
    counts: Counter[float] = Counter()
    for p in paras:
        if p.size_pt is not None and p.text:
            counts[p.size_pt] += len(p.text)
    return counts.most_common(1)[0][0] if counts else None


def _strong_level(p: ParaFacts) -> int | None:
    for outline in (p.para_outline, p.style_outline):
        if outline is not None and 0 <= outline <= 8:
            return min(outline + 1, 6)
        if outline == 9:
            return None  # explicitly body text
    for candidate in (p.style_name, p.style_id or ""):
        match = _HEADING_NAME.match(candidate.strip())
        if match:
            return min(int(match.group(1)), 6)
        if candidate.strip().lower() == "title":
            return 1
    return None


def _vetoed(p: ParaFacts) -> bool:
    return p.in_table or vetoed_text(p.text)


def _inferred_candidates(paras: Sequence[ParaFacts], body: float | None) -> dict[int, tuple[float, bool]]:
    out: dict[int, tuple[float, bool]] = {}
    for i, p in enumerate(paras):
        if _vetoed(p):
            continue
        larger = body is not None and p.size_pt is not None and p.size_pt >= body + 0.5
        weight = 2 * larger + p.bold + is_numbered(p.text) + p.centred
        if weight >= 2 and (larger or p.bold):
            out[i] = (p.size_pt or 0.0, p.bold)
    nonempty = [p for p in paras if p.text and not p.in_table]
    total_chars = sum(len(p.text) for p in nonempty) or 1
    cand_chars = sum(len(paras[i].text) for i in out)
    if len(out) > MAX_PARA_SHARE * len(nonempty) or cand_chars > MAX_CHAR_SHARE * total_chars:
        return {}
    return out


def assign_levels(paras: Sequence[ParaFacts]) -> list[int | None]:
    """Heading level 1–6 per paragraph, or ``None`` for body text (see module docstring)."""
    levels: list[int | None] = [None if p.in_table or not p.text else _strong_level(p) for p in paras]
    if sum(level is not None for level in levels) >= 2:
        return levels
    candidates = _inferred_candidates(
        [p if levels[i] is None else _as_body(p) for i, p in enumerate(paras)], body_size(paras)
    )
    looks = sorted(set(candidates.values()), key=lambda look: (-look[0], not look[1]))
    rank = {look: min(i + 1, 6) for i, look in enumerate(looks)}
    for i, look in candidates.items():
        levels[i] = rank[look]
    return levels


def _as_body(p: ParaFacts) -> ParaFacts:
    """A strong heading excluded from inference (kept as its own level by the caller)."""
    return ParaFacts("", p.style_id, p.style_name, None, None, p.size_pt, False, False, True)
