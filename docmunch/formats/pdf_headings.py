"""Where a PDF's headings are: outline entries, tagged structure, or type (size, weight, numbering).

Strongest evidence first (each used only when the ones before found fewer than two headings):

1. The outline (bookmarks): each entry is matched to the line(s) showing its title near its
   destination (:mod:`docmunch.formats.pdf_outline`); level = outline depth + 1 (capped at 6).
   An entry whose title is not found on its page becomes a heading line of its own (with no
   block) at the destination.
2. Tagged structure: lines whose characters all belong to ``H1``–``H6``/``H``/``Title``
   structure elements (:mod:`docmunch.formats.pdf_tags`); consecutive lines of one heading
   form one heading.
3. Inferred from type, in two tiers. **Tier 1**: a group of at most two lines whose font is
   ≥ 1 pt larger than the body size (most common size by characters) weighs 2, bold (or a bold
   number before text in a font without bold) 1, a numbering pattern 1; weight ≥ 2 including
   size or bold qualifies. **Tier 2**, only when tier 1 leaves a section longer than
   :data:`READABLE_SECTION_CHARS`: any group of at most two lines that is all bold qualifies
   too (reports and registers set subheadings in bold at body size or smaller: "Background",
   "(a) Comments Due Date"). Vetoes for every candidate: no letters, longer than 60 characters,
   ends like a sentence, a caption, a continuation mark (``ESTIMATED COSTS—Continued``: a
   caption or heading repeated on the next page; :mod:`docmunch.formats.heading_rules`); a tier is dropped
   when, with it, candidates would exceed 60 % of the groups or 40 % of the characters (an
   all-bold document). Levels rank the candidates' looks — rounded size, then bold — larger
   first, so a tier-2 look equal to a tier-1 look shares its level.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from docmunch.formats.heading_rules import MAX_CHAR_SHARE, MAX_PARA_SHARE, is_numbered, vetoed_text
from docmunch.formats.markdown_writer import normalize_ws
from docmunch.formats.pdf_layout import Box, Group, Line
from docmunch.formats.pdf_outline import OutlineEntry, match_entry

__all__ = ["READABLE_SECTION_CHARS", "PdfPage", "apply_outline", "apply_tags", "infer_headings"]

READABLE_SECTION_CHARS = 8000
"""Tier 2 of heading inference starts when a section would hold more text than this, in
characters (about 2,000 tokens: more than an agent should read to find one answer)."""
_MAX_GROUP_LINES = 2
_LARGER_BY = 1.0
"""Points a font must exceed the body size by to count as larger."""


@dataclass(slots=True)
class PdfPage:
    """One page on its way to Markdown."""

    index: int
    """0-based page index."""
    label: str | None
    """The page label (``/PageLabels``), if any."""
    lines: list[Line]
    """Line segments in reading order, page furniture removed."""
    box: Box
    """Media box, PDF points."""
    tags: dict[int, int]
    """Tagged-PDF MCID → heading level."""
    heading_spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    """First line index → (end index, level)."""
    synthetic: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    """Line index → headings to emit before it: (level, title)."""
    furniture: list[tuple[Line, str]] = field(default_factory=list)
    """Furniture lines taken out of :attr:`lines`, with their role."""
    groups: list[tuple[Group, int | None]] | None = None
    """Line groups with their heading level (``None`` = body)."""


def apply_outline(outline: list[OutlineEntry], pages: list[PdfPage]) -> int:
    """Mark outline titles on their pages (rule 1); returns how many entries matched text."""
    matched = 0
    taken: dict[int, set[int]] = {p.index: set() for p in pages}
    for entry in outline:
        level = min(entry.level + 1, 6)
        candidates = [pages[entry.page]] if entry.page is not None and entry.page < len(pages) else pages
        for page in candidates:
            span = match_entry(entry, page.lines, taken[page.index])
            if span is None:
                continue
            first, end = span
            page.heading_spans[first] = (end, level)
            taken[page.index].update(range(first, end))
            matched += 1
            break
        else:
            if entry.page is not None and entry.page < len(pages) and entry.title:
                page = pages[entry.page]
                at = _line_at_y(page.lines, entry.y)
                page.synthetic.setdefault(at, []).append((level, entry.title))
    return matched


def apply_tags(pages: list[PdfPage]) -> int:
    """Mark lines whose characters all belong to tagged headings (rule 2); returns how many."""
    found = 0
    for page in pages:
        i = 0
        while i < len(page.lines):
            level = _tag_level(page, i)
            if level is None or any(i in range(f, e) for f, (e, _) in page.heading_spans.items()):
                i += 1
                continue
            end = i + 1
            while end < len(page.lines) and end not in page.heading_spans and _tag_level(page, end) == level:
                end += 1
            page.heading_spans[i] = (end, level)
            found += 1
            i = end
    return found


def _tag_level(page: PdfPage, i: int) -> int | None:
    mcids = page.lines[i].mcids
    if not mcids or not page.tags or any(m not in page.tags for m in mcids):
        return None
    return min(page.tags[m] for m in mcids)


def _line_at_y(lines: list[Line], y: float | None) -> int:
    if y is None:
        return 0
    for i, line in enumerate(lines):
        if line.box[3] <= y + 1:
            return i
    return len(lines)


_Slot = tuple[int, int]  # (page index, group index)


def infer_headings(pages: list[PdfPage]) -> int:
    """Assign levels to type-distinguished groups (rule 3); returns how many became headings."""
    body_groups = [
        (page.index, i, g) for page in pages for i, (g, lvl) in enumerate(page.groups or []) if lvl is None
    ]
    sizes: Counter[float] = Counter()
    for _p, _i, group in body_groups:
        for line in group.lines:
            sizes[line.size] += len(line.text)
    if not sizes:
        return 0
    body = sizes.most_common(1)[0][0]
    tier1: dict[_Slot, tuple[float, bool]] = {}
    tier2: dict[_Slot, tuple[float, bool]] = {}
    for p, i, group in body_groups:
        text = normalize_ws(group.text)
        if len(group.lines) > _MAX_GROUP_LINES or vetoed_text(text):
            continue
        numbered = is_numbered(text)
        larger = group.size >= body + _LARGER_BY
        bold = group.bold or (numbered and group.lines[0].bold_prefix)
        look = (round(group.size * 2) / 2, bold)
        if 2 * larger + bold + numbered >= 2 and (larger or bold):
            tier1[(p, i)] = look
        elif group.bold:
            tier2[(p, i)] = look
    total_chars = sum(len(g.text) for _p, _i, g in body_groups) or 1
    chosen: dict[_Slot, tuple[float, bool]] = {}
    if _acceptable(tier1, pages, len(body_groups), total_chars):
        chosen.update(tier1)
    if tier2 and _longest_section(pages, chosen) > READABLE_SECTION_CHARS:
        both = {**chosen, **tier2}
        if _acceptable(both, pages, len(body_groups), total_chars):
            chosen = both
    looks = sorted(set(chosen.values()), key=lambda look: (-look[0], not look[1]))
    rank = {look: min(n + 1, 6) for n, look in enumerate(looks)}
    for (p, i), look in chosen.items():
        groups = pages[p].groups
        assert groups is not None
        groups[i] = (groups[i][0], rank[look])
    return len(chosen)


def _acceptable(candidates: dict[_Slot, Any], pages: list[PdfPage], groups: int, chars: int) -> bool:
    """The share vetoes: not more than 60 % of the groups nor 40 % of the characters."""
    cand_chars = sum(len(_group(pages, slot).text) for slot in candidates)
    return len(candidates) <= MAX_PARA_SHARE * groups and cand_chars <= MAX_CHAR_SHARE * chars


def _group(pages: list[PdfPage], slot: _Slot) -> Group:
    groups = pages[slot[0]].groups
    assert groups is not None
    return groups[slot[1]][0]


def _longest_section(pages: list[PdfPage], extra: dict[_Slot, Any]) -> int:
    """Characters of the longest run of body text between headings (existing or in ``extra``)."""
    longest = run = 0
    for page in pages:
        for i, (group, level) in enumerate(page.groups or []):
            if level is not None or (page.index, i) in extra:
                longest, run = max(longest, run), 0
            else:
                run += len(group.text) + 2
    return max(longest, run)
