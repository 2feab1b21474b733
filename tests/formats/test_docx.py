"""DOCX rendition: headings, paraId coverage, CJK, tables, content controls, tracked changes,
text boxes, footnotes — expectations written from the fixture files' XML (see office/NOTICE)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import docx
import pytest
from lxml import etree
from markdown_it import MarkdownIt

from docmunch.errors import ConvertError, LimitExceeded
from docmunch.formats import render_file
from docmunch.formats.docx import render_docx
from docmunch.index.document import parse_rendition

from .office import NS, W, cjk_count, document_paragraphs, md_headings, rendered

# Paragraphs with heading styles (pStyle → style with w:outlineLvl / "heading N"), in order.
STYLED_HEADINGS = {
    "word_sample.docx": [(1, "Swimming in the lake"), (1, "Let’s swim!"), (2, "Let’s eat")],
    "heading_styles_zh.docx": [
        (1, "设备维护管理规程"), (1, "第一章 总则"), (2, "一、目的"), (2, "二、适用范围"),
        (1, "第二章 职责分工"), (2, "2.1 设备部职责"), (3, "2.1.1 计划编制"), (1, "第三章 记录 Records"),
    ],
    "unit_test_headers_numbered.docx": [
        (1, "Test Document"), (1, "Section 1"), (2, "Section 1.1"), (2, "Section 1.2"),
        (3, "Section 1.2.3"), (1, "Section 2"), (3, "Section 2.1.1"), (2, "Section 2.1"),
        (2, "REFERENCES"),
    ],
    "swagger.docx": [
        (1, "{{info.title}}"), (2, "概览"), (3, "描述"), (3, "版本"), (3, "联系人"), (3, "许可证"),
        (2, "接口列表"), (3, "{{name}}"), (4, "{{summary}}"), (5, "描述"), (5, "Produces"),
        (5, "Consumes"), (5, "参数"), (5, "返回值"), (2, "数据模型"), (3, "{{name}}"), (4, "属性"),
        (4, "示例"), (2, "关于文档"),
    ],
    "docx_page_header_footer_first_page.docx": [
        (1, "Page header/footer regression fixture"), (2, "Page 2"),
    ],
}

# Normal-style document: headings shown only by size/bold/centring/numbering (NOTICE [GEN]).
NORMAL_STYLE_HEADINGS = [
    "设备维护管理规程", "第一章 总则", "一、目的", "二、适用范围", "第二章 职责分工", "2.1 设备部职责",
    "2.1.1 计划编制", "2.2 生产部职责", "（一）日常点检", "（二）异常上报", "3 Maintenance Records",
    "附录A 术语",
]


@pytest.fixture(scope="module")
def office(fixtures_dir: Path) -> Path:
    return fixtures_dir / "office"


@pytest.fixture(scope="module")
def manifest(office: Path) -> dict:
    return json.loads((office / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(STYLED_HEADINGS))
def test_styled_headings(office: Path, name: str) -> None:
    rendition = rendered(office / "docx" / name)
    assert md_headings(rendition.markdown) == STYLED_HEADINGS[name]
    assert rendition.meta["heading_source"] == "styles"


@pytest.mark.parametrize(
    "name", ["normal_style_headings_zh.docx", "normal_style_headings_zh.libreoffice.docx"]
)
def test_normal_style_headings_are_inferred(office: Path, name: str) -> None:
    rendition = rendered(office / "docx" / name)
    headings = md_headings(rendition.markdown)
    assert [text for _, text in headings] == NORMAL_STYLE_HEADINGS
    level = dict((text, lvl) for lvl, text in headings)
    assert level["附录A 术语"] == 1  # direct paragraph w:outlineLvl 0
    assert level["设备维护管理规程"] < level["第一章 总则"] < level["一、目的"]  # 18 > 16 > 14 pt
    assert level["2.1 设备部职责"] < level["2.1.1 计划编制"]  # 12 pt bold > 10.5 pt bold
    text = rendition.markdown.decode()
    # traps: bold sentence ending in 。 and the table caption stay paragraphs
    assert "\n注意：未经批准不得擅自拆卸安全防护装置。\n" in text
    assert "\n表1 点检项目一览\n" in text


def test_all_bold_document_is_not_all_headings(tmp_path: Path) -> None:
    document = docx.Document()
    for i in range(10):
        document.add_paragraph().add_run(f"Short bold line {i}").bold = True
    buf = io.BytesIO()
    document.save(buf)
    rendition = render_docx(tmp_path / "bold.docx", buf.getvalue())
    assert md_headings(rendition.markdown) == []


@pytest.mark.parametrize(
    ("name", "coverage"),
    [
        ("word_sample.docx", "all"), ("swagger.docx", "all"), ("textbox.docx", "all"),
        ("unit_test_headers_numbered.docx", "mixed"), ("word_tables.docx", "mixed"),
        ("footnotes.docx", "none"), ("render_multiple_column.docx", "none"),
        ("normal_style_headings_zh.libreoffice.docx", "none"), ("sdt.docx", "none"),
    ],
)
def test_paraid_coverage(office: Path, manifest: dict, name: str, coverage: str) -> None:
    rendition = rendered(office / "docx" / name)
    facts = manifest[f"docx/{name}"]
    assert rendition.meta["paragraphs"] == facts["w_p_excluding_mc_Fallback"]
    assert rendition.meta["paraid_coverage"] == coverage
    ranges = [p["range"] for b in rendition.blocks for p in b.positions if p["type"] == "paraid"]
    ids = [pid for r in ranges for pid in r if pid is not None]
    if coverage == "none":
        assert ids == []
    else:
        assert ids
    if coverage == "all":
        assert all(None not in r for r in ranges)


@pytest.mark.parametrize("name", ["heading_styles_zh.docx", "normal_style_headings_zh.docx", "swagger.docx"])
def test_cjk_text_intact(office: Path, manifest: dict, name: str) -> None:
    rendition = rendered(office / "docx" / name)
    assert cjk_count(rendition.markdown.decode()) == manifest[f"docx/{name}"]["cjk_chars"]


def test_cjk_sentence_survives_libreoffice_run_splits(office: Path) -> None:
    text = rendered(office / "docx" / "normal_style_headings_zh.libreoffice.docx").markdown.decode()
    assert "为规范设备维护工作，明确各部门职责，保障生产设备安全、稳定、经济运行，特制定本规程。" in text


def test_tables_rows_are_blocks(office: Path, manifest: dict) -> None:
    path = office / "docx" / "word_tables.docx"
    rendition = rendered(path)
    assert rendition.meta["tables"] == manifest["docx/word_tables.docx"]["tables"] == 7
    rows = [b for b in rendition.blocks if b.kind == "table_row"]
    root = document_paragraphs(path)[0].getroottree()
    assert len(rows) == len(root.xpath("//w:tr", namespaces=NS))
    text = rendition.markdown.decode()
    assert (
        "| Header 0.0 | Header 0.1 | Header 0.2 |\n| --- | --- | --- |\n| Cell 1.0 | Cell 1.1 | Cell 1.2 |"
    ) in text
    # horizontal merge (gridSpan 2) keeps the column count with an empty cell
    assert "| Cell 1.0 | Merged Cell 1.1 1.2 |  |" in text
    # vertical merge: the continued cell is empty
    assert "| Cell 2.0 |  | Cell 2.2 |" in text


def test_nested_table_text_is_kept(office: Path) -> None:
    text = rendered(office / "docx" / "blk-paras-and-tables.docx").markdown.decode()
    assert "| Text before Table Between Text after |" in text


def test_content_controls_python_docx_misses(office: Path) -> None:
    path = office / "docx" / "sdt.docx"
    assert docx.Document(str(path)).paragraphs == []  # the reason for walking the XML ourselves
    text = rendered(path).markdown.decode()
    for expected in ("Version2.0.0", "{{title}}", "{{?list}}{{name}}{{/list}}", "《A》"):
        assert text.count(expected) == 1, expected


def test_text_boxes_read_once(office: Path) -> None:
    rendition = rendered(office / "docx" / "textbox.docx")
    text = rendition.markdown.decode()
    for expected in ("Student falls ill", "Case closed.", "Health Bureau:"):
        assert text.count(expected) == 1, expected
    ids = [p["range"][0] for b in rendition.blocks for p in b.positions if p["type"] == "paraid"]
    assert len(ids) == len(set(ids))


def test_footnotes(office: Path) -> None:
    rendition = rendered(office / "docx" / "footnotes.docx")
    assert rendition.markdown.decode() == "Ouch[^1].[^2]\n\n[^1]: A tachyon walks into a bar.\n\n[^2]: Fin.\n"
    notes = [b for b in rendition.blocks if b.kind == "footnote"]
    assert [b.text for b in notes] == ["A tachyon walks into a bar.", "Fin."]
    assert {b.positions[0]["part"] for b in notes} == {"word/footnotes.xml"}
    assert rendition.blocks[0].text == "Ouch."


def _docx_with_body_xml(body_xml: str) -> bytes:
    """A real python-docx package whose body is replaced by ``body_xml``."""
    document = docx.Document()
    body = document.element.body
    sect = body[-1]
    for child in list(body)[:-1]:
        body.remove(child)
    wrapper = etree.fromstring(f'<w:body xmlns:w="{W}" xmlns:w14="{NS["w14"]}">{body_xml}</w:body>')
    for child in wrapper:
        sect.addprevious(child)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _retitled(source: Path, title: str, target: Path) -> Path:
    """``source`` saved as ``target`` with its core ``dc:title`` set to ``title`` (python-docx)."""
    document = docx.Document(str(source))
    document.core_properties.title = title
    document.save(str(target))
    return target


def test_a_preamble_is_named_by_the_title_property_or_the_file_never_a_later_heading(
    office: Path, tmp_path: Path
) -> None:
    """word_sample.docx opens with "Summer activities" (Subtitle style) before its Title-styled
    first heading "Swimming in the lake"; its ``dc:title`` is empty. The preamble was titled
    "Swimming in the lake", the text of the heading after it."""
    path = office / "docx" / "word_sample.docx"
    rendition = rendered(path)
    doc = parse_rendition(rendition, repo="w", doc_path=path.name)
    assert [(s.id.split("::")[2], s.title) for s in doc.sections] == [
        ("_preamble#0", "word_sample.docx"),
        ("swimming-in-the-lake#1", "Swimming in the lake"),
        ("lets-swim#1", "Let’s swim!"),
        ("lets-swim/lets-eat#2", "Let’s eat"),
    ]
    preamble = doc.sections[0]
    assert rendition.markdown[preamble.byte_start : preamble.byte_end] == b"Summer activities\n\n"
    assert rendition.title == "Swimming in the lake"  # the document's own title is unchanged

    named = _retitled(path, "  Duck   holidays ", tmp_path / "named.docx")
    doc = parse_rendition(rendered(named), repo="w", doc_path=named.name)
    assert [s.title for s in doc.sections[:2]] == ["Duck holidays", "Swimming in the lake"]

    placeholder = _retitled(path, "{{title}}", tmp_path / "placeholder.docx")  # an unfilled template field
    doc = parse_rendition(rendered(placeholder), repo="w", doc_path=placeholder.name)
    assert doc.sections[0].title == "placeholder.docx"


def test_tracked_changes_keep_insertions_drop_deletions(tmp_path: Path) -> None:
    data = _docx_with_body_xml(
        '<w:p w14:paraId="0000000A"><w:r><w:t xml:space="preserve">Keep </w:t></w:r>'
        '<w:ins w:id="1" w:author="a"><w:r><w:t xml:space="preserve">inserted </w:t></w:r></w:ins>'
        '<w:del w:id="2" w:author="a"><w:r><w:delText xml:space="preserve">deleted </w:delText></w:r></w:del>'
        "<w:r><w:t>end</w:t></w:r></w:p>"
        '<w:ins w:id="3" w:author="a"><w:p><w:r><w:t>Whole inserted paragraph</w:t></w:r></w:p></w:ins>'
        "<w:sdt><w:sdtContent><w:p><w:r><w:t>Inside a content control</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"
    )
    path = tmp_path / "tracked.docx"
    path.write_bytes(data)
    rendition = render_file(path, data)
    assert rendition.markdown.decode() == (
        "Keep inserted end\n\nWhole inserted paragraph\n\nInside a content control\n"
    )
    assert rendition.blocks[0].positions[0]["range"] == ["0000000A", "0000000A"]


def test_markdown_syntax_in_text_is_escaped(tmp_path: Path) -> None:
    document = docx.Document()
    for text in ("# not a heading", "- not a list", "1. not ordered", "*not emphasis*", "> no quote"):
        document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    rendition = render_docx(tmp_path / "esc.docx", buf.getvalue())
    tokens = [t.type for t in MarkdownIt("commonmark").parse(rendition.markdown.decode())]
    assert set(tokens) == {"paragraph_open", "inline", "paragraph_close"}


@pytest.mark.parametrize(
    "data", [b"", b"not a zip", b"PK\x03\x04broken", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512]
)
def test_bad_input_is_a_convert_error(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(ConvertError):
        render_docx(tmp_path / "bad.docx", data)


def test_zip_bomb_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    document = docx.Document()
    document.add_paragraph("x" * 5000)
    buf = io.BytesIO()
    document.save(buf)
    monkeypatch.setenv("DOCMUNCH_DOCX_MAX_EXPANDED_BYTES", "4096")  # a small cap stands in for 256 MiB
    with pytest.raises(LimitExceeded, match="expands to"):
        render_docx(tmp_path / "big.docx", buf.getvalue())
