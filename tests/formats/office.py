"""Helpers for the DOCX/PDF tests: cached renditions, Markdown parsing, independent XML reads."""

from __future__ import annotations

import functools
import re
import zipfile
from pathlib import Path

from lxml import etree
from markdown_it import MarkdownIt

from docmunch.formats import render_file
from docmunch.formats.base import Rendition

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
NS = {"w": W, "w14": W14, "mc": MC}

DOCX_FILES = [
    "blk-paras-and-tables.docx",
    "docx_page_header_footer_first_page.docx",
    "footnotes.docx",
    "heading_styles_zh.docx",
    "normal_style_headings_zh.docx",
    "normal_style_headings_zh.libreoffice.docx",
    "render_multiple_column.docx",
    "sdt.docx",
    "swagger.docx",
    "textbox.docx",
    "unit_test_headers_numbered.docx",
    "word_sample.docx",
    "word_tables.docx",
]
PDF_TEXT_FILES = [
    "bookmark_sample.pdf",
    "federal-register-2020-17221.pdf",
    "heading_styles_zh.libreoffice.pdf",
    "issue-33-lorem-ipsum.pdf",
    "issue-67-example.pdf",
    "issue-71-duplicate-chars.pdf",
    "issue-982-example.pdf",
    "normal_4pages.pdf",
    "normal_style_headings_zh.libreoffice.pdf",
    "pdf_structure.pdf",
    "toc_circular.pdf",
    "toc_maxdepth.pdf",
]


@functools.cache
def rendered(path: Path, password: str | None = None) -> Rendition:
    """Render one fixture file once per test session."""
    return render_file(path, path.read_bytes(), password=password)


def md_headings(markdown: bytes) -> list[tuple[int, str]]:
    """(level, plain text) of every heading markdown-it-py (CommonMark) finds."""
    tokens = MarkdownIt("commonmark").parse(markdown.decode("utf-8"))
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            text = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            out.append((int(tok.tag[1]), text))
    return out


_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_NOTE_MARK = re.compile(r"\[\^e?\d+\]")


def md_plain(md: str) -> str:
    """Undo CommonMark backslash escapes (§2.4) and drop footnote markers ``[^N]``."""
    return _ESCAPE.sub(r"\1", _NOTE_MARK.sub("", md))


def squash(text: str) -> str:
    """Remove all whitespace (PDF word spacing is not comparable across extractors)."""
    return "".join(text.split())


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")


def document_paragraphs(path: Path) -> list[etree._Element]:
    """``//w:p[not(ancestor::mc:Fallback)]`` of word/document.xml, read with zipfile + lxml."""
    with zipfile.ZipFile(path) as zf:
        root = etree.fromstring(zf.read("word/document.xml"))
    return list(root.xpath("//w:p[not(ancestor::mc:Fallback)]", namespaces=NS))


_SKIP = {f"{{{W}}}del", f"{{{W}}}moveFrom", f"{{{MC}}}Fallback", f"{{{W}}}txbxContent", f"{{{W}}}instrText"}
_SPACES = {f"{{{W}}}tab", f"{{{W}}}br", f"{{{W}}}cr"}


def xml_paragraph_text(p: etree._Element) -> str:
    """Visible text of one paragraph straight from the XML: ``w:t`` (and tabs/breaks as spaces)
    not inside deleted runs, mc:Fallback copies or text boxes anchored in the paragraph."""
    out = []
    for el in p.iter(f"{{{W}}}t", *_SPACES):
        anc = el.getparent()
        hidden = False
        while anc is not None and anc is not p:
            if anc.tag in _SKIP:
                hidden = True
                break
            anc = anc.getparent()
        if not hidden:
            out.append((el.text or "") if el.tag == f"{{{W}}}t" else " ")
    return " ".join("".join(out).split())
