"""Which modules run as C extensions compiled with mypyc, and the guard that keeps them honest.

The hot stages are plain, fully typed Python: charset decoding (``docmunch.fetch.charset``),
platform detection, extraction (``docmunch.extract``), sectioning (``docmunch.section``) and
the search analysis and ranking (``docmunch.index`` analyze, impacts, proximity, rank, …).
``scripts/compile.py`` (``make compile``, run by every ``make`` target that tests or measures)
compiles them with mypyc (the compiler mypy ships; black and mypy are built the same way) into
extension modules next to the sources, which Python's import system prefers to the ``.py``
files. Same code, same output (``tests/test_compiled.py`` compares both on real pages), less
time: the figures are in ``docs/speed.md``. A checkout without a C compiler, or a
``pip install`` from source, runs the Python sources: nothing else changes.

An extension built from older sources would run code that is no longer in the file a developer
reads. So :func:`guard` (called by ``docmunch/__init__.py``, before any of these modules can be
imported) compares the sha256 of each source with the one recorded in :data:`MANIFEST` at
build time. When any differs, or a module has an extension but no record, or
``DOCMUNCH_PURE_PYTHON=1`` is set, every module of the group is imported from its ``.py``
file (a :class:`importlib.abc.MetaPathFinder` ahead of the default ones): all compiled or all
source, never a mix of two versions. ``docmunch doctor`` reports which it is.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["MANIFEST", "MODULES", "PURE_ENV", "guard", "source_digests", "source_stamps", "status"]

PACKAGE_DIR = Path(__file__).resolve().parent
"""The ``docmunch`` package folder (the sources and, once built, their extensions)."""

MODULES: tuple[str, ...] = (
    "docmunch.fetch.charset",
    "docmunch.detect",
    "docmunch.extract",
    "docmunch.extract._asides",
    "docmunch.extract._boilerplate",
    "docmunch.extract._boilerplate.by_class",
    "docmunch.extract._boilerplate.captions",
    "docmunch.extract._boilerplate.elements",
    "docmunch.extract._boilerplate.lines",
    "docmunch.extract._boilerplate.orphans",
    "docmunch.extract._boilerplate.teasers",
    "docmunch.extract._budget",
    "docmunch.extract._clean",
    "docmunch.extract._clean.attributes",
    "docmunch.extract._clean.conditional",
    "docmunch.extract._clean.link_grid",
    "docmunch.extract._clean.tables",
    "docmunch.extract._clean.unconditional",
    "docmunch.extract._code",
    "docmunch.extract._depth",
    "docmunch.extract._dom",
    "docmunch.extract._expand",
    "docmunch.extract._fold",
    "docmunch.extract._headings",
    "docmunch.extract._images",
    "docmunch.extract._metadata",
    "docmunch.extract._parse",
    "docmunch.extract._platform",
    "docmunch.extract._prep",
    "docmunch.extract._readability",
    "docmunch.extract._readability.candidates",
    "docmunch.extract._readability.siblings",
    "docmunch.extract._readability.walk",
    "docmunch.extract._tabs",
    "docmunch.extract._title",
    "docmunch.extract._weights",
    "docmunch.section",
    "docmunch.section.blocks",
    "docmunch.section.continuation",
    "docmunch.section.dialects",
    "docmunch.section.frontmatter",
    "docmunch.section.html_headings",
    "docmunch.section.model",
    "docmunch.section.outline",
    "docmunch.section.plain",
    "docmunch.section.slug",
    "docmunch.section.split",
    "docmunch.section.templates",
    "docmunch.index.analyze",
    "docmunch.index.impacts",
    "docmunch.index.priors",
    "docmunch.index.text",
    "docmunch.index.stopwords",
    "docmunch.index.synonyms",
    "docmunch.index.proximity",
    "docmunch.index.termstats",
    "docmunch.index.rank",
)
"""The modules compiled as one mypyc group (they call each other natively)."""

MANIFEST = PACKAGE_DIR / "compiled.json"
"""Written by the build: ``{"modules": {module: sha256 hex of its source}, "stamps": {module:
[size, mtime_ns]}}``."""

PURE_ENV = "DOCMUNCH_PURE_PYTHON"
"""Set to ``1`` to import the Python sources even when fresh extensions exist."""


def source_path(module: str) -> Path:
    """The ``.py`` file of ``module`` (a name from :data:`MODULES`): ``a.b`` → ``a/b.py``,
    a package → its ``__init__.py``."""
    relative = Path(*module.split(".")[1:])
    package = PACKAGE_DIR / relative / "__init__.py"
    return package if package.is_file() else PACKAGE_DIR / relative.with_suffix(".py")


def _extension(module: str) -> Path | None:
    source = source_path(module)
    stem = "__init__" if source.name == "__init__.py" else source.stem
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def source_digests(modules: Sequence[str] = MODULES) -> dict[str, str]:
    """``{module: sha256 hex of its .py source}`` for ``modules`` (what the build records)."""
    return {module: hashlib.sha256(source_path(module).read_bytes()).hexdigest() for module in modules}


def source_stamps(modules: Sequence[str] = MODULES) -> dict[str, list[int]]:
    """``{module: [size in bytes, mtime in ns]}`` of each source: the fast freshness test."""
    stamps: dict[str, list[int]] = {}
    for module in modules:
        info = source_path(module).stat()
        stamps[module] = [info.st_size, info.st_mtime_ns]
    return stamps


def status() -> tuple[str, str]:
    """``(state, reason)``: state ``compiled`` (fresh extensions, in use unless
    ``DOCMUNCH_PURE_PYTHON=1``), ``stale`` (extensions older than a source: sources are used),
    or ``source`` (nothing compiled). Never raises.

    Fast path (every ``docmunch`` start runs it, ~0.1 ms): each source's size and mtime equal
    the recorded ones. Otherwise the sources are hashed (~5 ms) and compared with the recorded
    sha256, so a checkout that only touched the files stays compiled.
    """
    try:
        record = json.loads(MANIFEST.read_text(encoding="utf-8"))
        recorded: dict[str, str] = record["modules"]
        stamps: dict[str, list[int]] = record.get("stamps", {})
    except FileNotFoundError:
        built = [module for module in MODULES if _extension(module) is not None]
        if not built:
            return "source", "no compiled modules (pure Python)"
        return "stale", f"{MANIFEST.name} is missing"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "stale", f"{MANIFEST.name} is unreadable"
    missing = [module for module in MODULES if _extension(module) is None]
    if missing:
        return "stale", f"not compiled: {', '.join(missing)}"
    try:
        if source_stamps() != stamps:
            current = source_digests()
            changed = [module for module in MODULES if recorded.get(module) != current[module]]
            if changed:
                return "stale", f"sources changed since the build: {', '.join(changed)}"
    except OSError as exc:
        return "stale", f"cannot read a source: {exc}"
    return "compiled", f"{len(MODULES)} modules compiled with mypyc"


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the modules of :data:`MODULES` as their ``.py`` files, ignoring extensions."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        del path, target
        if fullname not in MODULES:
            return None
        source = source_path(fullname)
        locations = [str(source.parent)] if source.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(
            fullname, source, submodule_search_locations=locations
        )


def guard() -> str:
    """Make the next imports of :data:`MODULES` load their sources unless fresh extensions
    exist and ``DOCMUNCH_PURE_PYTHON`` is not ``1``; return what runs: ``compiled``, ``stale``
    (sources, because the extensions are stale) or ``source``. Idempotent; must run before
    those modules are imported (``docmunch/__init__.py`` calls it)."""
    state, _reason = status()
    if state == "compiled" and os.environ.get(PURE_ENV) == "1":
        state = "source"
    if state != "compiled" and not any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())
    return state
