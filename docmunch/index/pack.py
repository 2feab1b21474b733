"""Portable index packs: one repo as one self-contained SQLite file (``docmunch export``).

A pack is a SQLite database (rollback journal, no WAL: a single file) followed by a
:data:`TRAILER_BYTES`-byte trailer: :data:`TRAILER_MAGIC` and the sha256 of every byte before
it, so a change to any byte of the file (even one SQLite would not read) or a cut-short file is
refused. SQLite ignores the trailer (the header's page count says where the database ends), so
a pack still opens read-only in any SQLite tool. The database holds five tables:

- ``pack(key, value)``: ``manifest`` (JSON text) and ``manifest_sha256`` (sha256 hex of it);
- ``docs``: one row per document (its ``doc_path``, title, source kind and reference, source
  and raw sha256, size, meta) whose ``rows`` column holds its ``sections`` and ``blocks`` rows
  as zlib-compressed JSON (``{"sections": [[ord, sid, title, …]], "blocks": [[ord, …]]}``,
  columns as :data:`TABLES`; section ids as stored, ``{repo}::{doc_path}::{slug_path}#{level}``):
  ids and summaries repeat a lot, so this is ~4× smaller than plain tables;
- ``blobs(sha256, size, codec, data)``: every stored document's bytes, zlib-compressed
  (``codec = "zlib"``), keyed by the sha256 of the *uncompressed* bytes.

The manifest records the pack format (:data:`PACK_FORMAT`), the index schema
(:data:`~docmunch.index.schema.SCHEMA_VERSION`), the docmunch version, the repo (full name,
source, git ref and commit, indexed-at), row counts, every blob's sha256 and size, and
``rows_sha256``: the sha256 of the canonical text of every row (:func:`rows_digest`). Search
data is deliberately *not* packed: :mod:`docmunch.index.pack_import` derives it again through
the indexer's own :func:`docmunch.index.document.section_rows`, so packs do not depend on the
FTS tokenizer in use.

What the hashes protect: an accidental change (a flipped byte, a cut-short download, a
half-copied file) anywhere that matters is refused on import. They are not a signature: who
can rewrite a pack can recompute them; share packs over a channel you trust.

Export reads the repo in one read transaction (a concurrent writer cannot mix two states
into one pack), checks every cached blob against its sha256, writes a temporary file next to
the target, fsyncs it and renames it into place: a pack file is complete or absent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import tempfile
import time
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docmunch import __version__
from docmunch.errors import IndexStoreError, PackError
from docmunch.index.records import PackReport
from docmunch.index.rows import utc_now
from docmunch.index.schema import SCHEMA_VERSION
from docmunch.index.store import Store
from docmunch.index.versions import RepoRow

__all__ = [
    "BLOB_LEVEL",
    "DOC_COLUMNS",
    "FORMAT_NAME",
    "MAX_BLOB_BYTES",
    "PACK_FORMAT",
    "TABLES",
    "TRAILER_BYTES",
    "TRAILER_MAGIC",
    "export_pack",
    "logical_rows",
    "rows_digest",
]

FORMAT_NAME = "docmunch-pack"
"""``manifest["format"]``: what the file is."""
PACK_FORMAT = 1
"""Layout of the pack tables; bumped when they change (independent of the index schema)."""
BLOB_LEVEL = 6
"""zlib level of packed blobs (zlib's default: ~4× smaller docs text at ~40 MB/s per core)."""
MAX_BLOB_BYTES = 256 * 2**20
"""Largest document (bytes, uncompressed) a pack may hold: a bound on what import inflates."""
MAX_ROWS_BYTES = 64 * 2**20
"""Largest ``rows`` JSON of one document (bytes, uncompressed): a bound on what import inflates."""
TRAILER_MAGIC = b"DMPACK1\x00"
"""First 8 bytes of the trailer after the SQLite database."""
TRAILER_BYTES = len(TRAILER_MAGIC) + 32
"""Trailer size: the magic, then the raw 32-byte sha256 of the database bytes before it."""

DOC_COLUMNS = ("doc_path", "title", "source_kind", "source_ref", "source_hash", "raw_hash", "bytes", "meta")
SECTION_COLUMNS = (
    "doc_path", "ord", "sid", "title", "level", "parent_sid", "slug", "byte_start", "byte_end",
    "subtree_end", "content_hash", "summary", "token_estimate", "line", "anchor", "locator",
)  # fmt: skip
BLOCK_COLUMNS = ("doc_path", "ord", "md_start", "md_end", "kind", "text", "positions")
TABLES: dict[str, tuple[str, ...]] = {
    "docs": DOC_COLUMNS,
    "sections": SECTION_COLUMNS,
    "blocks": BLOCK_COLUMNS,
}
"""The logical row tables of a pack and their columns, in the order :func:`rows_digest` reads
them (``sections`` and ``blocks`` live in ``docs.rows`` without their ``doc_path`` column)."""

_DDL = """
CREATE TABLE pack (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs (
    doc_path TEXT PRIMARY KEY, title TEXT NOT NULL, source_kind TEXT NOT NULL, source_ref TEXT,
    source_hash TEXT NOT NULL, raw_hash TEXT NOT NULL, bytes INTEGER NOT NULL, meta TEXT NOT NULL,
    rows BLOB NOT NULL
);
CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, codec TEXT NOT NULL, data BLOB NOT NULL)
"""


def pack_rows(sections: list[tuple[Any, ...]], blocks: list[tuple[Any, ...]]) -> bytes:
    """The ``docs.rows`` value of one document (rows without their ``doc_path``)."""
    text = json.dumps({"sections": sections, "blocks": blocks}, ensure_ascii=False, separators=(",", ":"))
    return zlib.compress(text.encode("utf-8"), BLOB_LEVEL)


def logical_rows(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every logical row of a pack (:data:`TABLES`), by ``doc_path`` then ordinal.

    Raises:
        ValueError: a ``rows`` value does not inflate (at most :data:`MAX_ROWS_BYTES`) or is not
            the expected JSON. sqlite3.DatabaseError: the tables are damaged.
    """
    out: dict[str, list[tuple[Any, ...]]] = {name: [] for name in TABLES}
    columns = ", ".join(DOC_COLUMNS)
    for *doc, packed in conn.execute(f"SELECT {columns}, rows FROM docs ORDER BY doc_path"):
        inflater = zlib.decompressobj()
        try:
            text = inflater.decompress(packed, MAX_ROWS_BYTES + 1)
        except (zlib.error, TypeError) as exc:
            raise ValueError(f"the rows of {doc[0]!r} do not inflate: {exc}") from None
        if len(text) > MAX_ROWS_BYTES or not inflater.eof:
            raise ValueError(f"the rows of {doc[0]!r} are larger than {MAX_ROWS_BYTES} bytes or cut short")
        rows = json.loads(text)
        if not isinstance(rows, dict):
            raise ValueError(f"the rows of {doc[0]!r} are not an object")
        out["docs"].append(tuple(doc))
        for table in ("sections", "blocks"):
            width = len(TABLES[table]) - 1
            for row in rows[table]:
                if not isinstance(row, list) or len(row) != width:
                    raise ValueError(f"a {table} row of {doc[0]!r} has the wrong shape")
                out[table].append((doc[0], *row))
    return out


def rows_digest(tables: Iterable[tuple[str, Iterable[tuple[Any, ...]]]]) -> str:
    """sha256 hex of the canonical text of ``[(table, rows)]``: per table a ``#name`` line, then
    each row as a compact JSON array on its own line (UTF-8). Export and import both use it."""
    digest = hashlib.sha256()
    for name, rows in tables:
        digest.update(f"#{name}\n".encode())
        for row in rows:
            line = json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))
            digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def export_pack(store: Store, repo: RepoRow | str, out: Path, *, overwrite: bool = False) -> PackReport:
    """Write the stored repo ``repo`` (full name) as one pack file at ``out``.

    Args:
        store: the open store.
        repo: full name of the repo (already resolved by the caller).
        out: the pack file to write (``.dmpack`` by convention).
        overwrite: replace an existing file at ``out``.

    Returns:
        A :class:`PackReport` (``pack_bytes`` = size of the file written).

    Raises:
        PackError: ``out`` exists (without ``overwrite``), its folder does not exist (it is not
            created) or it cannot be written; a cached blob does
            not match its sha256 (the pack would carry damage: re-index first).
        RepoNotFound: the repo is not stored.
    """
    started = time.perf_counter()
    name = repo if isinstance(repo, str) else repo.name
    out = out.expanduser()
    if out.exists() and not overwrite:
        raise PackError(f"{out} already exists; pass --force to overwrite it", path=str(out))
    if out.is_dir():
        raise PackError(f"{out} is a folder; give the pack a file name", path=str(out))
    if not out.parent.is_dir():  # a typo in the folder must not create a new tree of folders
        raise PackError(f"cannot write {out}: no such folder {out.parent}", path=str(out))
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=".docmunch-pack-", suffix=".tmp", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        raise PackError(f"cannot write {out}: {exc.strerror or exc}", path=str(out)) from None
    tmp = Path(tmp_name)
    try:
        counts = _write(store, name, tmp)
        _seal(tmp)
        _fsync(tmp)
        os.replace(tmp, out)
    except OSError as exc:
        raise PackError(f"cannot write {out}: {exc.strerror or exc}", path=str(out)) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    with contextlib.suppress(OSError):
        _fsync(out.parent)
    return PackReport(
        repo=name,
        path=str(out),
        docs=counts["docs"],
        sections=counts["sections"],
        blobs=counts["blobs"],
        raw_bytes=counts["raw_bytes"],
        pack_bytes=out.stat().st_size,
        schema_version=SCHEMA_VERSION,
        elapsed_ms=round((time.perf_counter() - started) * 1000),
    )


def _seal(path: Path) -> None:
    """Append the trailer: :data:`TRAILER_MAGIC` + sha256 of the file so far."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(2**20), b""):
            digest.update(chunk)
    with path.open("ab") as f:
        f.write(TRAILER_MAGIC + digest.digest())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write(store: Store, name: str, tmp: Path) -> dict[str, int]:
    """Fill the pack at ``tmp`` from one read snapshot of the store; returns counts."""
    src = store.conn
    pack = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        pack.execute("PRAGMA journal_mode = OFF")  # a temporary file: renamed only when complete
        pack.execute("PRAGMA synchronous = OFF")
        pack.executescript(_DDL)
        pack.execute("BEGIN")
        src.execute("BEGIN")  # one read snapshot (WAL) for every SELECT below
        try:
            info = src.execute(
                "SELECT id, source, ref, commit_sha, indexed_at FROM repos WHERE name = ?", (name,)
            ).fetchone()
            if info is None:
                store.resolve_repo(name)  # RepoNotFound / UnknownVersion with its message
                raise IndexStoreError(f"repo {name!r} vanished during export")
            repo_id, source, ref, commit, indexed_at = info
            counts = _copy_rows(src, pack, repo_id)
            blobs = _copy_blobs(store, pack, repo_id)
        finally:
            src.execute("COMMIT")
        digest = rows_digest(logical_rows(pack).items())
        manifest = {
            "format": FORMAT_NAME,
            "pack_format": PACK_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "docmunch": __version__,
            "created_at": utc_now(),
            "repo": {"name": name, "source": source, "ref": ref, "commit": commit, "indexed_at": indexed_at},
            "counts": {**counts, "blobs": len(blobs)},
            "blobs": blobs,
            "rows_sha256": digest,
            "search_data": "not packed: derived again on import",
        }
        text = json.dumps(manifest, ensure_ascii=False, sort_keys=True)
        pack.executemany(
            "INSERT INTO pack(key, value) VALUES (?, ?)",
            [("manifest", text), ("manifest_sha256", hashlib.sha256(text.encode("utf-8")).hexdigest())],
        )
        pack.execute("COMMIT")
    finally:
        pack.close()
    return {**counts, "blobs": len(blobs), "raw_bytes": sum(blobs.values())}


def _copy_rows(src: sqlite3.Connection, pack: sqlite3.Connection, repo_id: int) -> dict[str, int]:
    docs = src.execute(
        "SELECT id, doc_path, title, source_kind, source_ref, source_hash, raw_hash, bytes, meta "
        "FROM docs WHERE repo_id = ? ORDER BY doc_path",
        (repo_id,),
    ).fetchall()
    counts = {"docs": len(docs), "sections": 0, "blocks": 0}
    for doc_id, *doc in docs:
        sections = src.execute(
            "SELECT ord, sid, title, level, parent_sid, slug, byte_start, byte_end, subtree_end, "
            "content_hash, summary, token_estimate, line, anchor, locator FROM sections "
            "WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        ).fetchall()
        blocks = src.execute(
            "SELECT ord, md_start, md_end, kind, text, positions FROM blocks WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        ).fetchall()
        marks = ", ".join("?" * (len(DOC_COLUMNS) + 1))
        pack.execute(f"INSERT INTO docs VALUES ({marks})", (*doc, pack_rows(sections, blocks)))
        counts["sections"] += len(sections)
        counts["blocks"] += len(blocks)
    return counts


def _copy_blobs(store: Store, pack: sqlite3.Connection, repo_id: int) -> dict[str, int]:
    """Compress every distinct raw blob of the repo into the pack; returns ``{sha256: size}``."""
    hashes = [
        row[0]
        for row in store.conn.execute(
            "SELECT DISTINCT raw_hash FROM docs WHERE repo_id = ? ORDER BY raw_hash", (repo_id,)
        )
    ]
    sizes: dict[str, int] = {}
    for digest in hashes:
        data = store.raw.read_all(digest)
        if hashlib.sha256(data).hexdigest() != digest:
            raise PackError(
                f"cached document {digest[:12]}… does not match its sha256; run `docmunch verify` "
                "and re-index the repo before exporting it",
                path=str(store.raw.path_for(digest)),
            )
        pack.execute(
            "INSERT INTO blobs(sha256, size, codec, data) VALUES (?, ?, 'zlib', ?)",
            (digest, len(data), zlib.compress(data, BLOB_LEVEL)),
        )
        sizes[digest] = len(data)
    return sizes
