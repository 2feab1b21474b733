"""The term index: schema-2 indexes migrate in place, edits keep the postings exact, two
writers never lose terms."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from docmunch.index import SCHEMA_VERSION, Index
from docmunch.index.postings import read_postings, unpack_postings

HERE = Path(__file__).parent / "fixtures"
QUERIES = ("how do I share data between threads?", "调度器挑选节点时分为哪两个阶段", "kubectl apply", "库")

_SCHEMA_2_TERMS = """
CREATE TABLE terms (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, term TEXT NOT NULL,
    df INTEGER NOT NULL, UNIQUE (repo_id, term));
CREATE TABLE postings (term_id INTEGER NOT NULL, impact INTEGER NOT NULL, section_id INTEGER NOT NULL,
    PRIMARY KEY (term_id, impact DESC, section_id)) WITHOUT ROWID;
CREATE TABLE section_terms (section_id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, prior REAL NOT NULL,
    terms BLOB NOT NULL);
CREATE TABLE repo_stats (repo_id INTEGER PRIMARY KEY, sections INTEGER NOT NULL);
"""
"""The term tables of schema 2 (the first question-search release)."""


def _hits(index: Index) -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in QUERIES}


def _to_schema_2(db: Path) -> None:
    """Replace the term index by schema 2's tables holding one stale row, as that release left it."""
    conn = sqlite3.connect(db)
    for table in ("terms", "postings", "section_terms", "repo_stats", "fts_repos", "common_terms"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX sections_title_key")
    conn.execute("ALTER TABLE sections DROP COLUMN title_key")
    conn.executescript(_SCHEMA_2_TERMS)
    conn.execute("INSERT INTO terms(repo_id, term, df) VALUES (1, 'stale', 1)")  # schema 2 had df
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()


def _postings(db: Path) -> dict[tuple[int, str], tuple[int, list[int], list[int]]]:
    conn = sqlite3.connect(db)
    terms = conn.execute("SELECT id, repo_id, term FROM terms").fetchall()
    blobs = read_postings(conn, [t[0] for t in terms])
    out = {}
    for tid, repo_id, term in terms:
        if tid in blobs:
            sections, docs = (unpack_postings(b)[0].tolist() for b in blobs[tid])
            out[(repo_id, term)] = (len(sections), sections, docs)
    segments = conn.execute("SELECT count(*), count(DISTINCT term_id) FROM postings").fetchone()
    conn.close()
    assert segments[0] == segments[1]  # compacted: one segment per term after a run
    return out


def test_schema_2_index_is_migrated_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        before = _hits(index)
        legacy = [h.id for h in index.search("threads", repo="spec", ranking="legacy")]  # schema 2 had them
    assert all(before[q] for q in QUERIES) and legacy
    _to_schema_2(home / "index.sqlite3")
    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert f"from schema 2 to {SCHEMA_VERSION}" in err and "index upgraded" in err
        assert _hits(index) == before
        assert [h.id for h in index.search("threads", repo="spec", ranking="legacy")] == legacy
    conn = sqlite3.connect(home / "index.sqlite3")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM terms WHERE term = 'stale'").fetchone()[0] == 0
    columns = [row[1] for row in conn.execute("PRAGMA table_info(postings)")]
    assert columns == ["id", "term_id", "sections", "docs"]
    conn.close()


def test_schema_4_index_gains_title_keys_and_new_priors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 4 had no ``title_key`` and ranked link lists as content: the upgrade fills the
    keys and rebuilds the terms, so the index searches like a fresh one (``what is a Pod?``
    finds the section titled ``Pods``)."""
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        queries = (*QUERIES, "what is a Pod?", "什么是 Pod？", "pod lifecycle phase of containers")
        fresh = {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in queries}
    db = home / "index.sqlite3"
    conn = sqlite3.connect(db)
    keys = conn.execute("SELECT id, title_key FROM sections ORDER BY id").fetchall()
    conn.execute("DROP INDEX sections_title_key")
    conn.execute("ALTER TABLE sections DROP COLUMN title_key")
    conn.execute("UPDATE section_terms SET prior = 1.0")  # schema 4's priors differed
    conn.execute("DROP TABLE common_terms")
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert f"from schema 4 to {SCHEMA_VERSION}" in err and "rebuilding the search terms" in err
        assert {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in queries} == fresh
        assert index.search("what is a Pod?", repo="spec")[0].title == "Pods"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT id, title_key FROM sections ORDER BY id").fetchall() == keys
    assert conn.execute("SELECT count(*) FROM fts_repos").fetchone()[0] == 0  # schema 4's list kept
    conn.close()


def test_schema_5_index_gains_common_terms_without_a_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 5 had no ``common_terms``: the upgrade fills them from the stored postings (no
    term rebuild), so ``what is overhead`` finds the page titled ``Pod overhead`` again."""
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        queries = (*QUERIES, "what is overhead", "what is a Pod?")
        fresh = {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in queries}
    db = home / "index.sqlite3"
    conn = sqlite3.connect(db)
    common = conn.execute("SELECT repo_id, term FROM common_terms ORDER BY 1, 2").fetchall()
    assert common == [(1, "pod")]  # in 7 of the 11 pages, and in the titles "Pods", "Pod overhead"
    conn.execute("DROP TABLE common_terms")
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert f"from schema 5 to {SCHEMA_VERSION}" in err and "rebuilding" not in err
        assert {q: [(h.id, h.score) for h in index.search(q, repo="spec")] for q in queries} == fresh
        assert index.search("what is overhead", repo="spec")[0].title == "Pod overhead"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT repo_id, term FROM common_terms ORDER BY 1, 2").fetchall() == common
    conn.close()


def test_migration_names_documents_whose_bytes_are_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(HERE / "search-corpus", repo="spec")
        raw_hash = index.document_state("spec", "zh/scheduler.md").raw_hash  # type: ignore[union-attr]
    _to_schema_2(home / "index.sqlite3")
    (home / "raw" / raw_hash[:2] / raw_hash).unlink()
    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert "1 documents whose stored bytes are missing" in err and "spec::zh/scheduler.md" in err
        assert index.search("how do I share data between threads?", repo="spec")  # the others work
        assert index.toc("spec", "zh/scheduler.md")  # its sections stay listed


def test_edits_keep_postings_equal_to_a_fresh_index(tmp_path: Path) -> None:
    """Replacing and removing documents edits the blobs exactly as indexing from scratch would."""
    docs = tmp_path / "docs"
    shutil.copytree(HERE / "search-corpus", docs)
    edited = Index.open(tmp_path / "edited")
    edited.index_path(docs, repo="spec")
    (docs / "en" / "concurrency.md").write_text("# Threads\n\nA new text about threads and channels.\n")
    (docs / "en" / "kubectl-apply.md").unlink()
    edited.index_path(docs, repo="spec")
    fresh = Index.open(tmp_path / "fresh")
    fresh.index_path(docs, repo="spec")
    edited.close()
    fresh.close()

    def by_content(home: Path) -> dict[str, tuple[int, int, int]]:
        conn = sqlite3.connect(home / "index.sqlite3")
        sids = dict(conn.execute("SELECT id, sid FROM sections"))
        paths = dict(conn.execute("SELECT id, doc_path FROM docs"))
        conn.close()
        out = {}
        for (_, term), (df, sections, doc_ids) in _postings(home / "index.sqlite3").items():
            out[term] = (df, len(sections), len({paths[d] for d in doc_ids}))
            assert len(set(sections)) == len(sections) and all(s in sids for s in sections)
        return out

    assert by_content(tmp_path / "edited") == by_content(tmp_path / "fresh")

    def common(home: Path) -> list[str]:
        conn = sqlite3.connect(home / "index.sqlite3")
        terms = [row[0] for row in conn.execute("SELECT term FROM common_terms ORDER BY term")]
        conn.close()
        return terms

    assert common(tmp_path / "edited") == common(tmp_path / "fresh") == ["pod"]


def test_two_writers_keep_every_term(tmp_path: Path) -> None:
    """Two processes' worth of stores (two Index objects, own term-id caches) writing one repo."""
    home = tmp_path / "home"
    a, b = Index.open(home), Index.open(home)
    from docmunch.formats.base import Rendition

    errors: list[BaseException] = []

    def write(index: Index, prefix: str) -> None:
        try:
            for i in range(12):
                text = f"# {prefix} page {i}\n\nUnique{prefix}{i} words about {prefix}topic.\n".encode()
                rendition = Rendition(text, "markdown")
                index.put_document("r", f"{prefix}/{i}.md", rendition, source_hash=f"{i:064d}", source="test")
        except BaseException as exc:  # a thread's exception is otherwise only a warning
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(ix, p)) for ix, p in ((a, "alpha"), (b, "beta"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for prefix in ("alpha", "beta"):
        for i in range(12):
            hits = a.search(f"unique{prefix}{i}", repo="r")
            assert [h.doc_path for h in hits] == [f"{prefix}/{i}.md"]
        assert len(b.search(f"{prefix}topic", repo="r", limit=50)) == 12
    a.close()
    b.close()


def test_documents_without_a_searchable_word(tmp_path: Path) -> None:
    """Sections made only of stop words or punctuation index (no postings) and stay listed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nIt is what it is.\n")
    (docs / "b.md").write_text("# Widgets\n\nWidgets are small.\n")
    with Index.open(tmp_path / "home") as index:
        report = index.index_path(docs, repo="r")
        assert report.errors == () and report.docs_indexed == 2
        assert [h.doc_path for h in index.search("widgets", repo="r")] == ["b.md"]
        assert index.search("what is it", repo="r") == []
        assert [s.title for s in index.toc("r", "a.md")] == ["A"]
        (docs / "a.md").unlink()
        assert index.index_path(docs, repo="r").docs_removed == 1
