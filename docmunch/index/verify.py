"""Verification: re-hashing indexed bytes in the raw cache and in the user's original files.

A section's ``content_hash`` is the sha256 of its byte range. :func:`verify_repo` re-hashes
every section of a repo from the raw cache and, for sources stored byte-identical to the
user's file (:data:`ORIGINAL_KINDS`), from that file too; :func:`check_original` does the
same for one range (``get_section(verify=True)``). Originals are read only when they are
regular files (:func:`~docmunch.index.walk.read_regular`): a FIFO never hangs a check.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from docmunch.errors import SourceError
from docmunch.index.records import Mismatch, VerifyReport
from docmunch.index.store import Store
from docmunch.index.walk import read_regular, read_regular_range

__all__ = ["ORIGINAL_KINDS", "check_original", "original_path", "verify_repo"]

ORIGINAL_KINDS = frozenset({"markdown", "text", "rst", "mdx"})
"""Source kinds stored byte-identical to the user's file, so offsets also hold on the original."""


def original_path(kind: str, ref: str | None) -> Path | None:
    """The user's file behind a document whose offsets hold on it, else ``None``."""
    if kind in ORIGINAL_KINDS and ref and Path(ref).is_absolute():
        return Path(ref)
    return None


def check_original(path: Path, start: int, end: int, expected: str) -> bool | None:
    """Hash ``[start, end)`` of the user's file: match, mismatch (also when too short), ``None`` if gone."""
    try:
        data = read_regular_range(path, start, end)  # a regular file only: a FIFO never hangs
    except SourceError:
        return None
    return len(data) == end - start and hashlib.sha256(data).hexdigest() == expected



def _doc_id(repo: str, doc_path: str) -> str:
    """The id of a whole document in a :class:`Mismatch` (``{repo}::{doc_path}``, no section)."""
    return f"{repo}::{doc_path}"


def verify_repo(store: Store, repo: str) -> VerifyReport:
    """Re-hash every section of ``repo`` from the raw cache, and from the original file.

    For Markdown/text sources whose original (``source_ref``, an absolute path) still exists,
    the same byte ranges of the user's file are hashed too: a mismatch there (``where =
    "original"``) means the file changed since it was indexed. Missing originals are not errors
    (the cache is the index's copy). A missing or short file has ``actual = None``.
    The whole original is also compared with the ``source_hash`` it was indexed from: a change
    outside every section (text appended after the last one, a changed front matter) is a
    document-level mismatch whose ``id`` is ``{repo}::{doc_path}`` (``actual`` = the file's
    sha256 now, or ``None`` when it grew past its indexed size; it is read no further). Every
    mismatch has a one-line ``reason`` (longer, shorter, missing, changed).
    Originals are read only when they are regular files (:func:`~docmunch.index.walk.read_regular`).

    Raises:
        RepoNotFound.
    """
    repo_id = store.repo_id(repo)
    conn = store.conn
    docs = conn.execute(
        "SELECT id, doc_path, raw_hash, source_kind, source_ref, source_hash, bytes FROM docs "
        "WHERE repo_id = ? ORDER BY doc_path",
        (repo_id,),
    ).fetchall()
    mismatches: list[Mismatch] = []
    checked = originals = 0
    for doc_id, doc_path, raw_hash, kind, ref, source_hash, size in docs:
        ranges = conn.execute(
            "SELECT sid, byte_start, byte_end, content_hash FROM sections WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        ).fetchall()
        checked += len(ranges)
        try:
            cached: bytes | None = store.raw.path_for(raw_hash).read_bytes()
        except OSError:
            cached = None
        original: bytes | None = None
        path = original_path(kind, ref)
        if path is not None:
            try:
                now = os.stat(path).st_size
                if now > size:  # appended to: not read any further
                    originals += 1
                    reason = f"the file is longer than the {size} indexed bytes (now {now} bytes)"
                    mismatches.append(
                        Mismatch(_doc_id(repo, doc_path), doc_path, source_hash, None, "original", reason)
                    )
                else:
                    original = read_regular(path, size)  # a regular file only
                    originals += 1
            except (OSError, SourceError):
                original = None
        for where, data in (("cache", cached), ("original", original)):
            if data is None and where == "original":
                continue
            for sid, start, end, expected in ranges:
                if data is None or end > len(data):
                    reason = _short(where, data, end)
                    mismatches.append(Mismatch(sid, doc_path, expected, None, where, reason))
                    continue
                actual = hashlib.sha256(data[start:end]).hexdigest()
                if actual != expected:
                    reason = f"changed: the bytes {start}-{end} hash to sha256 {actual[:12]}…"
                    mismatches.append(Mismatch(sid, doc_path, expected, actual, where, reason))
        if original is not None:
            # Text outside every section (appended after the last one, or in the lead-in)
            # changes the file without changing any section's bytes.
            whole = hashlib.sha256(original).hexdigest()
            if whole != source_hash:
                reason = f"changed outside its sections: the file hashes to sha256 {whole[:12]}…"
                mismatches.append(
                    Mismatch(_doc_id(repo, doc_path), doc_path, source_hash, whole, "original", reason)
                )
    return VerifyReport(repo, checked, tuple(mismatches), originals)


def _short(where: str, data: bytes | None, end: int) -> str:
    """Why a section's range could not be hashed: its file is gone or ends before ``end``."""
    name = "the cache copy" if where == "cache" else "the file"
    if data is None:
        return f"{name} is missing"
    return f"{name} is shorter than the indexed bytes ({len(data)} bytes, the section ends at byte {end})"
