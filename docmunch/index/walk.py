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
   read) text files with a NUL byte in their first 8 KiB (:func:`looks_binary`).

``doc_path`` is the POSIX path relative to the root with its case kept.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docmunch.index.gitignore import IgnoreRule, matches, parse_lines

__all__ = [
    "SECRET_PATTERNS",
    "SKIP_DIRS",
    "TEXT_SUFFIXES",
    "WalkFile",
    "WalkResult",
    "looks_binary",
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

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".mdx", ".ipynb"})
"""Suffixes whose content must be text: a NUL byte marks such a file as binary and skips it."""

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


def _is_secret(name: str) -> bool:
    lower = name.lower()
    return any(fnmatch.fnmatchcase(lower, p) for p in SECRET_PATTERNS)


def looks_binary(data: bytes, suffix: str) -> bool:
    """True when a text-format file (``suffix`` in :data:`TEXT_SUFFIXES`) has a NUL in its first 8 KiB.

    Binary formats (``.pdf``, ``.docx``) are never called binary here: their renderers decide.
    """
    return suffix.lower() in TEXT_SUFFIXES and b"\x00" in data[:BINARY_SNIFF_BYTES]


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
) -> WalkResult:
    """Walk ``root`` (a folder) and decide for every file (see the module docstring).

    Args:
        root: folder to walk.
        suffixes: lower-case suffixes with a dot that can be indexed.
        max_file_bytes: files larger than this many bytes are skipped.
        exclude: extra patterns in ``.gitignore`` syntax, relative to the root.

    Returns:
        The files to index and the skipped ones.
    """
    root_real = root.resolve()
    allowed = {s.lower() for s in suffixes}
    rules: dict[str, list[IgnoreRule]] = {"": parse_lines(exclude, "") + _read_gitignore(root, "")}
    files: list[WalkFile] = []
    skipped: list[tuple[str, str]] = []

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        active = rules[rel_dir]

        keep: list[str] = []
        for name in sorted(dirnames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name.startswith(".") or name in SKIP_DIRS or (here / name).is_symlink():
                continue
            if matches(active, rel, is_dir=True):
                continue
            rules[rel] = active + _read_gitignore(here / name, rel)
            keep.append(name)
        dirnames[:] = keep

        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if _is_secret(name):
                skipped.append((rel, "secret-looking file name"))
                continue
            if name.startswith(".") or matches(active, rel, is_dir=False):
                continue
            if os.path.splitext(name)[1].lower() not in allowed:
                continue
            path = here / name
            try:
                if path.is_symlink():
                    target = path.resolve()
                    if not target.is_relative_to(root_real):
                        skipped.append((rel, "symlink points outside the indexed folder"))
                        continue
                    if not target.is_file():
                        continue
                size = path.stat().st_size
            except OSError:
                continue  # vanished or dangling: nothing to index
            if size > max_file_bytes:
                skipped.append((rel, f"larger than {max_file_bytes} bytes"))
                continue
            files.append(WalkFile(path, rel, size))

    files.sort(key=lambda f: f.doc_path)
    return WalkResult(tuple(files), tuple(skipped))
