"""Portable packs: export → import round trips, and every damaged pack refused with nothing imported."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docmunch.cli import main
from docmunch.errors import PackCorrupt, PackError, PackSchemaError, RepoExists, UnknownVersion
from docmunch.index import Index
from docmunch.index import rows as rows_module
from docmunch.index.pack import TRAILER_BYTES, TRAILER_MAGIC, logical_rows, pack_rows, rows_digest
from tests.versions.corpus import CHANGED, EXCLUDE, NEW_TERM, make_versions


@pytest.fixture(scope="module")
def trees(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_versions(fixtures_dir, tmp_path_factory.mktemp("pack-trees"))


@pytest.fixture(scope="module")
def source(trees: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with rust-book@1 and rust-book@2 (real corpus, edited second version)."""
    home = tmp_path_factory.mktemp("pack-src")
    with Index.open(home) as index:
        index.index_path(trees[0], version="1", exclude=EXCLUDE)
        index.index_path(trees[1], version="2", exclude=EXCLUDE)
    return home


@pytest.fixture(scope="module")
def pack(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packs") / "rust-book.dmpack"
    with Index.open(source) as index:
        report = index.export_pack("rust-book", out)
    assert report.repo == "rust-book@2" and report.pack_bytes == out.stat().st_size
    return out


@pytest.fixture(scope="module")
def small_pack(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-document pack, small enough to damage at many positions."""
    root = tmp_path_factory.mktemp("small")
    docs = root / "docs"
    docs.mkdir()
    corpus = fixtures_dir / "corpora" / "rust-book"
    for name in ("ch01-02-hello-world.md", "ch03-01-variables-and-mutability.md", "appendix-00.md"):
        (docs / name).write_bytes((corpus / name).read_bytes())
    out = root / "small.dmpack"
    with Index.open(root / "home") as index:
        index.index_path(docs, repo="small@1")
        index.export_pack("small@1", out)
    return out


def outline(index: Index, repo: str) -> list[tuple[str, str, int, int, str, str | None]]:
    return [
        (s.id, s.doc_path, s.byte_start, s.byte_end, s.content_hash, s.parent_id) for s in index.toc(repo)
    ]


def nothing_imported(home: Path) -> bool:
    with Index.open(home) as index:
        empty = index.list_repos() == []
    return empty and not [p for p in (home / "raw").rglob("*") if p.is_file()]


def test_round_trip_into_another_home(
    source: Path, pack: Path, trees: tuple[Path, Path], tmp_path: Path
) -> None:
    home = tmp_path / "other"
    with Index.open(tmp_path / "direct") as direct:  # v2 indexed here directly, alone
        direct.index_path(trees[1], version="2", exclude=EXCLUDE)
        queries = [f"{NEW_TERM} ownership", "ownership rules", "how do I borrow a value?"]
        want = [[(h.id, h.score) for h in direct.search(q, repo="rust-book")] for q in queries]
    with Index.open(home) as index:
        report = index.import_pack(pack)
        assert report.repo == "rust-book@2" and not report.replaced
        verify = index.verify_repo("rust-book@2")
        assert verify.ok and verify.sections_checked == report.sections
        # Search data was derived again on import: exactly the ranking of a direct index.
        assert [[(h.id, h.score) for h in index.search(q, repo="rust-book")] for q in queries] == want
        assert all(want)
        with Index.open(source) as original:
            assert outline(index, "rust-book") == outline(original, "rust-book@2")
            sid = f"rust-book@2::{CHANGED}::what-is-ownership#2"
            assert (
                index.get_section("rust-book", sid, verify=True).content
                == original.get_section("rust-book@2", sid).content
            )
            assert index.get_section("rust-book", sid, verify=True).verified is True
            info = next(r for r in index.list_repos() if r.repo == "rust-book@2")
            orig = next(r for r in original.list_repos() if r.repo == "rust-book@2")
            assert (info.source, info.version, info.docs, info.sections, info.indexed_at) == (
                orig.source, orig.version, orig.docs, orig.sections, orig.indexed_at,
            )  # fmt: skip  (the time it was indexed, not imported: "newest indexed" holds)

    def common(db: Path) -> list[str]:
        conn = sqlite3.connect(db)
        sql = "SELECT c.term FROM common_terms c JOIN repos r ON r.id = c.repo_id WHERE r.name = ? ORDER BY 1"
        terms = [row[0] for row in conn.execute(sql, ("rust-book@2",))]
        conn.close()
        return terms

    assert common(home / "index.sqlite3") == common(tmp_path / "direct" / "index.sqlite3") != []


def test_import_as_another_name_replace_and_refusals(source: Path, pack: Path, tmp_path: Path) -> None:
    home = tmp_path / "other"
    with Index.open(home) as index:
        index.import_pack(pack)
        with pytest.raises(RepoExists, match="--replace"):
            index.import_pack(pack)
        again = index.import_pack(pack, replace=True)
        assert again.replaced and [r.repo for r in index.list_repos()] == ["rust-book@2"]
        renamed = index.import_pack(pack, as_name="book@2.0")
        assert renamed.repo == "book@2.0"
        ids = [s.id for s in index.toc("book@2.0")]
        assert ids and all(i.startswith("book@2.0::") for i in ids)
        assert all(s.parent_id is None or s.parent_id.startswith("book@2.0::") for s in index.toc("book@2.0"))
        assert index.verify_repo("book@2.0").ok
        assert {h.repo for h in index.search(NEW_TERM, repo="book")} == {"book@2.0"}
    with Index.open(source) as original:
        with pytest.raises(PackError, match="--force"):
            original.export_pack("rust-book@1", pack)
        with pytest.raises(UnknownVersion):
            original.export_pack("rust-book@7", tmp_path / "x.dmpack")
        assert not (tmp_path / "x.dmpack").exists()


def test_cli_round_trip_with_verify_in_a_fresh_home(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "v1.dmpack"
    monkeypatch.setenv("DOCMUNCH_HOME", str(source))
    assert main(["export", "rust-book@1", "-o", str(out), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["repo"] == "rust-book@1" and exported["pack_bytes"] == out.stat().st_size
    assert exported["pack_bytes"] < exported["raw_bytes"]  # blobs are compressed
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "fresh"))
    assert main(["import", str(out)]) == 0
    assert "imported rust-book@1:" in capsys.readouterr().out
    assert main(["verify", "rust-book@1"]) == 0
    assert ", ok" in capsys.readouterr().out
    assert main(["search", "rust-book", "ownership rules", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["repo"] == "rust-book@1"
    assert main(["import", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :]


def _damaged(tmp_path: Path, data: bytes, name: str = "bad.dmpack") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_flipped_byte_in_a_blob_a_row_or_the_manifest_is_refused(pack: Path, tmp_path: Path) -> None:
    data = pack.read_bytes()
    conn = sqlite3.connect(f"file:{pack}?mode=ro", uri=True)
    blob = conn.execute("SELECT data FROM blobs ORDER BY size DESC LIMIT 1").fetchone()[0]
    rows = conn.execute("SELECT rows FROM docs ORDER BY length(rows) DESC LIMIT 1").fetchone()[0]
    source_ref = conn.execute("SELECT source_ref FROM docs LIMIT 1").fetchone()[0]
    conn.close()
    spots = {
        "blob": data.index(blob[100:164]) + 10,
        "section rows": data.index(rows[100:164]) + 10,
        "document row": data.index(source_ref.encode("utf-8")) + 5,
        "manifest": data.index(b'"rows_sha256": "') + 20,
    }
    home = tmp_path / "home"
    for what, at in spots.items():
        bad = _damaged(tmp_path, _flip(data, at), f"{what}.dmpack")
        with Index.open(home) as index, pytest.raises(PackCorrupt) as info:
            index.import_pack(bad)
        assert "nothing was imported" in str(info.value), what
        assert nothing_imported(home), what


def test_a_flipped_byte_anywhere_is_refused(small_pack: Path, tmp_path: Path) -> None:
    data = small_pack.read_bytes()
    home = tmp_path / "home"
    step = max(1, len(data) // 97)
    for at in [*range(0, len(data), step), len(data) - 1]:
        bad = _damaged(tmp_path, _flip(data, at))
        with Index.open(home) as index, pytest.raises(PackError):
            index.import_pack(bad)
    assert nothing_imported(home)
    with Index.open(home) as index:  # the undamaged pack itself imports
        assert index.import_pack(small_pack).docs == 3


def test_truncated_or_extended_pack_is_refused(pack: Path, tmp_path: Path) -> None:
    data = pack.read_bytes()
    home = tmp_path / "home"
    for size in (0, 10, 99, 100, 4096, len(data) // 2, len(data) - 1):
        bad = _damaged(tmp_path, data[:size])
        with Index.open(home) as index, pytest.raises(PackCorrupt, match="nothing was imported"):
            index.import_pack(bad)
        assert nothing_imported(home), size
    with Index.open(home) as index, pytest.raises(PackCorrupt, match="unexpected bytes"):
        index.import_pack(_damaged(tmp_path, data + b"\0" * 512))
    with Index.open(home) as index, pytest.raises(PackCorrupt, match="no SQLite header"):
        index.import_pack(_damaged(tmp_path, b"# not a pack\n" * 20))
    with Index.open(home) as index, pytest.raises(PackCorrupt, match="without the pack trailer"):
        index.import_pack(home / "index.sqlite3")
    assert nothing_imported(home)


def _rewrite(pack: Path, dest: Path, edit: Callable[[sqlite3.Connection, dict[str, Any]], None]) -> Path:
    """A copy of ``pack`` changed by ``edit(conn, manifest)`` through SQLite, then sealed again
    like export does (manifest sha256 and file trailer recomputed): only the inner checks can
    catch what ``edit`` did."""
    dest.write_bytes(pack.read_bytes()[:-TRAILER_BYTES])
    conn = sqlite3.connect(dest)
    conn.execute("PRAGMA journal_mode = DELETE")
    manifest = json.loads(conn.execute("SELECT value FROM pack WHERE key = 'manifest'").fetchone()[0])
    edit(conn, manifest)
    text = json.dumps(manifest, sort_keys=True)
    conn.execute("UPDATE pack SET value = ? WHERE key = 'manifest'", (text,))
    digest = hashlib.sha256(text.encode()).hexdigest()
    conn.execute("UPDATE pack SET value = ? WHERE key = 'manifest_sha256'", (digest,))
    conn.commit()
    conn.close()
    data = dest.read_bytes()
    dest.write_bytes(data + TRAILER_MAGIC + hashlib.sha256(data).digest())
    return dest


def _set_manifest(key: str, value: object) -> Callable[[sqlite3.Connection, dict[str, Any]], None]:
    """An ``edit`` for :func:`_rewrite` that sets ``manifest[key] = value``."""
    return lambda _conn, manifest: manifest.__setitem__(key, value)


def _rows_digest(conn: sqlite3.Connection) -> str:
    return rows_digest(logical_rows(conn).items())


def _edit_sections(conn: sqlite3.Connection, edit: Callable[[list[list[Any]]], None]) -> None:
    """Apply ``edit`` to the section rows of the pack's largest document, stored back compressed."""
    doc_path, packed = conn.execute(
        "SELECT doc_path, rows FROM docs ORDER BY length(rows) DESC LIMIT 1"
    ).fetchone()
    rows = json.loads(zlib.decompress(packed))
    edit(rows["sections"])
    conn.execute(
        "UPDATE docs SET rows = ? WHERE doc_path = ?", (pack_rows(rows["sections"], rows["blocks"]), doc_path)
    )


def test_pack_from_another_schema_is_refused(pack: Path, tmp_path: Path) -> None:
    for key, value in (("schema_version", 1), ("pack_format", 2)):
        copy = _rewrite(pack, tmp_path / f"{key}.dmpack", _set_manifest(key, value))
        with Index.open(tmp_path / "home") as index, pytest.raises(PackSchemaError) as info:
            index.import_pack(copy)
        assert "export it again with a matching docmunch" in str(info.value)
    assert nothing_imported(tmp_path / "home")


@pytest.mark.parametrize("schema", [4, 5])
def test_pack_from_an_older_schema_with_the_same_packed_tables_imports(
    pack: Path, tmp_path: Path, schema: int
) -> None:
    """Schemas 4 to 6 changed only derived tables (term index, title keys, common terms), so
    a pack the previous releases wrote still imports and searches like a fresh one."""
    copy = _rewrite(pack, tmp_path / f"schema-{schema}.dmpack", _set_manifest("schema_version", schema))
    with Index.open(tmp_path / "home") as index:
        report = index.import_pack(copy)
        assert index.verify_repo(report.repo).ok
        assert index.search("how do I borrow a value?", repo=report.repo)


def _retitle(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    _edit_sections(conn, lambda rows: rows[1].__setitem__(2, rows[1][2] + "!"))


def _swap_blob(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    digest, size = conn.execute("SELECT sha256, size FROM blobs LIMIT 1").fetchone()
    other = b"x" * size
    conn.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (zlib.compress(other), digest))


def _move_range(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    _edit_sections(conn, lambda rows: rows[1].__setitem__(6, rows[1][6] + 1))  # byte_start
    manifest["rows_sha256"] = _rows_digest(conn)  # consistent rows that lie about the bytes


def _drop_blob(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    digest = conn.execute("SELECT sha256 FROM blobs LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM blobs WHERE sha256 = ?", (digest,))


def _foreign_id(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    _edit_sections(conn, lambda rows: rows[1].__setitem__(1, "other::" + rows[1][1]))
    manifest["rows_sha256"] = _rows_digest(conn)


def _bomb(conn: sqlite3.Connection, manifest: dict[str, Any]) -> None:
    conn.execute("UPDATE docs SET rows = ? WHERE rowid = 1", (zlib.compress(b"[" * (65 * 2**20)),))


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_retitle, "rows do not match"),
        (_swap_blob, "does not match its sha256"),
        (_move_range, "wrong content_hash"),
        (_drop_blob, "not the ones the manifest lists"),
        (_foreign_id, "does not belong to repo"),
        (_bomb, "larger than"),
    ],
)
def test_resealed_inconsistent_packs_fail_the_inner_checks(
    small_pack: Path, tmp_path: Path, edit: Callable[[sqlite3.Connection, dict[str, Any]], None], why: str
) -> None:
    bad = _rewrite(small_pack, tmp_path / "resealed.dmpack", edit)
    with Index.open(tmp_path / "home") as index, pytest.raises(PackCorrupt, match=why):
        index.import_pack(bad)
    assert nothing_imported(tmp_path / "home")


def test_a_failure_while_loading_leaves_nothing_behind(
    small_pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = rows_module.write_doc
    calls = {"n": 0}

    def failing(
        conn: sqlite3.Connection, repo_id: int, doc: object, terms: object, *, legacy: bool
    ) -> list[str]:
        calls["n"] += 1
        if calls["n"] == 3:
            raise sqlite3.OperationalError("disk I/O error (injected)")
        return real(conn, repo_id, doc, terms, legacy=legacy)  # type: ignore[arg-type]

    monkeypatch.setattr(rows_module, "write_doc", failing)
    home = tmp_path / "home"
    with Index.open(home) as index, pytest.raises(sqlite3.OperationalError):
        index.import_pack(small_pack)
    assert calls["n"] == 3 and nothing_imported(home)


def _docmunch(home: Path, cwd: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "docmunch.cli", *argv], env=env, cwd=cwd, input=stdin, capture_output=True,
        check=False,
    )  # fmt: skip


def test_dash_is_standard_output_for_export_and_standard_input_for_import(tmp_path: Path) -> None:
    folder, home = tmp_path / "docs", tmp_path / "home"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text about packs.\n")
    assert _docmunch(home, tmp_path, "index", str(folder), "--repo", "docs").returncode == 0
    exported = _docmunch(home, tmp_path, "export", "docs", "-o", "-", "--json")
    assert exported.returncode == 0 and exported.stdout.startswith(b"SQLite format 3\x00")
    assert json.loads(exported.stderr)["path"] == "-"  # stdout holds the pack and nothing else
    assert not (tmp_path / "-").exists()
    pack = exported.stdout
    imported = _docmunch(tmp_path / "other", tmp_path, "import", "-", "--json", stdin=pack)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["repo"] == "docs" and json.loads(imported.stdout)["path"] == "-"
    assert _docmunch(tmp_path / "other", tmp_path, "verify", "docs").returncode == 0
    for bad, why in [
        (pack + b"x", "unexpected bytes after its end"),
        (pack[:5000], f"truncated: 5000 of {len(pack)} bytes"),
        (b"not a pack\n", "no SQLite header"),
    ]:
        refused = _docmunch(tmp_path / "third", tmp_path, "import", "-", stdin=bad)
        assert refused.returncode == 1
        said = refused.stderr.decode()
        assert said.startswith(f"docmunch: standard input is not an intact docmunch pack ({why}")
        assert not [p for p in (tmp_path / "third").iterdir() if p.name.startswith(".tmp-pack-")]


def test_export_to_a_terminal_is_refused(
    source: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCMUNCH_HOME", str(source))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["export", "rust-book@1", "-o", "-"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.startswith("docmunch export: -o - writes a binary pack to standard output")
