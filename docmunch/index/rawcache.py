"""Content-addressed raw cache: the stored document bytes, byte-identical to the source.

A document's bytes live in ``raw/<h[:2]>/<h>`` where ``h`` is their sha256 hex. A file is
written once, atomically (temp file in the same folder + ``fsync`` + ``os.replace``), so a
reader sees either no file or the complete one. Reads of a section are ``open`` + ``seek`` +
``read(n)`` of its byte range only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from docmunch.errors import IndexStoreError

__all__ = ["RawCache"]


class RawCache:
    """The ``raw/`` folder under the docmunch home."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def path_for(self, digest: str) -> Path:
        """Path of the cache file for sha256 hex ``digest`` (it may not exist)."""
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` (no-op when already present) and return its sha256 hex.

        Raises:
            IndexStoreError: the file could not be written (disk full, permissions).
        """
        digest = hashlib.sha256(data).hexdigest()
        target = self.path_for(digest)
        try:
            if target.is_file() and target.stat().st_size == len(data):
                return digest
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise IndexStoreError(f"cannot write raw cache file {target}: {exc}", path=str(target)) from None
        return digest

    def read_range(self, digest: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of the cached document (seek + read; fewer if the file is short).

        Raises:
            IndexStoreError: the cache file is missing or unreadable.
        """
        path = self.path_for(digest)
        try:
            with open(path, "rb") as f:
                f.seek(start)
                return f.read(max(0, end - start))
        except OSError as exc:
            raise IndexStoreError(
                f"raw cache file {path} is unreadable ({exc.strerror}); re-index the repo", path=str(path)
            ) from None

    def read_all(self, digest: str) -> bytes:
        """The whole cached document. Raises IndexStoreError when missing."""
        path = self.path_for(digest)
        try:
            return path.read_bytes()
        except OSError as exc:
            raise IndexStoreError(
                f"raw cache file {path} is unreadable ({exc.strerror}); re-index the repo", path=str(path)
            ) from None

    def discard(self, digest: str) -> None:
        """Delete a cache file no document refers to any more (missing files are fine)."""
        with contextlib.suppress(OSError):
            self.path_for(digest).unlink()
