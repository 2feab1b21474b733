"""Files deleted from an indexed folder leave the index in one transaction, and the index they
leave equals a fresh index of the files that remain: sections, the term index (postings,
section terms, statistics, common terms) and search results.

A user's report: deleting 1,000 of k8s-en's 1,434 files and re-indexing took ~16 s, twice a
cold index of the whole folder, because each removed document was its own transaction and
its own pass over the postings of its terms (docs/decisions.md, "Removing documents").
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from docmunch.index import Index
from docmunch.index.indexer import index_path
from docmunch.index.postings import unpack_postings
from docmunch.index.store import Store

pytestmark = pytest.mark.timeout(300)

FILES = 640
"""Generated files; more are removed than one ``IN (…)`` chunk of the store holds (500)."""
KEPT = {i for i in range(FILES) if i % 9 == 4 or i in (0, 1, FILES - 1)}
"""The files that stay (the rest are deleted)."""
QUERIES = ("topic alpha", "shared words", "w17x w33x", "section four", "zeta", "common term kubelet")


def _corpus(root: Path) -> Path:
    """``FILES`` Markdown files: headings, words every file shares, words a few share."""
    for i in range(FILES):
        folder = root / f"part{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        body = [f"# Topic {i} {'alpha' if i % 3 == 0 else 'zeta'}\n\nShared words about kubelet.\n"]
        for h in range(4):
            words = " ".join(f"w{(i * 13 + h * 7 + k * 5) % 400}x" for k in range(12))
            body.append(f"## Section {['one', 'two', 'three', 'four'][h]} of {i}\n\n{words}. common term\n")
        (folder / f"doc-{i:04d}.md").write_text("\n".join(body), encoding="utf-8")
    return root


def _state(home: Path) -> dict[str, Any]:
    """Everything the repo's search reads, keyed by stable names (ids of rows differ between a
    re-index and a fresh index; terms without postings are left out)."""
    with sqlite3.connect(home / "index.sqlite3") as conn:
        docs = dict(conn.execute("SELECT id, doc_path FROM docs"))
        sections = {
            sid: (docs[doc_id], *rest)
            for sid, doc_id, *rest in conn.execute(
                "SELECT sid, doc_id, ord, title, level, parent_sid, byte_start, byte_end, subtree_end, "
                "content_hash, summary, token_estimate, title_key FROM sections"
            )
        }
        sid_of = dict(conn.execute("SELECT id, sid FROM sections"))
        term_of = dict(conn.execute("SELECT id, term FROM terms"))
        postings: defaultdict[str, set[tuple[str, str, int]]] = defaultdict(set)
        for term_id, section_blob, doc_blob in conn.execute("SELECT term_id, sections, docs FROM postings"):
            for kind, owners, blob in (("s", sid_of, section_blob), ("d", docs, doc_blob)):
                ids, impacts = unpack_postings(blob)
                postings[term_of[term_id]].update(
                    (kind, owners[int(i)], int(x)) for i, x in zip(ids, impacts, strict=True)
                )
        forward = {}
        for section_id, prior, blob in conn.execute("SELECT section_id, prior, terms FROM section_terms"):
            ids, impacts = unpack_postings(blob)
            pairs = zip(ids.tolist(), impacts.tolist(), strict=True)
            forward[sid_of[section_id]] = (prior, sorted((term_of[t], x) for t, x in pairs))
        return {
            "docs": sorted(docs.values()),
            "sections": sections,
            "postings": {term: sorted(p) for term, p in postings.items() if p},
            "section_terms": forward,
            "repo_stats": conn.execute("SELECT sections FROM repo_stats").fetchall(),
            "common_terms": sorted(conn.execute("SELECT term FROM common_terms")),
            "raw_files": sorted(conn.execute("SELECT DISTINCT raw_hash FROM docs")),
        }


def _results(home: Path) -> list[list[tuple[str, float]]]:
    with Index.open(home) as index:
        hits = [index.search(q, repo="docs", limit=20) for q in QUERIES]
    return [[(hit.id, round(hit.score, 9)) for hit in found] for found in hits]


def test_removed_files_leave_in_one_transaction_as_if_never_indexed(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "docs")
    home = tmp_path / "home"
    with Index.open(home) as index:
        assert index.index_path(corpus).docs_indexed == FILES
    for i in range(FILES):
        if i not in KEPT:
            (corpus / f"part{i % 7}" / f"doc-{i:04d}.md").unlink()

    store = Store(home)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        report = index_path(store, corpus)
    finally:
        store.conn.set_trace_callback(None)
        store.close()
    removed = FILES - len(KEPT)
    assert (report.docs_indexed, report.docs_unchanged, report.docs_removed) == (0, len(KEPT), removed)
    # one transaction removes them all (+ its raw-file clean-up, compaction and the repo's time):
    # one per document (twice, with the clean-up) before
    assert sum(s.strip().upper() == "BEGIN IMMEDIATE" for s in statements) <= 4, len(statements)

    fresh_corpus = tmp_path / "fresh" / "docs"
    shutil.copytree(corpus, fresh_corpus)
    fresh = tmp_path / "fresh-home"
    with Index.open(fresh) as index:
        assert index.index_path(fresh_corpus).docs_indexed == len(KEPT)

    after, expected = _state(home), _state(fresh)
    assert after["docs"] == expected["docs"] and len(after["docs"]) == len(KEPT)
    for key in ("sections", "postings", "section_terms", "repo_stats", "common_terms", "raw_files"):
        assert after[key] == expected[key], key
    expected_hits = _results(fresh)
    assert all(expected_hits), expected_hits  # every query finds something
    assert _results(home) == expected_hits
    raw_files = {p.name for p in (home / "raw").rglob("*") if p.is_file()}
    assert raw_files == {h for (h,) in after["raw_files"]}  # the removed documents' bytes are gone
