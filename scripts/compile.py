"""Compile docmunch's hot stages with mypyc, in place (``make compile``).

Usage: ``python scripts/compile.py [--force | --clean]``. Does nothing when the extensions are
already fresh (:func:`docmunch.compiled.status`; ``--force`` rebuilds anyway). Else builds the modules of
:data:`docmunch.compiled.MODULES` as one mypyc group (extension modules beside their sources,
the group's runtime in ``docmunch/native__mypyc*.so``), then records the sha256 of every
source in ``docmunch/compiled.json`` so that :func:`docmunch.compiled.guard` can tell fresh
extensions from stale ones. ``--clean`` removes the extensions and the record (the sources
run again). Without a C compiler it says so and exits 0: docmunch then runs as pure Python,
with the same output. A compiler that fails is an error (exit 1): that is a bug to fix.

Build files go to ``build/mypyc`` (ignored by git).
"""

from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docmunch import compiled  # noqa: E402 - needs the repo on sys.path first

GROUP = "docmunch.native"
"""mypyc group name: its shared runtime becomes ``docmunch/native__mypyc<suffix>``."""


def _artifacts() -> list[Path]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = [path for path in compiled.PACKAGE_DIR.rglob("*") if path.name.endswith(suffixes)]
    return [path for path in found if path.is_file()]


def clean() -> int:
    """Remove every extension module under ``docmunch/`` and the manifest; the count removed."""
    removed = 0
    for path in _artifacts():
        path.unlink()
        removed += 1
    if compiled.MANIFEST.exists():
        compiled.MANIFEST.unlink()
    return removed


def _compiler() -> str | None:
    """The C compiler setuptools will call (``$CC``, else the one Python was built with), if found."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(command.split()[0])


def build() -> None:
    """Compile :data:`docmunch.compiled.MODULES` in place and write the manifest.

    Raises ``SystemExit(1)`` when mypyc or the C compiler fails.
    """
    from mypyc.build import mypycify
    from setuptools import Distribution

    clean()  # never leave a half-old group behind
    # recorded before the build: what is compiled is what is recorded
    digests, stamps = compiled.source_digests(), compiled.source_stamps()
    paths = [str(compiled.source_path(module).relative_to(ROOT)) for module in compiled.MODULES]
    os.chdir(ROOT)
    extensions = mypycify(paths, opt_level="3", debug_level="0", group_name=GROUP, target_dir="build/mypyc")
    # a bare Distribution: no setup.py and no pyproject.toml parsing (the project builds with hatchling)
    distribution = Distribution({"name": "docmunch-compiled", "ext_modules": extensions})
    distribution.script_args = [
        "-q", "build_ext", "--inplace", "--build-temp", "build/mypyc/temp", "--build-lib", "build/mypyc/lib"
    ]
    distribution.parse_command_line()
    distribution.run_commands()
    record = {"modules": digests, "stamps": stamps}
    compiled.MANIFEST.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--force", action="store_true", help="rebuild even when the build is fresh")
    group.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args(argv)
    if not args.force and not args.clean and compiled.status()[0] == "compiled":
        print("compile: up to date")
        return 0
    if args.clean:
        print(f"compile: removed {clean()} compiled modules; docmunch runs its Python sources")
        return 0
    if _compiler() is None:
        print("compile: no C compiler found; docmunch runs as pure Python (same output, slower)")
        return 0
    try:
        build()
    except (SystemExit, Exception) as exc:  # setuptools reports compiler failures as SystemExit
        clean()
        print(f"compile: mypyc build failed ({exc}); removed the partial build", file=sys.stderr)
        return 1
    state, reason = compiled.status()
    print(f"compile: {reason}")
    return 0 if state == "compiled" else 1


if __name__ == "__main__":
    raise SystemExit(main())
