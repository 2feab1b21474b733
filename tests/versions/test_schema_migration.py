"""A schema-1 index (before versions) is migrated in place; other schemas are refused clearly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from docmunch.errors import SchemaVersionError
from docmunch.formats.base import Rendition
from docmunch.index import SCHEMA_VERSION, Index
from tests.versions.corpus import CHANGED, EXCLUDE

SHA = "0123456789abcdef0123456789abcdef01234567"


def _downgrade_to_schema_1(db: Path) -> None:
    """Turn a current database into exactly the schema-1 layout (repos without the version
    columns, no term index)."""
    conn = sqlite3.connect(db)
    for table in ("terms", "section_terms", "repo_stats", "fts_repos", "common_terms"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX repos_base")
    conn.execute("DROP INDEX sections_title_key")
    conn.execute("ALTER TABLE sections DROP COLUMN title_key")
    for column in ("base", "version", "ref", "commit_sha", "pinned"):
        conn.execute(f"ALTER TABLE repos DROP COLUMN {column}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    columns = [row[1] for row in conn.execute("PRAGMA table_info(repos)")]
    conn.close()
    assert columns == ["id", "name", "source", "indexed_at"]


def test_schema_1_index_is_migrated_in_place(
    fixtures_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = fixtures_dir / "corpora" / "rust-book"
    home = tmp_path / "home"
    with Index.open(home) as index:
        index.index_path(corpus, exclude=EXCLUDE)  # repo "rust-book"
        index.index_path(corpus / CHANGED, repo="old@1.2")  # a schema-1 name that reads as a version
        index.index_path(corpus / CHANGED, repo="oddname")  # renamed below to what schema 1 allowed
        gh = Rendition(b"# Gh\n\nFrom GitHub.\n", "markdown", meta={"github_repo": "o/n", "github_ref": "v1"})
        index.put_document("gh", "README.md", gh, source_hash="0" * 64, source=f"github:o/n@{SHA}")
        before = {s.id for s in index.toc("rust-book")}
        queries = ("ownership rules", "how do I share data between threads?", "Rc<T>")
        hits_before = {q: [(h.id, h.score) for h in index.search(q, repo="rust-book")] for q in queries}
        index.search("ownership", ranking="legacy")  # schema 1 had the rows of every repo
        legacy = [(h.id, h.score) for h in index.search("ownership", repo="rust-book", ranking="legacy")]
        assert all(hits_before.values()) and legacy
    _downgrade_to_schema_1(home / "index.sqlite3")
    conn = sqlite3.connect(home / "index.sqlite3")
    conn.execute("UPDATE repos SET name = 'odd@not a version' WHERE name = 'oddname'")
    conn.execute(
        "UPDATE sections SET sid = 'odd@not a version' || substr(sid, 8) WHERE sid LIKE 'oddname::%'"
    )
    conn.commit()
    conn.close()

    capsys.readouterr()
    with Index.open(home) as index:
        err = capsys.readouterr().err
        assert f"from schema 1 to {SCHEMA_VERSION}" in err and "index upgraded" in err
        infos = {r.repo: r for r in index.list_repos()}
        assert {s.id for s in index.toc("rust-book")} == before
        # The term index is rebuilt from the stored rows and bytes: the same hits, same scores.
        for q in queries:
            assert [(h.id, h.score) for h in index.search(q, repo="rust-book")] == hits_before[q]
        after = index.search("ownership", repo="rust-book", ranking="legacy")
        assert [(h.id, h.score) for h in after] == legacy
        assert index.search("Gh", repo="gh")[0].title == "Gh"
        assert (infos["rust-book"].name, infos["rust-book"].version) == ("rust-book", None)
        assert (infos["old@1.2"].name, infos["old@1.2"].version) == ("old", "1.2")
        assert index.resolve_repo("old") == "old@1.2"
        assert (infos["odd@not a version"].name, infos["odd@not a version"].version) == (
            "odd@not a version",
            None,
        )
        assert index.toc("odd@not a version")  # a legacy name keeps working by its exact name
        assert (infos["gh"].ref, infos["gh"].commit) == ("v1", SHA)
        assert index.verify_repo("rust-book").ok
    conn = sqlite3.connect(home / "index.sqlite3")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    with Index.open(home):  # migrated once: no message the second time
        assert capsys.readouterr().err == ""


def test_an_unknown_schema_is_refused_with_a_rebuild_hint(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Index.open(home).close()
    conn = sqlite3.connect(home / "index.sqlite3")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    needs = rf"schema 99, this docmunch needs {SCHEMA_VERSION}; move or delete"
    with pytest.raises(SchemaVersionError, match=needs):
        Index.open(home)
