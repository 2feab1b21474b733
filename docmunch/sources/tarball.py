"""Safe extraction of a repository tarball (GitHub's ``/repos/{o}/{r}/tarball/{sha}``).

The archive is read as a stream (``tarfile`` mode ``r|*``: no seeking, so a download can be
piped through) and only regular files are written. Defences, each counted in the result:

- **path traversal**: absolute names, ``..`` components, drive letters and NUL bytes are
  refused; the top-level ``owner-repo-sha/`` folder GitHub adds is stripped;
- **links out of the tree**: symlinks, hard links, devices and FIFOs are never created;
- **bombs**: caps on the number of files, on one file's size and on the total size
  (``TarLimits``); exceeding the total or the count stops extraction with ``SourceError``,
  an oversize single file is skipped;
- **header bombs**: a pax extended header or GNU long name is read whole into memory by
  ``tarfile`` and costs about three times its size (the bytes, their decoded text, the
  parsed records: a 204 KB gzip holding a 200 MB pax header peaked at 627 MB); a header
  over :data:`TAR_MAX_HEADER_BYTES` is read past in small chunks instead and the member it
  describes is skipped as unsafe;
- **duplicate names**: a later member of the same name replaces the earlier one (tar's
  own rule), written to a temporary file and renamed over it, and is listed in
  ``ExtractReport.duplicates``; a member that cannot be written (say a file where an
  earlier member made a folder) is skipped as unsafe instead of aborting the archive;
- only files a caller wants are written (``keep(path) -> bool``, e.g. documentation suffixes),
  plus ``.gitignore`` files so the folder walk can honour them.

Every written path is checked to resolve inside the destination before it is opened.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import tarfile
import tarfile as tarfile_module  # the hooks' own parameter is named ``tarfile``
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from docmunch.errors import SourceError
from docmunch.limits import Limit

__all__ = ["TAR_MAX_HEADER_BYTES", "ExtractReport", "TarLimits", "extract_tarball"]

TAR_MAX_HEADER_BYTES = Limit("TAR_MAX_HEADER_BYTES", 1 << 20, "bytes")
"""Largest pax extended header or GNU long-name/long-link block read (a real one holds a
path, a commit id or a few attributes: well under 64 KiB)."""


class _BoundedTarInfo(tarfile.TarInfo):
    """``TarInfo`` that never reads an oversized header block into memory.

    ``tarfile`` reads the whole data block of a pax extended header or a GNU long name in
    one piece; these overrides of its two private hooks (present in CPython 3.8–3.14) read
    past a block over :data:`TAR_MAX_HEADER_BYTES` in 64 KiB chunks instead. The member it
    described is returned with :attr:`refused` set (its real name is in the block that was
    not read, so it is skipped as unsafe); an oversized *global* header is just dropped.
    """

    refused: str = ""
    """Why this member cannot be extracted ("" = it can)."""

    def _discard(self, tarfile: tarfile.TarFile) -> bool:
        """Skip the header's data block when it is over the limit; ``True`` if skipped."""
        if self.size <= TAR_MAX_HEADER_BYTES.value():
            return False
        left: int = self._block(self.size)  # type: ignore[attr-defined]  # private, untyped
        while left > 0:
            chunk = tarfile.fileobj.read(min(left, 1 << 16))
            if not chunk:
                raise tarfile_module.ReadError("unexpected end of data in an extended header")
            left -= len(chunk)
        return True

    def _skip_to_next(self, tarfile: tarfile.TarFile, why: str) -> tarfile.TarInfo:
        try:
            following = self.fromtarfile(tarfile)
        except tarfile_module.HeaderError as exc:
            raise tarfile_module.ReadError(str(exc)) from None
        if self.type != tarfile_module.XGLTYPE and isinstance(following, _BoundedTarInfo):
            following.offset = self.offset
            following.refused = why
        return following

    def _proc_pax(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:
        if not self._discard(tarfile):
            return super()._proc_pax(tarfile)  # type: ignore[misc,no-any-return]  # not in typeshed
        return self._skip_to_next(tarfile, f"{self.size}-byte pax header")

    def _proc_gnulong(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:
        if not self._discard(tarfile):
            return super()._proc_gnulong(tarfile)  # type: ignore[misc,no-any-return]  # not in typeshed
        return self._skip_to_next(tarfile, f"{self.size}-byte GNU long name")


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
    duplicates: list[str] = field(default_factory=list)
    """POSIX paths written more than once (the last member of that name is kept)."""
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
    sizes: dict[str, int] = {}  # written path -> its size
    try:
        archive = tarfile.open(fileobj=stream, mode="r|*", tarinfo=_BoundedTarInfo)  # noqa: SIM115
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SourceError(f"not a readable tar archive: {exc}") from None
    try:
        for member in archive:
            if getattr(member, "refused", ""):
                report.skipped_unsafe.append(member.name)
                continue
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
            previous = sizes.get(rel)
            try:
                _write_member(source, target, member.size, replace=previous is not None)
            except _StreamError as exc:
                raise SourceError(f"broken tar archive: {exc.__cause__}") from None
            except OSError:
                report.skipped_unsafe.append(member.name)  # e.g. a file where a folder is
                continue
            if previous is None:
                report.written.append(rel)
            else:
                report.duplicates.append(rel)
                report.total_bytes -= previous
            sizes[rel] = member.size
            report.total_bytes += member.size
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(f"broken tar archive: {exc}") from None
    finally:
        archive.close()
    return report


class _StreamError(Exception):
    """Reading the archive failed while a member was being copied (``__cause__`` says why)."""


def _write_member(source: IO[bytes], target: Path, size: int, *, replace: bool) -> None:
    """Copy ``size`` bytes of a member to ``target``, never through an existing file or link.

    A new name is created with ``O_EXCL | O_NOFOLLOW``; a duplicate (``replace``) is written
    to a fresh temporary file beside it and renamed over it (a rename replaces a link
    itself, never what it points to).

    Raises:
        _StreamError: the archive stream failed. OSError: the file system refused.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    if replace:
        fd, tmp = tempfile.mkstemp(prefix=".tar-", dir=target.parent)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        tmp = ""
    try:
        with os.fdopen(fd, "wb") as out:
            remaining = size
            while remaining > 0:
                try:
                    chunk = source.read(min(remaining, 1 << 16))
                except (tarfile.TarError, EOFError, OSError) as exc:
                    raise _StreamError() from exc
                if not chunk:
                    break
                out.write(chunk)
                remaining -= len(chunk)
        if tmp:
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
    except BaseException:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
