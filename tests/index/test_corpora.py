"""Integration on the real corpora: every section verifies against the ORIGINAL files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from docmunch.index import Index

from .conftest import CORPORA, IndexedCorpora


def _corpus_md_files(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".md", ".markdown", ".txt") and p.name != "NOTICE.md"
    }


@pytest.mark.parametrize("name", CORPORA)
def test_corpus_indexes_every_file_without_errors(
    corpora: IndexedCorpora, corpus_index: Index, name: str
) -> None:
    report = corpora.reports[name]
    assert report.errors == ()
    assert report.docs_skipped == 0
    assert report.docs_indexed == len(_corpus_md_files(corpora.root / name))
    docs = {d.doc_path for d in corpus_index.list_docs(name)}
    assert docs == _corpus_md_files(corpora.root / name)
    assert report.sections == sum(d.sections for d in corpus_index.list_docs(name)) > report.docs_indexed


@pytest.mark.parametrize("name", CORPORA)
def test_every_section_hash_matches_the_original_file(
    corpora: IndexedCorpora, corpus_index: Index, name: str
) -> None:
    by_doc: dict[str, bytes] = {}
    sections = corpus_index.toc(name)
    assert sections
    for s in sections:
        data = by_doc.get(s.doc_path)
        if data is None:
            data = by_doc[s.doc_path] = (corpora.root / name / s.doc_path).read_bytes()
        assert hashlib.sha256(data[s.byte_start : s.byte_end]).hexdigest() == s.content_hash, s.id
    report = corpus_index.verify_repo(name)
    assert report.ok, report.mismatches[:3]
    assert report.sections_checked == len(sections)
    assert report.originals_checked == len(corpus_index.list_docs(name))


def test_crlf_corpus_keeps_crlf_in_the_cache(corpora: IndexedCorpora, corpus_index: Index) -> None:
    root = corpora.root / "ms-virt-api"
    crlf = [p for p in sorted(root.rglob("*.md")) if b"\r\n" in p.read_bytes() and p.name != "NOTICE.md"]
    assert crlf, "ms-virt-api is expected to contain CRLF files"
    doc_path = crlf[0].relative_to(root).as_posix()
    original = crlf[0].read_bytes()
    for s in corpus_index.toc("ms-virt-api", doc_path):
        read = corpus_index.get_section("ms-virt-api", s.id, verify=True)
        assert read.verified is True
        assert read.content.encode("utf-8") == original[s.byte_start : s.byte_end]
        assert read.doc_bytes == len(original)


def test_cjk_queries_find_k8s_zh_text(corpus_index: Index) -> None:
    for query in ("调度器", "调度", "节点", "容器运行时"):
        hits = corpus_index.search(query, repo="k8s-zh", limit=5)
        assert hits, query
        for h in hits:
            content = corpus_index.get_section("k8s-zh", h.id).content
            assert query in content or query in h.title, (query, h.id)


def test_exact_title_ranks_first(corpus_index: Index) -> None:
    hits = corpus_index.search("kubectl drain", repo="k8s-en", limit=5)
    assert hits[0].title == "kubectl drain"
    hits = corpus_index.search("what is ownership?", repo="rust-book", limit=3)
    assert hits[0].title == "What Is Ownership?"


def test_search_within_all_repos_and_filters(corpus_index: Index) -> None:
    everywhere = corpus_index.search("Pod", limit=50)
    assert {h.repo for h in everywhere} >= {"k8s-en", "k8s-zh"}
    scores = [h.score for h in everywhere]
    assert scores == sorted(scores, reverse=True)
    globbed = corpus_index.search("pod", repo="k8s-en", path_glob="tasks/*", limit=20)
    assert globbed and all(h.doc_path.startswith("tasks/") for h in globbed)
    levels = corpus_index.search("pod", repo="k8s-en", min_level=2, max_level=3, limit=20)
    assert levels and all(2 <= h.level <= 3 for h in levels)
    one_doc = globbed[0].doc_path
    assert all(h.doc_path == one_doc for h in corpus_index.search("pod", repo="k8s-en", doc_path=one_doc))


def test_toc_tree_nests_children_in_document_order(corpus_index: Index) -> None:
    doc = "ch04-01-what-is-ownership.md"
    flat = corpus_index.toc("rust-book", doc)
    tree = corpus_index.toc_tree("rust-book", doc)

    def walk(nodes: list[dict]) -> list[str]:
        out: list[str] = []
        for n in nodes:
            out.append(n["id"])
            out.extend(walk(n["children"]))
        return out

    assert walk(tree) == [s.id for s in flat]
    assert tree[0]["children"]


def test_section_context_and_locate(corpora: IndexedCorpora, corpus_index: Index) -> None:
    doc = "ch04-01-what-is-ownership.md"
    sections = corpus_index.toc("rust-book", doc)
    child = next(s for s in sections if s.level == 3)
    ctx = corpus_index.get_section_context("rust-book", child.id, max_tokens=800)
    assert ctx["section"]["id"] == child.id
    assert [b["id"] for b in ctx["breadcrumb"]] == [child.parent_id]
    assert ctx["tokens"] <= 800 or not ctx["following"]
    original = (corpora.root / "rust-book" / doc).read_bytes()
    for item in ctx["following"]:
        assert item["content"].encode() == original[item["byte_start"] : item["byte_end"]]
    where = corpus_index.locate("rust-book", child.id)
    assert Path(where["source_path"]) == (corpora.root / "rust-book" / doc).resolve()
    assert (where["byte_start"], where["byte_end"]) == (child.byte_start, child.byte_end)
