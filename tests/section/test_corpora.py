"""The sectioner on real documentation trees (``$DOCMUNCH_FIXTURES/corpora/*``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.section import split_markdown

from .checks import check_invariants

CORPORA = ["k8s-en", "k8s-zh", "ms-virt-api", "rust-book"]


def _markdown_files(root: Path) -> list[Path]:
    files = [
        path for path in sorted(root.rglob("*"))
        if path.suffix in {".md", ".markdown"} and path.is_file()
        and path.name != "NOTICE.md" and not path.name.startswith("LICENSE")
    ]
    assert files, f"no Markdown files under {root}"
    return files


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_file_splits_exactly(fixtures_dir: Path, corpus: str) -> None:
    root = fixtures_dir / "corpora" / corpus
    total = 0
    for path in _markdown_files(root):
        data = path.read_bytes()
        doc_path = path.relative_to(root).as_posix()
        doc = split_markdown(data, repo=corpus, doc_path=doc_path)
        try:
            check_invariants(doc, data)
        except AssertionError as exc:
            raise AssertionError(f"{corpus}/{doc_path}: {exc}") from exc
        for section in doc.sections:
            assert section.id.startswith(f"{corpus}::{doc_path}::")
            if section.level:
                # a heading's range starts at its own line: optional indentation, then # or text
                head = data[section.byte_start : section.byte_end].lstrip(b" ")
                assert head[:1] not in (b"", b"\r", b"\n"), f"{section.id} starts on a blank line"
        total += len(doc.sections)
    assert total > 100


def test_k8s_zh_comment_headings_are_not_sections(fixtures_dir: Path) -> None:
    path = fixtures_dir / "corpora" / "k8s-zh" / "overview" / "components.md"
    data = path.read_bytes()
    doc = split_markdown(data, repo="zh", doc_path="overview/components.md")
    assert doc.title == "Kubernetes 组件"
    headings = [(s.level, s.title, s.anchor, s.line) for s in doc.sections if s.level]
    # read off the file by hand: the English originals (lines 40, 50, 89, 127, 161, 1-based)
    # sit inside <!-- --> comments; only the Chinese headings are sections.
    assert headings == [
        (2, "核心组件", "核心组件", 44),
        (2, "控制平面组件（Control Plane Components）", "control-plane-components", 68),
        (2, "Node 组件", "node-components", 103),
        (2, "插件（Addons）", "addons", 130),
        (2, "架构灵活性", "flexibility-in-architecture", 169),
    ]
    for section in doc.sections[1:]:
        assert data[section.byte_start : section.byte_start + 3] == b"## "
    assert doc.sections[0].level == 0  # the translated intro before the first heading


def test_ms_virt_api_crlf_offsets(fixtures_dir: Path) -> None:
    path = fixtures_dir / "corpora" / "ms-virt-api" / "hcs" / "SchemaOverview.md"
    data = path.read_bytes()
    assert b"\r\n" in data
    doc = split_markdown(data, repo="ms", doc_path="hcs/SchemaOverview.md")
    # by hand (od -c): the front matter's closing "---\r\n" ends at byte 288; line 18 (1-based)
    # "# Schema Overview\r\n" is 19 bytes, then an empty "\r\n" line, then "## Schema-based ..." at 309.
    assert doc.title == "Schema Overview" and doc.body_start == 288
    first, second = doc.sections[0], doc.sections[1]
    assert (first.level, first.title, first.byte_start, first.byte_end, first.line) == (
        1, "Schema Overview", 288, 309, 17,
    )
    assert data[first.byte_start : first.byte_start + 1] == b"#"
    assert (second.level, second.title, second.byte_start) == (2, "Schema-based Configuration", 309)
    assert data[309:340].startswith(b"## Schema-based Configuration\r\n")
    assert second.parent_id == first.id


def test_k8s_en_front_matter_and_levels(fixtures_dir: Path) -> None:
    data = (fixtures_dir / "corpora" / "k8s-en" / "test.md").read_bytes()
    doc = split_markdown(data, repo="k8s", doc_path="test.md")
    assert doc.title == "Docs smoke test page"
    assert doc.front_matter["main_menu"] is False
    by_title = {s.title: s for s in doc.sections}
    assert by_title["Heading levels"].level == 2
    assert by_title["H3"].parent_id == by_title["Heading levels"].id
    assert by_title["H4"].id == "k8s::test.md::heading-levels/h3/h4#4"
    assert doc.sections[0].level == 0 and doc.sections[0].summary == "This page serves two purposes:"


def test_crlf_files_match_their_lf_versions(fixtures_dir: Path) -> None:
    """Every CRLF file of ms-virt-api: same outline as its LF copy, offsets shifted by the CRs."""
    root = fixtures_dir / "corpora" / "ms-virt-api"
    crlf_files = [p for p in _markdown_files(root) if b"\r\n" in p.read_bytes()]
    assert len(crlf_files) >= 10
    for path in crlf_files:
        data = path.read_bytes()
        lf = data.replace(b"\r\n", b"\n")
        doc_path = path.relative_to(root).as_posix()
        crlf_doc = split_markdown(data, repo="ms", doc_path=doc_path)
        lf_doc = split_markdown(lf, repo="ms", doc_path=doc_path)
        assert [(s.id, s.title, s.line) for s in crlf_doc.sections] == [
            (s.id, s.title, s.line) for s in lf_doc.sections
        ], doc_path
        for a, b in zip(crlf_doc.sections, lf_doc.sections, strict=True):
            assert a.byte_start - data.count(b"\r\n", 0, a.byte_start) == b.byte_start, a.id
            assert a.byte_end - data.count(b"\r\n", 0, a.byte_end) == b.byte_end, a.id
