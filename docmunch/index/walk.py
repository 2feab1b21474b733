"""Which files of a folder get indexed (issue 2, "Walking a folder").

Rules, in the order they are applied:

1. Dot-folders (``.git``, ``.venv``, …), dependency and build-output folders
   (:data:`SKIP_DIRS`), folders matched by a ``.gitignore`` or an ``exclude`` pattern, and
   symlinked folders are not entered (silently).
2. Dot-files and files matched by a ``.gitignore`` or an ``exclude`` pattern are dropped
   silently; so are files whose suffix no renderer supports.
3. Safety rules — these files are *skipped* and counted in ``IndexReport.docs_skipped``:
   secret-looking names (:data:`SECRET_PATTERNS`), symlinks that resolve outside the root,
   files larger than ``max_file_bytes``, and (checked by the indexer once the bytes are
   read) text files with a NUL byte in their first 8 KiB (:func:`looks_binary`) — unless
   they start with a UTF-16 or UTF-32 byte order mark, which makes them text.
4. Only regular files are read (issue 12). A FIFO would block the reader forever and a
   character device such as ``/dev/zero`` never ends, so anything else with an indexable
   name — FIFO, socket, device, a symlink to one, a symlink loop — is skipped with its
   reason, and so are names that are not valid UTF-8 (a file, or a folder with everything
   under it): a ``doc_path`` is text, and such a name has no faithful text form. Their
   ``doc_path`` in the skipped list shows the undecodable bytes as ``\\xNN``. A folder that
   cannot be listed is skipped the same way. :func:`read_regular` re-checks the type on the
   open file descriptor (``O_NONBLOCK``, so opening a FIFO never waits), which closes the
   gap between the walk and the read.

``doc_path`` is the POSIX path relative to the root with its case kept.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docmunch.errors import SourceError
from docmunch.formats import TEXT_SUFFIXES
from docmunch.formats.transcode import wide_bom
from docmunch.index.gitignore import IgnoreRule, matches, parse_lines

__all__ = [
    "SECRET_PATTERNS",
    "SKIP_DIRS",
    "TEXT_SUFFIXES",
    "WalkFile",
    "WalkResult",
    "display_name",
    "looks_binary",
    "read_regular",
    "read_regular_range",
    "walk",
]

SKIP_DIRS = frozenset(
    {
        "node_modules",
        "bower_components",
        "_build",
        "build",
        "dist",
        "site",
        "_site",
        "target",
        "__pycache__",
        "venv",
        "site-packages",
        "htmlcov",
    }
)
"""Folder names never entered: dependencies and the output folders of common doc/build tools."""

SECRET_PATTERNS = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pypirc",
    ".npmrc",
)
"""File-name globs (case-insensitive) of files that may hold credentials; never read."""


_READ_FLAGS = os.O_RDONLY
for _flag in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"):  # not all exist on every platform
    _READ_FLAGS |= getattr(os, _flag, 0)

BINARY_SNIFF_BYTES = 8192
"""How many leading bytes :func:`looks_binary` inspects (git uses the same 8000-ish heuristic)."""


@dataclass(frozen=True, slots=True)
class WalkFile:
    """A file to index."""

    path: Path
    """Path on disk (inside the root; a symlink is kept as the link path)."""
    doc_path: str
    """POSIX path relative to the root, case kept."""
    size: int
    """Size in bytes from ``stat``."""


@dataclass(frozen=True, slots=True)
class WalkResult:
    """Outcome of walking one folder."""

    files: tuple[WalkFile, ...]
    """Files to index, sorted by doc_path."""
    skipped: tuple[tuple[str, str], ...]
    """``(doc_path, reason)`` of files refused by a safety rule."""
    seen: int = 0
    """Files (not folders) listed in the folders entered, before any rule dropped one."""
    candidates: int = 0
    """Of :attr:`seen`, the files whose suffix a renderer reads: indexed, or skipped by a safety
    rule. Zero means the folder holds no file of a known format."""
    other_types: tuple[tuple[str, int], ...] = ()
    """``(suffix, files)`` of the files dropped because no renderer reads their suffix (lower
    case with its dot, ``""`` for none), most frequent first, then by suffix."""


def display_name(name: str) -> str:
    """``name`` as printable text: bytes that were not UTF-8 (surrogate escapes from
    :func:`os.fsdecode`) become ``\\xNN``; valid names are returned unchanged."""
    if not _undecodable(name):
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _undecodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kind(mode: int) -> str:
    """What a non-regular file is, for the skip reason."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A read descriptor of ``path`` and its ``fstat``, when it is a regular file.

    The file is opened with ``O_NONBLOCK | O_NOCTTY`` (a FIFO or terminal never blocks the
    open) and its type is checked with ``fstat`` on that descriptor before anything is read.

    Raises:
        SourceError: not a regular file (FIFO, device, socket, folder) or cannot be opened.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"not a regular file ({_kind(info.st_mode)})", path=str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _read_up_to(fd: int, path: Path, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    try:
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    return b"".join(chunks)


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``max_bytes`` bytes.

    At most ``max_bytes + 1`` bytes are ever read (see :func:`_open_regular` for the open).

    Raises:
        SourceError: not a regular file (FIFO, device, socket, folder), larger than
            ``max_bytes``, or unreadable (the message is the OS reason).
    """
    fd, info = _open_regular(path)
    try:
        if info.st_size > max_bytes:
            raise SourceError(f"larger than {max_bytes} bytes", path=str(path))
        data = _read_up_to(fd, path, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise SourceError(f"larger than {max_bytes} bytes (it grew while being read)", path=str(path))
    return data


def read_regular_range(path: Path, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of ``path`` when it is a regular file (shorter when the file is).

    Raises:
        SourceError: not a regular file, or unreadable (the message is the OS reason).
    """
    fd, _info = _open_regular(path)
    try:
        try:
            os.lseek(fd, start, os.SEEK_SET)
        except OSError as exc:
            raise SourceError(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
        return _read_up_to(fd, path, max(0, end - start))
    finally:
        os.close(fd)


def _is_secret(name: str) -> bool:
    lower = name.lower()
    return any(fnmatch.fnmatchcase(lower, p) for p in SECRET_PATTERNS)


def looks_binary(data: bytes, suffix: str) -> bool:
    """True when a text-format file (``suffix`` in :data:`TEXT_SUFFIXES`) has a NUL in its first 8 KiB.

    A file that starts with a UTF-16 or UTF-32 byte order mark is text whatever it holds (its
    NULs are the high bytes of its characters): it is decoded by its BOM when rendered
    (:mod:`docmunch.formats.transcode`). Binary formats (``.pdf``, ``.docx``) are never called
    binary here: their renderers decide.
    """
    if suffix.lower() not in TEXT_SUFFIXES or wide_bom(data) is not None:
        return False
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def _read_gitignore(folder: Path, base: str) -> list[IgnoreRule]:
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return parse_lines(text.splitlines(), base)


def walk(
    root: Path,
    *,
    suffixes: Iterable[str],
    max_file_bytes: int,
    exclude: Iterable[str] = (),
    under: str = "",
) -> WalkResult:
    """Walk ``root`` (a folder) and decide for every file (see the module docstring).

    Args:
        root: folder to walk.
        suffixes: lower-case suffixes with a dot that can be indexed.
        max_file_bytes: files larger than this many bytes are skipped.
        exclude: extra patterns in ``.gitignore`` syntax, relative to the root (to ``under``
            when given).
        under: only the files of this folder (POSIX, relative to ``root``, no ``/`` at either
            end), with their ``doc_path`` still relative to ``root``: the folders on the way
            are entered whatever their name or the rules say (the caller named the folder),
            only to read their ``.gitignore`` files, so the files get the rules a walk of
            ``root`` gives them.

    Returns:
        The files to index, the skipped ones, and how many files were looked at (all, of a
        known format, of each other suffix).
    """
    root_real = root.resolve()
    allowed = {s.lower() for s in suffixes}
    rules: dict[str, list[IgnoreRule]] = {"": parse_lines(exclude, under) + _read_gitignore(root, "")}
    files: list[WalkFile] = []
    skipped: list[tuple[str, str]] = []
    seen = candidates = 0
    other_types: Counter[str] = Counter()

    def unlistable(exc: OSError) -> None:
        if exc.filename is None or Path(exc.filename) == root:
            return  # the root itself: the caller checked it is a folder
        rel = Path(exc.filename).relative_to(root).as_posix()
        skipped.append((display_name(rel), f"cannot list folder: {exc.strerror or exc}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unlistable):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        active = rules[rel_dir]
        if under and not (rel_dir == under or rel_dir.startswith(under + "/")):  # on the way to it
            step = under[len(rel_dir) + 1 :] if rel_dir else under
            name = step.split("/", 1)[0]
            rel = f"{rel_dir}/{name}" if rel_dir else name
            dirnames[:] = [name] if name in dirnames and not (here / name).is_symlink() else []
            rules[rel] = active + _read_gitignore(here / name, rel)
            continue

        keep: list[str] = []
        for name in sorted(dirnames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name.startswith(".") or name in SKIP_DIRS or (here / name).is_symlink():
                continue
            if matches(active, rel, is_dir=True):
                continue
            if _undecodable(name):
                skipped.append((display_name(rel) + "/", "folder name is not valid UTF-8"))
                continue
            rules[rel] = active + _read_gitignore(here / name, rel)
            keep.append(name)
        dirnames[:] = keep

        seen += len(filenames)
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if _is_secret(name):
                skipped.append((display_name(rel), "secret-looking file name"))
                continue
            if name.startswith(".") or matches(active, rel, is_dir=False):
                continue
            suffix = os.path.splitext(name)[1].lower()
            if suffix not in allowed:
                other_types[suffix] += 1
                continue
            candidates += 1
            if _undecodable(name):
                skipped.append((display_name(rel), "file name is not valid UTF-8"))
                continue
            item, reason = _check_file(here / name, rel, root_real, max_file_bytes)
            if item is not None:
                files.append(item)
            elif reason:
                skipped.append((rel, reason))

    files.sort(key=lambda f: f.doc_path)
    by_type = tuple(sorted(other_types.items(), key=lambda item: (-item[1], item[0])))
    return WalkResult(tuple(files), tuple(skipped), seen, candidates, by_type)


def _check_file(path: Path, rel: str, root_real: Path, max_file_bytes: int) -> tuple[WalkFile | None, str]:
    """``(WalkFile, "")`` for a file to index, else ``(None, skip reason)``; reason ``""``
    means ignore silently (vanished, a dangling link, a link to a folder)."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            try:
                target = path.resolve(strict=True)
            except RuntimeError:  # Python < 3.13 reports a symlink loop this way
                return None, "symlink loop"
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    return None, "symlink loop"
                return None, ""  # dangling
            if not target.is_relative_to(root_real):
                return None, "symlink points outside the indexed folder"
            info = os.stat(target)
            if stat.S_ISDIR(info.st_mode):
                return None, ""
    except OSError:
        return None, ""  # vanished meanwhile: nothing to index
    if not stat.S_ISREG(info.st_mode):
        return None, f"not a regular file ({_kind(info.st_mode)})"
    if info.st_size > max_file_bytes:
        return None, f"larger than {max_file_bytes} bytes"
    return WalkFile(path, rel, info.st_size), ""
