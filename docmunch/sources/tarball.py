"""Safe extraction of a repository tarball (GitHub's ``/repos/{o}/{r}/tarball/{sha}``).

The archive is read as a stream (``tarfile`` mode ``r|*``: no seeking, so a download can be
piped through) and only regular files are written. Defences, each counted in the result:

- **path traversal**: absolute names, ``..`` components, drive letters and NUL bytes are
  refused; the top-level ``owner-repo-sha/`` folder GitHub adds is stripped;
- **links out of the tree**: symlinks, hard links, devices and FIFOs are never created;
- **bombs**: caps on the number of files, on one file's size and on the total size
  (``TarLimits``); exceeding the total or the count stops extraction with ``SourceError``,
  an oversize single file is skipped;
- only files a caller wants are written (``keep(path) -> bool``, e.g. documentation suffixes),
  plus ``.gitignore`` files so the folder walk can honour them.

Every written path is checked to resolve inside the destination before it is opened.
"""

from __future__ import annotations

import os
import posixpath
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from docmunch.errors import SourceError

__all__ = ["ExtractReport", "TarLimits", "extract_tarball"]


@dataclass(frozen=True, slots=True)
class TarLimits:
    """Caps applied while extracting."""

    max_files: int = 20_000
    """Most regular files written; more → ``SourceError``."""
    max_file_bytes: int = 5 * 2**20
    """Largest single file written (bytes); larger ones are skipped and counted."""
    max_total_bytes: int = 512 * 2**20
    """Most bytes written in all; more → ``SourceError``."""


@dataclass(slots=True)
class ExtractReport:
    """What :func:`extract_tarball` did."""

    written: list[str] = field(default_factory=list)
    """POSIX paths (relative to the destination) of the files written."""
    skipped_unsafe: list[str] = field(default_factory=list)
    """Member names refused: traversal, absolute paths, links, devices."""
    skipped_large: list[str] = field(default_factory=list)
    """Member names over ``max_file_bytes``."""
    skipped_unwanted: int = 0
    """Regular files the ``keep`` filter did not want."""
    total_bytes: int = 0
    """Bytes written."""


def _clean_name(name: str) -> str | None:
    """The member path without GitHub's top folder, or ``None`` when unsafe."""
    if "\x00" in name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    if len(parts) < 2:  # the top-level folder itself, or a file beside it
        return "" if len(parts) == 1 else None
    return posixpath.join(*parts[1:])


def extract_tarball(
    stream: IO[bytes],
    dest: Path,
    *,
    keep: Callable[[str], bool] = lambda path: True,
    limits: TarLimits | None = None,
) -> ExtractReport:
    """Extract the regular files of a (gzip/bz2/xz) tar stream into ``dest``.

    Args:
        stream: a readable binary stream of the archive (not necessarily seekable).
        dest: an existing, empty folder; nothing is ever written outside it.
        keep: ``keep(relative_posix_path) -> bool``; ``.gitignore`` files are always kept.
        limits: caps (defaults: 20,000 files, 5 MiB per file, 512 MiB in all).

    Returns:
        An :class:`ExtractReport`.

    Raises:
        SourceError: not a tar archive, or the file-count or total-size cap was exceeded.
    """
    limits = limits or TarLimits()
    root = dest.resolve()
    report = ExtractReport()
    try:
        archive = tarfile.open(fileobj=stream, mode="r|*")  # noqa: SIM115 (closed in finally)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SourceError(f"not a readable tar archive: {exc}") from None
    try:
        for member in archive:
            rel = _clean_name(member.name)
            if rel == "" and member.isdir():
                continue
            if rel is None or not (member.isfile() or member.isdir()):
                report.skipped_unsafe.append(member.name)
                continue
            if member.isdir():
                continue
            if not (keep(rel) or posixpath.basename(rel) == ".gitignore"):
                report.skipped_unwanted += 1
                continue
            if member.size > limits.max_file_bytes:
                report.skipped_large.append(member.name)
                continue
            if len(report.written) >= limits.max_files:
                raise SourceError(f"archive has more than {limits.max_files} files to index")
            if report.total_bytes + member.size > limits.max_total_bytes:
                raise SourceError(f"archive is larger than {limits.max_total_bytes} bytes")
            target = (root / rel).resolve()
            if root not in target.parents:
                report.skipped_unsafe.append(member.name)
                continue
            source = archive.extractfile(member)
            if source is None:
                report.skipped_unsafe.append(member.name)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            # O_EXCL + O_NOFOLLOW: never write through a pre-existing file or link.
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
            with os.fdopen(fd, "wb") as out:
                remaining = member.size
                while remaining > 0:
                    chunk = source.read(min(remaining, 1 << 16))
                    if not chunk:
                        break
                    out.write(chunk)
                    remaining -= len(chunk)
            report.written.append(rel)
            report.total_bytes += member.size
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(f"broken tar archive: {exc}") from None
    finally:
        archive.close()
    return report
