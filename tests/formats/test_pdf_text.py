"""PDF text repairs: ligatures, unmapped and private-use glyphs, line-end hyphens — searchable.

Small PDFs are written by :mod:`tests.formats.pdfgen` so each holds exactly one glyph case;
the real fixtures show the same on files from the wild.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from docmunch.formats.pdf import render_pdf
from docmunch.formats.pdf_text import SOFT_HYPHEN, Dehyphenator, GlyphReport, repair_char
from docmunch.index import Index

from .office import rendered
from .pdfgen import Font, build_pdf, text_op

FONTS = {
    # code 1 is a ligature glyph the CMap maps to U+FB01, code 2 a glyph with no Unicode at all
    "F1": Font(differences="1 /g91 2 /g17", to_unicode={1: "\ufb01"}),
}


def _pdf(tmp_path: Path, lines: list[bytes]) -> Path:
    ops = [text_op("F1", 12, 72, 700 - 20 * n, line) for n, line in enumerate(lines)]
    path = tmp_path / "glyphs.pdf"
    path.write_bytes(build_pdf([ops], FONTS))
    return path


def test_ligature_glyph_is_found_as_its_letters(tmp_path: Path) -> None:
    path = _pdf(tmp_path, [b"Edit your pro\x01le in the \x01rst tab."])
    rendition = render_pdf(path, path.read_bytes())
    assert "Edit your profile in the first tab." in rendition.markdown.decode()
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(path, repo="glyphs")
        hits = index.search("profile", repo="glyphs")
    assert hits and hits[0].doc_path == "glyphs.pdf"


def test_unmapped_glyph_is_dropped_and_reported(tmp_path: Path) -> None:
    path = _pdf(tmp_path, [b"alpha \x02beta gamma"])
    with pdfium.PdfDocument(str(path)) as pdf:  # the situation: pdfium has no Unicode for code 2
        textpage = pdf[0].get_textpage()
        errors = [pdfium_c.FPDFText_HasUnicodeMapError(textpage, i) for i in range(textpage.count_chars())]
        assert errors.count(1) == 1
    rendition = render_pdf(path, path.read_bytes())
    (block,) = [b for b in rendition.blocks if b.kind == "lines"]
    assert block.text == "alpha beta gamma"
    assert "\x02" not in rendition.markdown.decode()
    assert rendition.meta["glyphs"]["unmapped"] == 1
    # text and boxes stay aligned after the dropped glyph: the block's box ends where the last
    # character ("a" of "gamma") ends
    with pdfium.PdfDocument(str(path)) as pdf:
        textpage = pdf[0].get_textpage()
        last = textpage.count_chars() - 1
        while textpage.get_text_range(last, 1).isspace():
            last -= 1
        assert textpage.get_text_range(last, 1) == "a"
        assert block.positions[0]["bbox"][2] == round(textpage.get_charbox(last)[2], 2)


def test_real_ligature_glyphs_are_searchable(fixtures_dir: Path, tmp_path: Path) -> None:
    """issue-982 (pdfTeX) draws "fi" as one glyph: two characters share one box in pdfium."""
    path = fixtures_dir / "office" / "pdf" / "issue-982-example.pdf"
    shared = 0
    with pdfium.PdfDocument(str(path)) as pdf:
        textpage = pdf[0].get_textpage()
        text = textpage.get_text_range()
        boxes = [textpage.get_charbox(i) for i in range(textpage.count_chars())]
        shared = sum(1 for i in range(len(text) - 1) if text[i : i + 2] == "fi" and boxes[i] == boxes[i + 1])
    assert shared >= 3
    assert "artificial" in rendered(path).markdown.decode()
    with Index.open(tmp_path / "home") as index:
        index.index_path(path, repo="paper")
        assert index.search("artificial intelligence", repo="paper")


@pytest.mark.parametrize(
    ("code", "font", "expected"),
    [
        (0xFB01, "Times", "fi"), (0xFB00, "Times", "ff"), (0xFB03, "Times", "ffi"), (0xFB06, "Times", "st"),
        (0xF0B7, "ABCDEF+SymbolMT", "•"), (0xF061, "Symbol", "α"), (0xF0A7, "Wingdings-Regular", "▪"),
        (0xF041, "Symbol", "Α"), (0xF031, "Symbol", "1"),
        (0xF0E2, "Symbol", ""),  # registersans: not in the table, dropped
        (0xE123, "SimSun", "\ue123"),  # a CJK font's private-use character stays
        (0x00, "Times", ""), (0xFFFD, "Times", ""),
        (0x02, "Times", SOFT_HYPHEN), (0xFFFE, "Times", SOFT_HYPHEN),
        (0x41, "Times", "A"),
    ],
)
def test_repair_char(code: int, font: str, expected: str) -> None:
    assert repair_char(code, font, GlyphReport()) == expected


def test_glyph_report_counts() -> None:
    report = GlyphReport()
    for code, font in [(0xFB01, "T"), (0xF0B7, "Symbol"), (0xF0E2, "Symbol"), (0xE001, "X"), (0, "T")]:
        repair_char(code, font, report)
    repair_char(7, "T", report, unmapped=True)
    assert report.as_meta() == {
        "ligatures": 1, "symbol_mapped": 1, "private_use_dropped": 1, "private_use_kept": 1, "unmapped": 1,
        "control": 1, "dropped_codes": {"U+F0E2": 1, "U+0000": 1, "glyph 7": 1},
    }


def test_dehyphenation_uses_the_documents_words() -> None:
    texts = ["the non-normal procedure", "a function and an experience", "pilots"]
    fix = Dehyphenator(texts)
    s = SOFT_HYPHEN
    assert fix(f"a non{s} normal case") == "a non-normal case"  # written with a hyphen elsewhere
    assert fix(f"this func{s} tion") == "this function"  # written joined elsewhere
    assert fix(f"neu{s} ral nets") == "neural nets"  # no evidence: lower-case break joins
    assert fix(f"the FAA{s} approved list") == "the FAA-approved list"  # capitals keep it
    assert fix(f"mail x@pilatus{s} aircraft.com") == "mail x@pilatus-aircraft.com"
    assert fix(f"ends here{s}") == "ends here-"

