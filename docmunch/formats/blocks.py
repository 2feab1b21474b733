"""Blocks: the addressable units of an original (paragraph, table row, PDF line group, …).

A renderer records one :class:`Block` per unit of its source, tying a byte range of the
Markdown rendition to positions in the original. Blocks are the lowest record of
``formats/``: :mod:`docmunch.formats.locators` builds section locators from them and
:mod:`docmunch.formats.base` carries them in a :class:`~docmunch.formats.base.Rendition`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Block"]


@dataclass(frozen=True, slots=True)
class Block:
    """One addressable unit of the original (paragraph, table row, list item, PDF line group)."""

    md_start: int
    """UTF-8 byte offset in the rendition where the block's Markdown starts (inclusive)."""
    md_end: int
    """UTF-8 byte offset in the rendition where it ends (exclusive); equal to ``md_start`` for
    a unit kept out of the text (PDF page furniture), which sits where it was on the page."""
    kind: str
    """``"paragraph"``, ``"heading"``, ``"table_row"``, ``"list_item"``, ``"lines"``,
    ``"furniture"``, …"""
    text: str
    """Visible text of the block (whitespace-normalised), used for fingerprints and tests."""
    positions: tuple[dict[str, Any], ...]
    """Source positions, e.g. ``{"type": "paraid", ...}`` or ``{"type": "bbox", ...}``."""
