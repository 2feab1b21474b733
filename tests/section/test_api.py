"""Public surface, slugs, plain-text files, errors and summaries of docmunch.section."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import pytest

import docmunch.section as section_pkg
from docmunch.errors import ConvertError
from docmunch.section import (
    ParsedDocument,
    Section,
    section_id,
    slugify,
    split_markdown,
    split_text,
)
from docmunch.section.slug import Slugger, split_explicit_id

from .checks import check_invariants


def test_public_surface_matches_all() -> None:
    assert sorted(section_pkg.__all__) == [
        "HeadingSpec", "ParsedDocument", "Section", "section_id", "slugify", "split_at_headings",
        "split_markdown", "split_text",
    ]
    public = {name for name in vars(section_pkg) if not name.startswith("_")}
    # submodules are importable attributes; everything else public must be in __all__
    modules = {"model", "slug", "split", "plain", "frontmatter", "templates", "dialects", "html_headings",
               "outline", "blocks", "continuation"}
    assert public - modules == set(section_pkg.__all__)


def test_section_id_shape() -> None:
    assert section_id("k8s", "docs/a.md", "install/linux", 2) == "k8s::docs/a.md::install/linux#2"


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Hello World", "hello-world"),
        ("Foo & Bar", "foo--bar"),
        ("C++ (and C#)", "c-and-c"),
        ("snake_case-name", "snake_case-name"),
        ("  two  spaces ", "--two--spaces-"),
        ("安装 Kubernetes", "安装-kubernetes"),
        ("控制平面组件（Control Plane Components）", "控制平面组件control-plane-components"),
        ("Ünïcödé", "ünïcödé"),
        ("Ĳssel café", "ĳssel-café"),
        ("🚀 Launch 🎉", "-launch-"),
        ("v1.30.2", "v1302"),
        ("١٢٣ Arabic digits", "١٢٣-arabic-digits"),
        ("!!!", ""),
    ],
)
def test_slugify_github_rules(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_slugger_dedup_rule() -> None:
    slugger = Slugger()
    got = [slugger.unique(s) for s in ["a", "a", "a-1", "a", "a-2", "b"]]
    assert got == ["a", "a-1", "a-1-1", "a-2", "a-2-1", "b"]
    assert len(set(got)) == len(got)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Install {#setup}", ("Install", "setup")),
        ("Linux {#linux .tab key=v}", ("Linux", "linux")),
        ("Node 组件  {#node-components}", ("Node 组件", "node-components")),
        ("{{#include x.md}}", ("{{#include x.md}}", None)),
        ("Use {{< param x >}}", ("Use {{< param x >}}", None)),
        ("Set {a} here", ("Set {a} here", None)),
        ("Class only {.cls}", ("Class only {.cls}", None)),
    ],
)
def test_split_explicit_id(source: str, expected: tuple[str, str | None]) -> None:
    assert split_explicit_id(source) == expected


def test_split_text_one_level0_section() -> None:
    data = "\ufeffFirst line. Second.\r\nmore 中文\n".encode()
    doc = split_text(data, repo="r", doc_path="notes/read me.txt")
    assert doc.title is None
    assert doc.body_start == 3
    (sec,) = doc.sections
    assert sec.id == "r::notes/read me.txt::_preamble#0"
    assert (sec.level, sec.byte_start, sec.byte_end, sec.title) == (0, 3, len(data), "read me.txt")
    assert sec.summary == "First line."
    assert sec.content_hash == hashlib.sha256(data[3:]).hexdigest()
    check_invariants(doc, data)


@pytest.mark.parametrize("data", [b"", b"\n \r\n\t", b"\xef\xbb\xbf\n"])
def test_split_text_blank_has_no_sections(data: bytes) -> None:
    doc = split_text(data, repo="r", doc_path="a.txt")
    assert doc.sections == () and doc.body_start == len(data)


@pytest.mark.parametrize("split", [split_markdown, split_text])
@pytest.mark.parametrize(
    ("data", "where"),
    [(b"# A\n\xff\xfe\n", 4), (b"---\ntitle: \xe4\n---\n# A\n", 11), (b"# caf\xc3", 5)],
)
def test_invalid_utf8_is_convert_error(
    split: Callable[..., ParsedDocument], data: bytes, where: int
) -> None:
    with pytest.raises(ConvertError) as info:
        split(data, repo="r", doc_path="bad.md")
    assert info.value.path == "bad.md"
    assert "not valid UTF-8" in str(info.value) and f"byte {where}" in str(info.value)
    assert "\n" not in str(info.value)


def test_same_bytes_same_sections() -> None:
    data = b"# A\n\ntext\n\n## B\n\n# A\n"
    assert split_markdown(data, repo="r", doc_path="x.md") == split_markdown(data, repo="r", doc_path="x.md")


def test_records_are_frozen() -> None:
    doc = split_markdown(b"# A\n", repo="r", doc_path="x.md")
    assert isinstance(doc, ParsedDocument) and isinstance(doc.sections[0], Section)
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.sections[0].title = "B"  # type: ignore[misc]


def test_summary_skips_code_html_and_markup() -> None:
    data = (
        b"# A\n\n```sh\necho code.\n```\n\n<!-- a comment. -->\n\n"
        b"| t. | u |\n|---|---|\n| x | y |\n\n"
        b"Real *first* [sentence](http://x.io) `here`. Second one.\n"
    )
    (sec,) = split_markdown(data, repo="r", doc_path="x.md").sections
    assert sec.summary == "Real first sentence here."


def test_summary_cjk_sentence_and_length_cap() -> None:
    data = ("# 标题\n\n这是第一句。这是第二句。\n\n## Long\n\n" + "word " * 100 + "\n").encode()
    first, long = split_markdown(data, repo="r", doc_path="x.md").sections
    assert first.summary == "这是第一句。"
    assert len(long.summary) <= 200 and long.summary.endswith("word…")


def test_summary_is_own_body_only() -> None:
    doc = split_markdown(b"# A\n## B\nText of b.\n", repo="r", doc_path="x.md")
    assert [s.summary for s in doc.sections] == ["", "Text of b."]


def test_front_matter_values_are_json_friendly() -> None:
    data = b"---\ntitle: T\ndate: 2024-01-02\ntags: [a, b]\nnested: {when: 2024-01-02 03:04:05}\n---\n# H\n"
    doc = split_markdown(data, repo="r", doc_path="x.md")
    assert doc.front_matter == {
        "title": "T", "date": "2024-01-02", "tags": ["a", "b"], "nested": {"when": "2024-01-02T03:04:05"},
    }
    assert doc.title == "T"


def test_front_matter_list_is_empty_dict() -> None:
    doc = split_markdown(b"---\n- a\n- b\n---\n# H\n", repo="r", doc_path="x.md")
    assert doc.front_matter == {} and doc.body_start == 16


def test_front_matter_closed_on_last_line_without_newline() -> None:
    data = b"+++\ntitle = 'x'\n+++"
    doc = split_markdown(data, repo="r", doc_path="x.md")
    assert doc.front_matter == {"title": "x"} and doc.sections == () and doc.body_start == len(data)


def test_front_matter_with_crlf() -> None:
    data = b"---\r\ntitle: Win\r\n---\r\n# H\r\n"
    doc = split_markdown(data, repo="r", doc_path="x.md")
    assert doc.title == "Win" and doc.body_start == 22
    assert doc.sections[0].byte_start == 22 and data[22:23] == b"#"


def test_nul_byte_and_reference_links() -> None:
    data = b"# A\x00 [ref][r]\n\n[r]: http://x.io\n"
    (sec,) = split_markdown(data, repo="r", doc_path="x.md").sections
    assert sec.title == "A\ufffd ref"


def test_document_title_falls_back_to_first_h1() -> None:
    doc = split_markdown(b"## Intro\n# Main *title*\n# Other\n", repo="r", doc_path="x.md")
    assert doc.title == "Main title"
    assert split_markdown(b"## Only h2\n", repo="r", doc_path="x.md").title is None


def test_locator_and_preamble_anchor() -> None:
    doc = split_markdown(b"Intro\n# H\n", repo="r", doc_path="x.md")
    pre, head = doc.sections
    assert pre.anchor is None and pre.slug == "_preamble" and pre.locator is None
    assert head.anchor == "h" and head.slug == "h"
