"""PDF rendition: outline headings, inferred headings, columns, CJK, overprinted characters,
and the error paths (scanned, encrypted) — expectations from the files (office/NOTICE,
manifest.json, pdfium's own outline and text)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docmunch.errors import ConvertError, NoTextLayer, PasswordRequired
from docmunch.formats import render_file
from docmunch.formats.pdf import render_pdf
from docmunch.formats.pdf_outline import MAX_DEPTH, read_outline
from docmunch.index.document import parse_rendition

from .office import cjk_count, md_headings, rendered


@pytest.fixture(scope="module")
def pdfs(fixtures_dir: Path) -> Path:
    return fixtures_dir / "office" / "pdf"


@pytest.fixture(scope="module")
def manifest(fixtures_dir: Path) -> dict:
    return json.loads((fixtures_dir / "office" / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "bookmark_sample.pdf",
            [(1, "PART I - DEFINITIONS"), (2, "1. Interpretation"), (2, "2. Construction of Terms"),
             (1, "PART II - OBLIGATIONS"), (2, "3. Payment Terms"), (3, "3.1 Payment Schedule"),
             (2, "4. Termination"), (1, "PART III - MISCELLANEOUS")],
        ),
        (
            "pdf_structure.pdf",  # tagged (H1/H2/H3) and with a 3-entry outline
            [(1, "Titre 1"), (2, "Titre 2"), (3, "Tableau")],
        ),
        (
            "issue-33-lorem-ipsum.pdf",
            [(1, "Ipsum labore ut consectetur."), (1, "Quiquia adipisci numquam tempora dolore magnam."),
             (2, "Etincidunt consectetur porro velit sed quaerat.")],
        ),
    ],
)
def test_outline_headings(pdfs: Path, name: str, expected: list[tuple[int, str]]) -> None:
    rendition = rendered(pdfs / name)
    assert md_headings(rendition.markdown) == expected
    assert rendition.meta["heading_source"] == "outline"


def test_outline_headings_cjk(pdfs: Path, manifest: dict) -> None:
    rendition = rendered(pdfs / "heading_styles_zh.libreoffice.pdf")
    outline = manifest["pdf/heading_styles_zh.libreoffice.pdf"]["outline_head"]
    headings = md_headings(rendition.markdown)
    # LibreOffice letter-spaces some headings; compare without spaces
    assert [(lvl, "".join(t.split())) for lvl, t in headings] == [
        (level + 1, "".join(title.split())) for level, title, _page in outline
    ]


def test_two_column_paper_outline(pdfs: Path) -> None:
    rendition = rendered(pdfs / "issue-982-example.pdf")
    headings = md_headings(rendition.markdown)
    assert len(headings) == 20 == rendition.meta["outline_entries"]
    assert headings[:5] == [
        (1, "I. INTRODUCTION"), (1, "II. BASICS OF MACHINE LEARNING"), (1, "III. IMAGE DATA"),
        (2, "A. Google DeepDream"), (2, "B. Artistic Style Imitation"),
    ]
    text = rendition.markdown.decode()
    # a sentence that wraps across three lines in the left column reads in one piece
    sentence = "According to \\[Gad06\\] creativity is “the ability to use your imagination to produce new"
    assert sentence in text
    assert "arXiv:1601.03642" not in text  # the rotated margin stamp is skipped


def test_normal_style_pdf_headings_inferred(pdfs: Path) -> None:
    rendition = rendered(pdfs / "normal_style_headings_zh.libreoffice.pdf")
    headings = ["".join(t.split()) for _, t in md_headings(rendition.markdown)]
    # the only outline entry is 附录A; the rest come from font size (CJK bold is lost, only
    # the bold Latin "2.1.1" marks that one); （一）/（二） lost their bold entirely.
    assert headings == [
        "设备维护管理规程", "第一章总则", "一、目的", "二、适用范围", "第二章职责分工", "2.1设备部职责",
        "2.1.1计划编制", "2.2生产部职责", "3MaintenanceRecords", "附录A术语",
    ]
    assert rendition.meta["heading_source"] == "inferred"


def test_three_column_reading_order(pdfs: Path) -> None:
    rendition = rendered(pdfs / "federal-register-2020-17221.pdf")
    text = rendition.markdown.decode()
    assert (
        "This section of the FEDERAL REGISTER contains notices to the public of the proposed issuance "
        "of rules and regulations. The purpose of these notices is to give interested persons an "
        "opportunity to participate in the rule making prior to the adoption of the final rules."
    ) in text
    assert "SUMMARY: The FAA proposes to supersede Airworthiness Directive (AD) 2018–23–51" in text
    headings = [t for _, t in md_headings(rendition.markdown)]
    assert "Proposed Rules" in headings
    assert not any(t.isdigit() for t in headings)  # running page numbers are no headings


def test_a_continued_table_caption_is_no_heading(pdfs: Path) -> None:
    """"ESTIMATED COSTS—Continued" (the cost table's caption repeated on its next page, set
    large) stays body text, so the later sections keep "Proposed Rules" as their ancestor;
    it used to be a level-2 heading that 29 sections (Authority …, PART 39, (a)–(q), the next
    rule) were nested under."""
    pdf = pdfs / "federal-register-2020-17221.pdf"
    rendition = rendered(pdf)
    doc = parse_rendition(rendition, repo="fr", doc_path=pdf.name)
    by_title = {s.title: s for s in doc.sections}
    assert not any("continued" in s.id.lower() or "continued" in s.title.lower() for s in doc.sections)
    assert len(doc.sections) == 48  # 49 with the caption heading
    prefix = f"fr::{pdf.name}::proposed-rules/"
    for title, slug in [
        ("Costs of Compliance", "costs-of-compliance"),
        ("Authority for This Rulemaking", "authority-for-this-rulemaking"),
        ("PART 39—AIRWORTHINESS DIRECTIVES", "part-39airworthiness-directives"),
        ("(a) Comments Due Date", "part-39airworthiness-directives/a-comments-due-date"),
        ("(p) Alternative Methods of Compliance (AMOCs)",
         "part-39airworthiness-directives/p-alternative-methods-of-compliance-amocs"),
        ("Airworthiness Directives; Pilatus Aircraft Ltd. Airplanes",
         "airworthiness-directives-pilatus-aircraft-ltd-airplanes"),
    ]:
        section = by_title[title]
        assert section.id.startswith(prefix + slug + "#"), section.id
    costs = by_title["Costs of Compliance"]
    assert costs.level == by_title["Authority for This Rulemaking"].level  # siblings again
    body = rendition.markdown[costs.byte_start : costs.byte_end].decode()
    assert "ESTIMATED COSTS—Continued" in body and "## ESTIMATED" not in body  # kept, as text


def test_cjk_report(pdfs: Path, manifest: dict) -> None:
    rendition = rendered(pdfs / "issue-67-example.pdf")
    text = rendition.markdown.decode()
    assert "东北电气发展股份有限公司" in text
    # the running header (21 CJK characters on pages 2-22) left the text for furniture blocks
    furniture = "".join(b.text for b in rendition.blocks if b.kind == "furniture")
    assert "东北电气发展股份有限公司 2018 年第一季度报告全文" in furniture
    assert "2018 年第一季度报告全文" not in text.split("\n", 1)[1]
    assert cjk_count(text + furniture) >= 0.98 * manifest["pdf/issue-67-example.pdf"]["cjk_chars"]
    headings = [t for _, t in md_headings(rendition.markdown)]
    for expected in ("第一节 重要提示", "第二节 公司基本情况", "第三节 重要事项", "第四节 财务报表"):
        assert expected in headings


def test_korean_two_column(pdfs: Path) -> None:
    rendition = rendered(pdfs / "normal_4pages.pdf")
    headings = [t for _, t in md_headings(rendition.markdown)]
    assert "1 들어가며" in headings and "5 맺으며" in headings


def test_overprinted_characters_once(pdfs: Path) -> None:
    rendition = rendered(pdfs / "issue-71-duplicate-chars.pdf")
    text = rendition.markdown.decode()
    assert "项目描述" in text
    assert "项项" not in text and "目目" not in text
    assert "教育经历" in [t for _, t in md_headings(rendition.markdown)]


def test_scanned_pdf_has_no_text_layer(pdfs: Path) -> None:
    path = pdfs / "ocr_test.pdf"
    with pytest.raises(NoTextLayer, match=r"no text layer \(scanned\); OCR is not supported"):
        render_file(path, path.read_bytes())


def test_password(pdfs: Path, manifest: dict) -> None:
    path = pdfs / "password-example.pdf"
    with pytest.raises(PasswordRequired, match="--password"):
        render_pdf(path, path.read_bytes())
    with pytest.raises(PasswordRequired, match="wrong password"):
        render_pdf(path, path.read_bytes(), password="nope")
    rendition = render_pdf(path, path.read_bytes(), password=manifest["pdf/password-example.pdf"]["password"])
    assert rendition.meta["pages"] == 4
    assert "Backup4all" in rendition.markdown.decode()


@pytest.mark.timeout(30)
def test_circular_outline_finishes(pdfs: Path) -> None:
    path = pdfs / "toc_circular.pdf"
    start = time.monotonic()
    with pdfium.PdfDocument(str(path)) as pdf:
        entries = read_outline(pdf)
    rendition = render_pdf(path, path.read_bytes())
    assert [e.title for e in entries] == ["A Good Beginning", "A Good Ending"]
    assert rendition.meta["pages"] == 2
    assert time.monotonic() - start < 20  # generous: the guard is what is tested, not speed


def test_deep_outline_is_capped(pdfs: Path) -> None:
    path = pdfs / "toc_maxdepth.pdf"
    with pdfium.PdfDocument(str(path)) as pdf:
        entries = read_outline(pdf)
    assert max(e.level for e in entries) <= MAX_DEPTH - 1
    assert entries[0].title == "1.outline"
    headings = md_headings(rendered(path).markdown)
    assert max(level for level, _ in headings) == 6  # Markdown has six levels


@pytest.mark.parametrize("data", [b"", b"%PDF-1.4 garbage", b"hello"])
def test_bad_pdf_is_a_convert_error(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(ConvertError):
        render_pdf(tmp_path / "bad.pdf", data)


def test_tagged_structure_headings(pdfs: Path) -> None:
    """Without its outline, pdf_structure.pdf's headings come from its H1/H2/H3 tags."""
    from docmunch.formats.pdf import _render  # the outline switch is internal
    from docmunch.formats.pdf_tags import heading_mcids

    path = pdfs / "pdf_structure.pdf"
    with pdfium.PdfDocument(str(path)) as pdf:
        assert heading_mcids(pdf[0]) == {1: 1, 8: 2, 24: 3}  # MCIDs of "Titre 1", "Titre 2", "Tableau"
        rendition = _render(pdf, str(path), use_outline=False)
    assert md_headings(rendition.markdown) == [(1, "Titre 1"), (2, "Titre 2"), (3, "Tableau")]
    assert rendition.meta["heading_source"] == "tags"


def test_untagged_pdf_has_no_tag_headings(pdfs: Path) -> None:
    from docmunch.formats.pdf_tags import heading_mcids

    with pdfium.PdfDocument(str(pdfs / "bookmark_sample.pdf")) as pdf:
        assert heading_mcids(pdf[0]) == {}
