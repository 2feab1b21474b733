"""PDF page furniture and readable sections on the real fixtures (office/pdf, manifest.json).

What the files hold was read off pdfium's text by hand: the Federal Register file prints
"Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules" atop pages
2-15, a page number (47698-47712) and five GPO production fields ("PO 00000 Frm 00001",
"VerDate Sep<11>2014", …) at the bottom of every page; password-example.pdf prints the novaPDF
notice "Create PDF files without this message by purchasing novaPDF printer (…)" at the
foot of all four pages and draws its bullets with SymbolMT's private-use U+F0B7.
"""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docmunch.formats.base import Rendition
from docmunch.section import split_markdown

from .office import rendered

RUNNING_HEADER = "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"
GPO_FIELDS = ("PO 00000", "VerDate Sep<11>2014", "Sfmt 4702", "E:\\FR\\FM\\06AUP1.SGM")
NOVA = "Create PDF files without this message by purchasing novaPDF printer"


@pytest.fixture(scope="module")
def pdfs(fixtures_dir: Path) -> Path:
    return fixtures_dir / "office" / "pdf"


@pytest.fixture(scope="module")
def register(pdfs: Path) -> Rendition:
    return rendered(pdfs / "federal-register-2020-17221.pdf")


@pytest.fixture(scope="module")
def nova(pdfs: Path, fixtures_dir: Path) -> Rendition:
    manifest = json.loads((fixtures_dir / "office" / "manifest.json").read_text(encoding="utf-8"))
    return rendered(pdfs / "password-example.pdf", manifest["pdf/password-example.pdf"]["password"])


def _sections(rendition: Rendition) -> list[tuple[str, bytes]]:
    doc = split_markdown(rendition.markdown, repo="r", doc_path="x.pdf")
    md = rendition.markdown
    return [(s.title, md[s.byte_start : s.byte_end]) for s in doc.sections]


def test_register_running_headers_and_footers_leave_the_text(register: Rendition) -> None:
    text = register.markdown.decode()
    assert RUNNING_HEADER not in text
    for field in GPO_FIELDS:
        assert field.replace("\\", "\\\\") not in text and field not in text, field
    for number in range(47699, 47713):  # printed page numbers 2-15 stand alone on their line
        assert f"\n\n{number}\n\n" not in text
    assert register.meta["furniture_lines"] >= 14 + 15 * 5


def test_register_cover_masthead_is_header_furniture(register: Rendition) -> None:
    # page 1 prints the running header's fields as three lines atop its right column; they
    # landed mid-sentence as a "#### Federal Register" section; the page title stays
    masthead = ("Federal Register", "Vol. 85, No. 152", "Thursday, August 6, 2020")
    lines = register.markdown.decode().splitlines()
    assert not any(line.lstrip("# ") in masthead for line in lines)
    assert lines[0] == "# Proposed Rules"
    page1 = [b for b in register.blocks if b.kind == "furniture" and b.positions[0]["page"] == 1]
    assert [b.text for b in page1 if b.positions[0]["role"] == "header"] == list(masthead)
    assert "Federal Register" not in [title for title, _ in _sections(register)]


def test_register_furniture_stays_addressable(register: Rendition) -> None:
    furniture = [b for b in register.blocks if b.kind == "furniture"]
    headers = [b for b in furniture if b.text == RUNNING_HEADER]
    assert sorted(b.positions[0]["page"] for b in headers) == list(range(2, 16))
    for block in furniture:
        assert block.md_start == block.md_end
        (pos,) = block.positions
        assert pos["role"] in ("header", "footer", "page_number", "watermark")
    numbers = {b.positions[0]["page"]: b.text for b in furniture if b.positions[0]["role"] == "page_number"}
    assert numbers == {page: str(47697 + page) for page in range(1, 16)}
    # a section on page 2 names the page's header and printed number in its locator
    doc = split_markdown(register.markdown, repo="r", doc_path="x.pdf")
    background = next(s for s in doc.sections if s.title == "Background")
    locator = register.locator_for(background.byte_start, background.byte_end)
    assert locator is not None
    page2 = next(p for p in locator["pages"] if p["page"] == 2)
    texts = {(f["role"], f["text"]) for f in page2["furniture"]}
    assert ("header", RUNNING_HEADER) in texts and ("page_number", "47699") in texts


def test_register_has_more_and_smaller_sections(register: Rendition) -> None:
    sections = _sections(register)
    titles = [title for title, _ in sections]
    # before: 6 sections, the largest 38,121 bytes ("14 CFR Part 39" ran over six pages)
    assert len(sections) >= 30
    assert max(len(body) for _, body in sections) <= 16_000
    for heading in ("Background", "Comments Invited", "Proposed Design Changes", "Costs of Compliance",
                    "(a) Comments Due Date", "(q) Related Information"):
        assert heading in titles
    assert register.meta["heading_source"] == "inferred"
    for _title, body in sections:
        assert RUNNING_HEADER.encode() not in body


def test_register_line_end_hyphens(register: Rendition) -> None:
    text = register.markdown.decode()
    assert "non-normal" in text and "non- normal" not in text  # the document writes "non-normal"
    assert "FAA-approved" in text and "FAA- approved" not in text
    assert register.meta["glyphs"]["line_end_hyphens"] == 10


def test_watermark_leaves_the_text_and_bullets_are_readable(nova: Rendition) -> None:
    text = nova.markdown.decode()
    assert NOVA not in text
    notices = [b for b in nova.blocks if b.kind == "furniture" and b.text.startswith(NOVA)]
    assert [b.positions[0]["page"] for b in notices] == [1, 2, 3, 4]
    assert "\uf0b7" not in text
    assert "• Home users" in text
    assert nova.meta["glyphs"]["symbol_mapped"] == 16  # every U+F0B7 of the file, counted by hand


@pytest.mark.parametrize("name", ["bookmark_sample.pdf", "issue-982-example.pdf", "issue-33-lorem-ipsum.pdf"])
def test_repeated_body_text_is_not_furniture(pdfs: Path, name: str) -> None:
    """bookmark_sample repeats one filler paragraph at the same place on every page: a
    paragraph is text; only its running title line ("Sample Agreement — page N") goes."""
    rendition = rendered(pdfs / name)
    furniture = [b.text for b in rendition.blocks if b.kind == "furniture"]
    if name == "bookmark_sample.pdf":
        assert furniture == [f"Sample Agreement — page {n}" for n in (1, 2, 3)]
        filler = "This clause is provided for demonstration"
        with pdfium.PdfDocument(str(pdfs / name)) as pdf:
            on_pages = sum(pdf[i].get_textpage().get_text_range().count(filler) for i in range(len(pdf)))
        assert on_pages == 8 and rendition.markdown.decode().count(filler) == on_pages
    elif name == "issue-982-example.pdf":
        assert furniture == [str(n) for n in range(1, 9)]  # the page numbers at the top right
    else:
        assert furniture == []  # two pages: no pattern to see
