"""Loading a pack (``docmunch import FILE [--as NAME@VERSION] [--replace]``).

Everything is checked before anything is written, in this order:

1. the file: a SQLite header, a size equal to the header's page count × page size plus the
   trailer (a truncated or extended file is refused), the trailer's sha256 of every byte
   before it (any changed byte is refused), then ``PRAGMA integrity_check``;
2. the manifest: its sha256, the format name, :data:`~docmunch.index.pack.PACK_FORMAT` and
   the index schema (one of :data:`READABLE_SCHEMAS`, another one is
   :class:`~docmunch.errors.PackSchemaError`);
3. the rows (each document's inflated at most :data:`~docmunch.index.pack.MAX_ROWS_BYTES`):
   their canonical digest equals ``rows_sha256``, and the counts match;
4. every blob: inflated (at most its declared size), its sha256 equals its key and the
   manifest's list, and every document's ``raw_hash`` / ``bytes`` names one;
5. every section: its id belongs to the packed repo, its byte range lies inside its
   document, and the sha256 of those bytes is its ``content_hash`` (re-checked by
   :func:`docmunch.index.document.section_rows`, which also derives the search data).

Only then are the documents' bytes put in the raw cache and the repo written in ONE
transaction (:meth:`Store.load_repo <docmunch.index.store.Store.load_repo>`): after a failure
or a kill the index holds the whole repo or none of it, and an existing repo of that name is
replaced only with ``replace=True``. The load holds the repo's run lock
(:class:`~docmunch.index.runlock.RepoRun`), so it waits for an index run of the same repo and
says so like one (``on_wait``; the CLI prints the same one line as ``docmunch index``).

A pack read from standard input (``docmunch import -``) is first copied into a file by
:func:`spool_pack`, which reads no more than the size the pack's header declares.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import time
import urllib.parse
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from docmunch.errors import DocmunchError, PackCorrupt, PackError, PackSchemaError
from docmunch.index.document import PreparedDoc, section_rows
from docmunch.index.pack import (
    FORMAT_NAME,
    MAX_BLOB_BYTES,
    PACK_FORMAT,
    TABLES,
    TRAILER_BYTES,
    TRAILER_MAGIC,
    logical_rows,
    rows_digest,
)
from docmunch.index.records import PackReport
from docmunch.index.runlock import RepoRun, WaitNotice
from docmunch.index.schema import SCHEMA_VERSION
from docmunch.index.store import Store
from docmunch.index.versions import check_new_name
from docmunch.section import Section

__all__ = ["PACK_DROPPED_META", "READABLE_SCHEMAS", "import_pack", "read_manifest", "spool_pack"]

READABLE_SCHEMAS = frozenset({2, 3, 4, 5, SCHEMA_VERSION})
"""Index schemas whose packed tables (docs, sections, blocks) this code reads: schemas 3 to 6
only changed the term index, the title keys, the common terms and the FTS table, which packs
do not carry (all are derived again on import)."""

_HEADER = b"SQLite format 3\x00"


def import_pack(
    store: Store,
    path: Path,
    *,
    as_name: str | None = None,
    replace: bool = False,
    on_wait: WaitNotice | None = None,
) -> PackReport:
    """Verify the pack at ``path`` and load it as one repo, atomically.

    Args:
        store: the open store.
        path: the pack file.
        as_name: full name to import under (``NAME`` or ``NAME@VERSION``); default the packed one.
            Section ids are rewritten to start with it.
        replace: replace an existing repo of that name (in the same transaction).
        on_wait: told when the load waits for another run of the same repo, and when that wait
            ends (:data:`docmunch.index.runlock.WaitNotice`); the pack is verified before the wait.

    Returns:
        A :class:`PackReport` for the loaded repo.

    Raises:
        PackCorrupt: any check failed (tampered, truncated, not a pack). PackSchemaError: another
        pack format or index schema. RepoExists: the name is taken and ``replace`` is false.
        InvalidRepoName: a bad ``as_name``. PackError: the file cannot be read. LimitExceeded:
        another run held the repo longer than ``REPO_LOCK_WAIT_SECONDS``.
    """
    started = time.perf_counter()
    path = path.expanduser()
    size = _check_file(path)
    conn = _open(path)
    try:
        manifest = read_manifest(conn, path)
        packed = str(manifest["repo"]["name"])
        name = as_name or packed
        check_new_name(name)
        docs = _verified_docs(conn, manifest, path, packed, name)
    finally:
        conn.close()
    pending = [dataclasses.replace(doc, pending=store.raw.put(doc.data, sync=False)[1]) for doc in docs]
    repo = manifest["repo"]
    with RepoRun(store.home, name, on_wait=on_wait):  # not while an index run writes the same repo
        existed = store.conn.execute("SELECT 1 FROM repos WHERE name = ?", (name,)).fetchone() is not None
        store.load_repo(
            name,
            pending,
            source=str(repo.get("source") or ""),
            origin=(repo.get("ref"), repo.get("commit")),
            replace=replace,
            indexed_at=repo.get("indexed_at") if isinstance(repo.get("indexed_at"), str) else None,
        )
    return PackReport(
        repo=name,
        path=str(path),
        docs=len(docs),
        sections=sum(len(d.section_rows) for d in docs),
        blobs=len({d.raw_hash for d in docs}),
        raw_bytes=sum(manifest["blobs"].values()),
        pack_bytes=size,
        schema_version=int(manifest["schema_version"]),
        elapsed_ms=round((time.perf_counter() - started) * 1000),
        replaced=existed and replace,
    )


def _corrupt(path: Path, why: str) -> PackCorrupt:
    return PackCorrupt(f"{path} is not an intact docmunch pack ({why}); nothing was imported", path=str(path))


def _declared_size(header: bytes, path: Path) -> int:
    """Bytes a pack whose first 100 bytes are ``header`` has: its SQLite header's page count ×
    page size, plus the trailer.

    Raises:
        PackCorrupt: no SQLite header.
    """
    if len(header) < 100 or not header.startswith(_HEADER):
        raise _corrupt(path, "no SQLite header: not a pack, or cut short")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    return int.from_bytes(header[28:32], "big") * page_size + TRAILER_BYTES


def spool_pack(stream: BinaryIO, dest: Path, *, shown: str = "standard input") -> None:
    """Copy a pack read from ``stream`` (``docmunch import -``) into the new file ``dest``, reading
    no more than the size its header declares plus one byte, so a stream that is no pack, or
    goes on after its end, stops at once instead of filling the disk.

    Raises:
        PackCorrupt: no SQLite header, or more bytes than it declares (named ``shown``). PackError:
            ``dest`` cannot be written.
    """
    shown_path = Path(shown)
    header = stream.read(100)
    while 0 < len(header) < 100 and (more := stream.read(100 - len(header))):
        header += more
    remaining = _declared_size(header, shown_path) - len(header) + 1  # one more byte tells "too long"
    try:
        with dest.open("xb") as out:
            out.write(header)
            while remaining > 0 and (chunk := stream.read(min(2**20, remaining))):
                out.write(chunk)
                remaining -= len(chunk)
    except OSError as exc:
        raise PackError(f"cannot write {dest}: {exc.strerror or exc}", path=str(dest)) from None
    if remaining == 0:
        raise _corrupt(shown_path, "unexpected bytes after its end")


def _check_file(path: Path) -> int:
    """Size of the pack file after the header, size and trailer checks (step 1).

    Raises:
        PackError: unreadable. PackCorrupt: not a pack, truncated, extended or changed.
    """
    try:
        with path.open("rb") as f:
            header = f.read(100)
            size = path.stat().st_size
            expected = _declared_size(header, path)
            if size == expected - TRAILER_BYTES:
                raise _corrupt(path, "a SQLite database without the pack trailer: not a pack")
            if size < expected:
                raise _corrupt(path, f"truncated: {size} of {expected} bytes")
            if size > expected:
                raise _corrupt(path, f"{size - expected} unexpected bytes after its end")
            digest = hashlib.sha256(header)
            remaining = size - TRAILER_BYTES - len(header)
            while remaining > 0:
                chunk = f.read(min(2**20, remaining))
                if not chunk:
                    raise _corrupt(path, "it shrank while being read")
                digest.update(chunk)
                remaining -= len(chunk)
            trailer = f.read(TRAILER_BYTES)
    except OSError as exc:
        raise PackError(f"cannot read pack {path}: {exc.strerror or exc}", path=str(path)) from None
    if not trailer.startswith(TRAILER_MAGIC):
        raise _corrupt(path, "no docmunch trailer after the database")
    if trailer[len(TRAILER_MAGIC) :] != digest.digest():
        raise _corrupt(path, "its sha256 differs from the one written at export: bytes were changed")
    return size


def _open(path: Path) -> sqlite3.Connection:
    """The pack opened read-only and immutable (no journal, no lock files beside it) + integrity check."""
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)")]
    except sqlite3.DatabaseError as exc:
        raise _corrupt(path, f"SQLite: {exc}") from None
    if problems != ["ok"]:
        conn.close()
        raise _corrupt(path, f"SQLite integrity check: {'; '.join(problems)}")
    return conn


def read_manifest(conn: sqlite3.Connection, path: Path) -> dict[str, Any]:
    """The checked manifest of an open pack (step 2). Raises PackCorrupt, PackSchemaError."""
    try:
        values = dict(conn.execute("SELECT key, value FROM pack").fetchall())
    except sqlite3.DatabaseError as exc:
        raise _corrupt(path, f"no manifest table: {exc}") from None
    text, digest = values.get("manifest"), values.get("manifest_sha256")
    if not isinstance(text, str) or not isinstance(digest, str):
        raise _corrupt(path, "no manifest")
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
        raise _corrupt(path, "the manifest does not match its sha256")
    try:
        manifest = json.loads(text)
        kind, pack_format, schema = manifest["format"], manifest["pack_format"], manifest["schema_version"]
        if (
            not isinstance(manifest, dict)
            or not isinstance(manifest["repo"]["name"], str)
            or not isinstance(manifest["blobs"], dict)
        ):
            raise TypeError("repo name or blob list")
    except (ValueError, KeyError, TypeError) as exc:
        raise _corrupt(path, f"malformed manifest: {exc}") from None
    if kind != FORMAT_NAME:
        raise _corrupt(path, f"format {kind!r} is not {FORMAT_NAME!r}")
    if pack_format != PACK_FORMAT or schema not in READABLE_SCHEMAS:
        raise PackSchemaError(
            f"{path} was written by docmunch {manifest.get('docmunch', '?')} (pack format {pack_format}, "
            f"index schema {schema}); this docmunch reads pack format {PACK_FORMAT}, schema "
            f"{SCHEMA_VERSION}: export it again with a matching docmunch, or index the docs here",
            path=str(path),
        )
    return manifest


def _verified_docs(
    conn: sqlite3.Connection, manifest: dict[str, Any], path: Path, packed: str, name: str
) -> list[PreparedDoc]:
    """Steps 3–5: every row and blob checked; the documents ready to commit under ``name``."""
    try:
        rows = logical_rows(conn)
        blob_rows = conn.execute("SELECT sha256, size, codec, data FROM blobs").fetchall()
    except sqlite3.DatabaseError as exc:
        raise _corrupt(path, f"SQLite: {exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise _corrupt(path, " ".join(str(exc).split())) from None
    if rows_digest(rows.items()) != manifest.get("rows_sha256"):
        raise _corrupt(path, "its rows do not match the manifest's rows_sha256")
    counts = manifest.get("counts") or {}
    for table in TABLES:
        if counts.get(table) != len(rows[table]):
            raise _corrupt(path, f"{len(rows[table])} {table} rows, the manifest says {counts.get(table)}")
    blobs = _blobs(blob_rows, manifest["blobs"], path)
    sections: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows["sections"]:
        sections.setdefault(row[0], []).append(row)
    blocks: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows["blocks"]:
        blocks.setdefault(row[0], []).append(row[1:])
    docs: list[PreparedDoc] = []
    for doc in rows["docs"]:
        try:
            docs.append(_doc(doc, sections.get(doc[0], []), blocks.get(doc[0], []), blobs, packed, name))
        except (DocmunchError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise _corrupt(path, f"document {doc[0]!r}: {' '.join(str(exc).split())}") from None
    return docs


def _blobs(blob_rows: list[tuple[Any, ...]], listed: dict[str, Any], path: Path) -> dict[str, bytes]:
    """Step 4: ``{sha256: bytes}`` of every blob, each inflated and hashed."""
    if sorted(row[0] for row in blob_rows) != sorted(listed):
        raise _corrupt(path, "its blobs are not the ones the manifest lists")
    out: dict[str, bytes] = {}
    for digest, size, codec, data in blob_rows:
        if listed[digest] != size or not isinstance(size, int) or not 0 <= size <= MAX_BLOB_BYTES:
            raise _corrupt(path, f"blob {str(digest)[:12]}…: bad size {size!r}")
        if codec != "zlib" or not isinstance(data, bytes):
            raise _corrupt(path, f"blob {digest[:12]}…: unknown codec {codec!r}")
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(data, size + 1)
        except zlib.error as exc:
            raise _corrupt(path, f"blob {digest[:12]}… does not inflate: {exc}") from None
        if len(raw) != size or not inflater.eof or hashlib.sha256(raw).hexdigest() != digest:
            raise _corrupt(path, f"blob {digest[:12]}… does not match its sha256")
        out[digest] = raw
    return out


PACK_DROPPED_META = ("allow_private",)
"""Document meta keys an import drops: ``allow_private`` is the leave to fetch private and
loopback addresses that ``index --allow-private`` gave on the machine that exported the pack
(``refresh`` honours it, :mod:`docmunch.sources.refresh`). A pack is data from elsewhere (its
hashes catch damage, not forgery), so it must not grant that leave on the importing machine:
``refresh`` of an imported repo needs ``--allow-private`` there again."""


def _imported_meta(meta: str) -> str:
    """A packed document's meta JSON without :data:`PACK_DROPPED_META`.

    Raises:
        ValueError: ``meta`` is not JSON (the pack is refused).
    """
    value = json.loads(meta)
    if isinstance(value, dict) and any(key in value for key in PACK_DROPPED_META):
        kept = {key: item for key, item in value.items() if key not in PACK_DROPPED_META}
        return json.dumps(kept, ensure_ascii=False, default=str)
    return meta


def _doc(
    doc: tuple[Any, ...],
    section_list: list[tuple[Any, ...]],
    block_list: list[tuple[Any, ...]],
    blobs: dict[str, bytes],
    packed: str,
    name: str,
) -> PreparedDoc:
    """One packed document as a :class:`PreparedDoc` under ``name`` (step 5)."""
    doc_path, title, source_kind, source_ref, source_hash, raw_hash, size, meta = doc
    data = blobs.get(raw_hash)
    if data is None or len(data) != size:
        raise ValueError(f"its bytes ({raw_hash!r}, {size!r} bytes) are not in the pack")
    meta = _imported_meta(meta)
    sections: list[Section] = []
    locators: list[dict[str, Any] | None] = []
    for (_, _ord, sid, s_title, level, parent, slug, start, end, subtree, content_hash, summary,
         tokens, line, anchor, locator) in section_list:  # fmt: skip
        if not (0 <= start <= end <= len(data) and end <= subtree <= len(data)):
            raise ValueError(f"section {sid!r} has a byte range outside its document")
        sections.append(
            Section(
                id=_renamed(sid, packed, name),
                repo=name,
                doc_path=doc_path,
                title=s_title,
                level=level,
                parent_id=_renamed(parent, packed, name) if parent is not None else None,
                slug=slug,
                byte_start=start,
                byte_end=end,
                subtree_end=subtree,
                content_hash=content_hash,
                summary=summary,
                token_estimate=tokens,
                line=line,
                anchor=anchor,
                locator=None,
            )
        )
        locators.append(json.loads(locator) if locator is not None else None)
    derived = section_rows(data, sections, locators, title=title, doc_path=doc_path)
    return PreparedDoc(
        doc_path=doc_path,
        values=(title, source_kind, source_ref, source_hash, raw_hash, size, meta),
        raw_hash=raw_hash,
        section_rows=derived.rows,
        block_rows=[tuple(b) for b in block_list],
        term_rows=derived.terms,
        doc_terms=derived.doc_terms,
        pending=None,
        data=data,
    )


def _renamed(section_id: str, packed: str, name: str) -> str:
    prefix = f"{packed}::"
    if not isinstance(section_id, str) or not section_id.startswith(prefix):
        raise ValueError(f"section id {section_id!r} does not belong to repo {packed!r}")
    return name + section_id[len(packed) :]
