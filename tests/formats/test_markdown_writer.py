"""Escaping and offsets of the Markdown writer, checked against markdown-it-py (CommonMark)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from docmunch.formats.markdown_writer import MarkdownWriter, escape_inline, escape_line_start, normalize_ws

_MD = MarkdownIt("commonmark")
# printable text with Markdown punctuation and CJK; no "&" (entity references are decoded by
# CommonMark, §6.2, and the renderers never see them: XML/PDF text is already decoded)
_TEXT = st.text(
    alphabet=st.sampled_from(list("abc XYZ 123 #*_-+=>`[]()<>|!~.:;\\\t\n设备维护。")),
    min_size=1,
    max_size=40,
)


def _plain(markdown: str) -> tuple[list[str], str]:
    tokens = _MD.parse(markdown)
    kinds = [t.type for t in tokens]
    inline = next((t for t in tokens if t.type == "inline"), None)
    text = "".join(c.content if c.type == "text" else " " for c in (inline.children or [])) if inline else ""
    return kinds, text


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_escaped_paragraph_is_one_plain_paragraph(raw: str) -> None:
    text = normalize_ws(raw)
    if not text:
        return
    kinds, plain = _plain(escape_line_start(escape_inline(text)))
    assert kinds == ["paragraph_open", "inline", "paragraph_close"]
    assert plain == text


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6))
def test_block_offsets_slice_the_output(texts: list[str]) -> None:
    writer = MarkdownWriter()
    for i, raw in enumerate(texts):
        md = escape_line_start(escape_inline(normalize_ws(raw) or "x"))
        writer.unit(md, kind="paragraph", text=raw, tight=i % 2 == 1)
    data = writer.getvalue()
    for block, raw in zip(writer.blocks, texts, strict=True):
        assert data[block.md_start : block.md_end].decode("utf-8") == escape_line_start(
            escape_inline(normalize_ws(raw) or "x")
        )
