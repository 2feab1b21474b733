"""Verification: re-hashing indexed bytes in the raw cache and in the user's original files.

A section's ``content_hash`` is the sha256 of its byte range. :func:`verify_repo` re-hashes
every section of a repo from the raw cache and, for sources stored byte-identical to the
user's file (:data:`ORIGINAL_KINDS`), from that file too; :func:`check_original` does the
same for one range (``get_section(verify=True)``). A text file transcoded from UTF-16 or
UTF-32 (:mod:`docmunch.formats.transcode`; its document's meta names the ``source_encoding``)
is stored as its UTF-8 form, which is what its offsets refer to: its original is read whole and
transcoded the same way before the ranges are hashed (:func:`as_indexed`). Originals are read
only when they are regular files (:func:`~docmunch.index.walk.read_regular`): a FIFO never
hangs a check.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from docmunch.errors import ConvertError, SourceError
from docmunch.formats.transcode import WIDE_BOMS, transcode_to_utf8
from docmunch.index.records import Mismatch, VerifyReport
from docmunch.index.store import Store
from docmunch.index.walk import read_regular, read_regular_range

__all__ = [
    "ORIGINAL_KINDS",
    "as_indexed",
    "check_original",
    "original_path",
    "source_encoding",
    "verify_repo",
]

ORIGINAL_KINDS = frozenset({"markdown", "text", "rst", "mdx"})
"""Source kinds stored byte-identical to the user's file (or to its UTF-8 form, for a UTF-16/32
file), so offsets also hold on the original."""

_CODECS = frozenset(codec for _, codec in WIDE_BOMS)
"""The codecs a document can have been transcoded from (``meta["source_encoding"]``)."""


def original_path(kind: str, ref: str | None) -> Path | None:
    """The user's file behind a document whose offsets hold on it, else ``None``."""
    if kind in ORIGINAL_KINDS and ref and Path(ref).is_absolute():
        return Path(ref)
    return None


def source_encoding(meta: str) -> tuple[str, int] | None:
    """``(codec, file size in bytes)`` of a document transcoded from UTF-16/32, from its ``meta``
    (the JSON text of the ``docs`` row); ``None`` for a document stored as it was read."""
    record = json.loads(meta) if meta else {}
    codec = record.get("source_encoding") if isinstance(record, dict) else None
    if codec not in _CODECS:  # also a pack's meta naming no codec docmunch transcodes from
        return None
    size = record.get("source_bytes")
    return codec, size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else 0


def as_indexed(data: bytes, encoding: str | None) -> bytes | None:
    """The bytes a document's offsets refer to, made from its original file's ``data``: ``data``
    itself, or for a document transcoded from ``encoding`` its UTF-8 form again; ``None`` when
    the file no longer is text in that encoding with its byte order mark."""
    if encoding is None:
        return data
    try:
        found = transcode_to_utf8(data)
    except ConvertError:
        return None
    return found[0] if found is not None and found[1] == encoding else None


def check_original(
    path: Path, start: int, end: int, expected: str, *, encoding: tuple[str, int] | None = None
) -> bool | None:
    """Hash ``[start, end)`` of the user's file: match, mismatch (also when too short), ``None`` if gone.

    Args:
        path: the original file; ``start``, ``end``: the section's byte range; ``expected``:
            its ``content_hash``.
        encoding: ``(codec, size)`` from :func:`source_encoding` for a transcoded document:
            the whole file (of at most ``size`` bytes; a larger one is a mismatch) is read and
            transcoded, and the range is hashed in that UTF-8 form.
    """
    try:
        if encoding is None:
            data = read_regular_range(path, start, end)  # a regular file only: a FIFO never hangs
        else:
            if os.stat(path).st_size > encoding[1]:
                return False
            utf8 = as_indexed(read_regular(path, encoding[1]), encoding[0])
            if utf8 is None:
                return False
            data = utf8[start:end]
    except (OSError, SourceError):
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
    mismatch has a one-line ``reason`` (longer, shorter, missing, changed). A document
    transcoded from UTF-16/32 has its file transcoded again (:func:`as_indexed`) and its ranges
    hashed in that UTF-8 form; a file that no longer decodes so is one document-level mismatch.
    Originals are read only when they are regular files (:func:`~docmunch.index.walk.read_regular`).
    A change inside a section is reported once, by that section: the document-level mismatch
    joins it only when the bytes between sections changed too (compared with the cache copy).
    The report counts the originals re-read, those not found, and the documents checked in the
    cache only (converted sources, and documents without a local file).

    Raises:
        RepoNotFound.
    """
    repo_id = store.repo_id(repo)
    conn = store.conn
    docs = conn.execute(
        "SELECT id, doc_path, raw_hash, source_kind, source_ref, source_hash, bytes, meta FROM docs "
        "WHERE repo_id = ? ORDER BY doc_path",
        (repo_id,),
    ).fetchall()
    mismatches: list[Mismatch] = []
    checked = originals = missing = cache_only = 0
    for doc_id, doc_path, raw_hash, kind, ref, source_hash, stored_size, meta in docs:
        ranges = conn.execute(
            "SELECT sid, byte_start, byte_end, content_hash FROM sections WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        ).fetchall()
        checked += len(ranges)
        try:
            cached: bytes | None = store.raw.path_for(raw_hash).read_bytes()
        except OSError:
            cached = None
        whole: bytes | None = None  # the original file as read
        original: bytes | None = None  # the bytes its offsets refer to (its UTF-8 form if transcoded)
        path = original_path(kind, ref)
        encoding = source_encoding(meta)
        size = encoding[1] if encoding is not None else stored_size
        if path is None:
            cache_only += 1
        else:
            try:
                now = os.stat(path).st_size
                if now > size:  # appended to: not read any further
                    originals += 1
                    reason = f"the file is longer than the {size} indexed bytes (now {now} bytes)"
                    mismatches.append(
                        Mismatch(_doc_id(repo, doc_path), doc_path, source_hash, None, "original", reason)
                    )
                else:
                    whole = read_regular(path, size)  # a regular file only
                    originals += 1
            except (OSError, SourceError):
                whole = None
                missing += 1
        if whole is not None:
            original = as_indexed(whole, encoding[0] if encoding is not None else None)
            if original is None and encoding is not None:
                reason = f"changed: the file is no longer {encoding[0].upper()} text with its byte order mark"
                actual = hashlib.sha256(whole).hexdigest()
                mismatches.append(
                    Mismatch(_doc_id(repo, doc_path), doc_path, source_hash, actual, "original", reason)
                )
        before = len(mismatches)
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
        if whole is not None and original is not None:
            # Text outside every section (appended after the last one, or in the lead-in)
            # changes the file without changing any section's bytes.
            # A change inside a section already has its mismatch above: the document-level one
            # is added only when no section explains the change, or the bytes between the
            # sections differ from the cache's (which holds the bytes the file had then).
            digest = hashlib.sha256(whole).hexdigest()
            explained = any(m.where == "original" for m in mismatches[before:])
            if digest != source_hash and (not explained or _outside_differs(original, cached, ranges)):
                reason = f"changed outside its sections: the file hashes to sha256 {digest[:12]}…"
                mismatches.append(
                    Mismatch(_doc_id(repo, doc_path), doc_path, source_hash, digest, "original", reason)
                )
    return VerifyReport(repo, checked, tuple(mismatches), originals, missing, cache_only)


def _outside_differs(original: bytes, cached: bytes | None, ranges: list[tuple[str, int, int, str]]) -> bool:
    """True when ``original`` differs from ``cached`` outside every section's ``[start, end)``.

    ``False`` when that cannot be told (no cache copy, or the file's length changed and its
    sections moved): the section mismatches already report the document as changed.
    """
    if cached is None or len(cached) != len(original):
        return False
    pos = 0
    for _, start, end, _ in sorted(ranges, key=lambda r: r[1]):
        if original[pos:start] != cached[pos:start]:
            return True
        pos = max(pos, end)
    return original[pos:] != cached[pos:]


def _short(where: str, data: bytes | None, end: int) -> str:
    """Why a section's range could not be hashed: its file is gone or ends before ``end``."""
    name = "the cache copy" if where == "cache" else "the file"
    if data is None:
        return f"{name} is missing"
    return f"{name} is shorter than the indexed bytes ({len(data)} bytes, the section ends at byte {end})"
