"""PDF text repair: ligatures, private-use symbol glyphs, unmapped glyphs, line-end hyphens.

pdfium maps glyphs to Unicode through the font's ``/ToUnicode`` CMap, else its encoding and
glyph names (PDF 32000-1:2008 §9.10). What it cannot map is handled here, and counted in a
:class:`GlyphReport` that the rendition's ``meta["glyphs"]`` carries:

* **Ligatures** U+FB00–FB06 (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) become their letters (Unicode NFKC), so "proﬁle"
  is found as "profile". (pdfium already splits most; this catches the rest.)
* **Private-use symbol glyphs**: Word's Symbol and Wingdings fonts draw with code points
  U+F020–F0FF (0xF000 + the font's own code). For a font named like Symbol the code is read
  through the Adobe Symbol encoding (PDF 32000-1 Annex D.5; 0xB7 = • bullet), for Wingdings a
  small table of its list bullets; other private-use glyphs of those fonts are dropped and
  counted (``private_use_dropped``); private-use characters of other fonts are kept (CJK
  fonts use them for real characters) and counted (``private_use_kept``).
* **Unmapped glyphs** (pdfium's ``FPDFText_HasUnicodeMapError``: no ``/ToUnicode`` entry and
  no known glyph name) carry no text: dropped and counted (``unmapped``); so are NUL and the
  other C0 controls, U+FFFD and U+FFFF.
* **Line-end hyphens**: pdfium marks a hyphen that ends a line (U+0002, U+FFFE in its text);
  it becomes :data:`SOFT_HYPHEN` and :class:`Dehyphenator` decides, once the whole document's
  words are known, between joining (``experi-`` + ``ence`` → "experience") and keeping the
  hyphen ("non-normal"): the form used elsewhere in the document wins; with no evidence, a
  break between lower-case letters is joined and any other (``FAA-`` + ``approved``, e-mail
  addresses, URLs) keeps its hyphen.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["SOFT_HYPHEN", "Dehyphenator", "GlyphReport", "repair_char"]

SOFT_HYPHEN = "\u00ad"
"""Stands for a line-end hyphen until :class:`Dehyphenator` resolves it."""

# Adobe Symbol encoding (PDF 32000-1:2008 Annex D.5), codes 0x20–0xFE that differ from ASCII.
SYMBOL_ENCODING: Mapping[int, str] = {
    0x22: "∀", 0x24: "∃", 0x27: "∋", 0x2A: "∗", 0x2D: "−", 0x40: "≅",
    0x41: "Α", 0x42: "Β", 0x43: "Χ", 0x44: "Δ", 0x45: "Ε", 0x46: "Φ", 0x47: "Γ", 0x48: "Η",
    0x49: "Ι", 0x4A: "ϑ", 0x4B: "Κ", 0x4C: "Λ", 0x4D: "Μ", 0x4E: "Ν", 0x4F: "Ο", 0x50: "Π",
    0x51: "Θ", 0x52: "Ρ", 0x53: "Σ", 0x54: "Τ", 0x55: "Υ", 0x56: "ς", 0x57: "Ω", 0x58: "Ξ",
    0x59: "Ψ", 0x5A: "Ζ", 0x5C: "∴", 0x5E: "⊥",
    0x61: "α", 0x62: "β", 0x63: "χ", 0x64: "δ", 0x65: "ε", 0x66: "φ", 0x67: "γ", 0x68: "η",
    0x69: "ι", 0x6A: "ϕ", 0x6B: "κ", 0x6C: "λ", 0x6D: "μ", 0x6E: "ν", 0x6F: "ο", 0x70: "π",
    0x71: "θ", 0x72: "ρ", 0x73: "σ", 0x74: "τ", 0x75: "υ", 0x76: "ϖ", 0x77: "ω", 0x78: "ξ",
    0x79: "ψ", 0x7A: "ζ", 0x7E: "∼",
    0xA1: "ϒ", 0xA2: "′", 0xA3: "≤", 0xA4: "⁄", 0xA5: "∞", 0xA6: "ƒ", 0xA7: "♣", 0xA8: "♦",
    0xA9: "♥", 0xAA: "♠", 0xAB: "↔", 0xAC: "←", 0xAD: "↑", 0xAE: "→", 0xAF: "↓", 0xB0: "°",
    0xB1: "±", 0xB2: "″", 0xB3: "≥", 0xB4: "×", 0xB5: "∝", 0xB6: "∂", 0xB7: "•", 0xB8: "÷",
    0xB9: "≠", 0xBA: "≡", 0xBB: "≈", 0xBC: "…", 0xBF: "↵", 0xC0: "ℵ", 0xC1: "ℑ", 0xC2: "ℜ",
    0xC3: "℘", 0xC4: "⊗", 0xC5: "⊕", 0xC6: "∅", 0xC7: "∩", 0xC8: "∪", 0xC9: "⊃", 0xCA: "⊇",
    0xCB: "⊄", 0xCC: "⊂", 0xCD: "⊆", 0xCE: "∈", 0xCF: "∉", 0xD0: "∠", 0xD1: "∇", 0xD2: "®",
    0xD3: "©", 0xD4: "™", 0xD5: "∏", 0xD6: "√", 0xD7: "⋅", 0xD8: "¬", 0xD9: "∧", 0xDA: "∨",
    0xDB: "⇔", 0xDC: "⇐", 0xDD: "⇑", 0xDE: "⇒", 0xDF: "⇓", 0xE0: "◊", 0xE1: "〈", 0xE5: "∑",
    0xF1: "〉", 0xF2: "∫",
}
"""Symbol-font codes whose glyph is not the ASCII character of the same code."""
WINGDINGS_BULLETS: Mapping[int, str] = {
    0x6C: "●", 0x6E: "■", 0x71: "❑", 0x75: "◆", 0x76: "❖", 0x9F: "•", 0xA7: "▪", 0xD8: "➢",
}
"""Wingdings codes that Word uses as list bullets."""
_SYMBOL_FONTS = ("symbol",)
_DINGBAT_FONTS = ("wingding", "webding", "dingbat")
_LIGATURES = range(0xFB00, 0xFB07)
_PUA = range(0xE000, 0xF900)
_SYMBOL_PUA = range(0xF020, 0xF100)
_HYPHEN_MARKS = (0x02, 0xFFFE)
_DROPPED = frozenset({0xFFFD, 0xFFFF})
_WORD = re.compile(r"\w+")
_HYPHENATED = re.compile(r"\w+-\w+")
_BREAK = re.compile(r"(\S*?)(\w+)\u00ad\s*(\w+)(\S*)")


@dataclass(slots=True)
class GlyphReport:
    """Counts of the repairs made on one document (``meta["glyphs"]``, zeros left out)."""

    ligatures: int = 0
    symbol_mapped: int = 0
    private_use_dropped: int = 0
    private_use_kept: int = 0
    unmapped: int = 0
    control: int = 0
    line_end_hyphens: int = 0
    dropped_codes: Counter[str] = field(default_factory=Counter)
    """``"U+F0A0"`` → how many of that dropped code point."""

    def as_meta(self) -> dict[str, object]:
        """JSON-friendly summary with only the non-zero counts."""
        out: dict[str, object] = {
            name: getattr(self, name)
            for name in ("ligatures", "symbol_mapped", "private_use_dropped", "private_use_kept",
                         "unmapped", "control", "line_end_hyphens")
            if getattr(self, name)
        }
        if self.dropped_codes:
            out["dropped_codes"] = dict(self.dropped_codes.most_common(20))
        return out


def repair_char(code: int, font: str, report: GlyphReport, *, unmapped: bool = False) -> str:
    """The text one pdfium character stands for (``""`` when it carries none).

    Args:
        code: the code point pdfium reports (or the raw character code when ``unmapped``).
        font: the character's font name, any case (``"ABCDEF+SymbolMT"``).
        report: counts are added here.
        unmapped: pdfium found no Unicode for the glyph (``FPDFText_HasUnicodeMapError``).

    Returns:
        Zero, one or more characters (ligatures expand); :data:`SOFT_HYPHEN` for a line-end
        hyphen mark.
    """
    if unmapped:
        report.unmapped += 1
        report.dropped_codes[f"glyph {code}"] += 1
        return ""
    if code in _HYPHEN_MARKS:
        report.line_end_hyphens += 1
        return SOFT_HYPHEN
    if code < 0x20 or code in _DROPPED:
        report.control += 1
        report.dropped_codes[f"U+{code:04X}"] += 1
        return ""
    if code in _LIGATURES:
        report.ligatures += 1
        return unicodedata.normalize("NFKC", chr(code))
    if code in _PUA:
        return _private_use(code, font.lower(), report)
    return chr(code)


def _private_use(code: int, font: str, report: GlyphReport) -> str:
    if code in _SYMBOL_PUA and any(name in font for name in _SYMBOL_FONTS + _DINGBAT_FONTS):
        own = code - 0xF000
        table = SYMBOL_ENCODING if any(name in font for name in _SYMBOL_FONTS) else WINGDINGS_BULLETS
        mapped = table.get(own)
        if mapped is None and table is SYMBOL_ENCODING and 0x20 <= own < 0x7F:
            mapped = chr(own)  # the Symbol codes not in the table are ASCII
        if mapped is not None:
            report.symbol_mapped += 1
            return mapped
        report.private_use_dropped += 1
        report.dropped_codes[f"U+{code:04X}"] += 1
        return ""
    report.private_use_kept += 1
    return chr(code)


class Dehyphenator:
    """Resolves :data:`SOFT_HYPHEN` breaks with the document's own vocabulary (module docstring)."""

    __slots__ = ("_hyphenated", "_words")

    def __init__(self, texts: Iterable[str]) -> None:
        """Learn the words (and hyphenated compounds) of ``texts``, case-folded."""
        self._words: set[str] = set()
        self._hyphenated: set[str] = set()
        for text in texts:
            if SOFT_HYPHEN in text:
                text = re.sub(r"\w+\u00ad\s*\w+", " ", text)
            lowered = text.casefold()
            self._words.update(_WORD.findall(lowered))
            self._hyphenated.update(_HYPHENATED.findall(lowered))

    def __call__(self, text: str) -> str:
        """``text`` with every line-end break resolved; a mark with no word after it is ``-``."""
        if SOFT_HYPHEN not in text:
            return text
        return _BREAK.sub(self._resolve, text).replace(SOFT_HYPHEN, "-")

    def _resolve(self, match: re.Match[str]) -> str:
        before, left, right, after = match.groups()
        joined = (left + right).casefold()
        compound = f"{left}-{right}".casefold()
        if compound in self._hyphenated and joined not in self._words:
            keep = True
        elif joined in self._words:
            keep = False
        else:
            token = before + left + right + after
            keep = not (left[-1].islower() and right[0].islower()) or "@" in token or "/" in token \
                or any(ch.isupper() or ch.isdigit() for ch in left)
        return before + left + ("-" if keep else "") + right + after
