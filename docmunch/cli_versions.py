"""``docmunch default | rename | export | import``: versions and portable packs (a part of the CLI).

Registered by :func:`docmunch.cli.build_parser` through :func:`add_commands`; like every
command they are thin calls into :class:`docmunch.index.Index` and print human text or
``--json`` (shapes in docs/cli.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from docmunch.errors import PackError
from docmunch.index import Index, PackReport
from docmunch.index.pack_import import spool_pack
from docmunch.terminal import console, emit_json, esc, printable

__all__ = ["add_commands"]

Register = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
"""``cmd(name, handler, help)`` of :func:`docmunch.cli.build_parser`."""


def _cmd_default(args: argparse.Namespace) -> int:
    with Index.open() as index:
        name = args.repo.partition("@")[0]
        if args.unpin:
            index.unpin_default(name)
        elif "@" in args.repo:
            index.set_default(args.repo)
        group = next((g for g in index.list_groups() if g.name == name), None)
        if group is None:
            index.resolve_repo(name)  # RepoNotFound with its message
            return 1
    default = group.default
    if args.json:
        emit_json({"name": group.name, "default": default.repo, "pinned": default.pinned})
        return 0
    how = "pinned" if default.pinned else "unversioned" if default.version is None else "newest indexed"
    console().print(f"{esc(group.name)} means {esc(default.repo)} ({how})")
    return 0


def _cmd_rename(args: argparse.Namespace) -> int:
    from docmunch.progress import wait_notice

    with Index.open() as index:
        index.on_wait = wait_notice()  # one line when an index run of either name holds it
        old = index.resolve_repo(args.repo)
        index.rename_repo(args.repo, args.new)  # as typed: `rename book book` renames nothing
    if args.json:
        emit_json({"repo": old, "renamed_to": args.new})
    else:
        console().print(
            f"renamed {esc(old)} to {esc(args.new)} (section ids now start with {esc(args.new)}::)"
        )
    return 0


def _print_pack(report: PackReport, verb: str, *, stderr: bool = False) -> None:
    sizes = (
        f"{report.docs} docs, {report.sections} sections, {report.raw_bytes:,} document bytes in a "
        f"{report.pack_bytes:,}-byte pack"
    )
    seconds = f"({report.elapsed_ms / 1000:.2f} s)"
    if stderr:  # standard output holds the pack itself
        sys.stderr.write(f"docmunch: {verb} {printable(report.repo)}: {sizes} to standard output {seconds}\n")
    else:
        where = "from standard input" if report.path == "-" else esc(report.path)
        console().print(f"{verb} [bold]{esc(report.repo)}[/]: {sizes} {where} {seconds}")


def _cmd_export(args: argparse.Namespace) -> int:
    if args.output == "-":
        return _export_to_stdout(args)
    with Index.open() as index:
        report = index.export_pack(args.repo, Path(args.output), overwrite=args.force)
    if args.json:
        emit_json(report.to_json())
    else:
        _print_pack(report, "exported")
    return 0


def _export_to_stdout(args: argparse.Namespace) -> int:
    """``export -o -``: the pack is written whole (a temporary file in the home) and then copied to
    standard output, which then holds nothing else: the report goes to stderr (``--json`` too)."""
    if sys.stdout.isatty():
        sys.stderr.write(
            "docmunch export: -o - writes a binary pack to standard output, which is a terminal; "
            "redirect it (> FILE, | ssh …) or give -o FILE\n"
        )
        return 2
    with Index.open() as index, tempfile.TemporaryDirectory(prefix=".tmp-pack-", dir=index.home) as tmp:
        report = index.export_pack(args.repo, Path(tmp) / "export.dmpack")
        sys.stdout.flush()
        with open(Path(tmp) / "export.dmpack", "rb") as pack:
            shutil.copyfileobj(pack, sys.stdout.buffer, 2**20)
        sys.stdout.buffer.flush()
    report = dataclasses.replace(report, path="-")
    if args.json:
        sys.stderr.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        _print_pack(report, "exported", stderr=True)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from docmunch.progress import wait_notice

    with Index.open() as index:
        index.on_wait = wait_notice()  # one line when an index run of that repo holds it
        if args.file == "-":
            report = _import_from_stdin(index, args)
        else:
            report = index.import_pack(Path(args.file), as_name=args.as_name, replace=args.replace)
    if args.json:
        emit_json(report.to_json())
    else:
        _print_pack(report, "replaced" if report.replaced else "imported")
    return 0


def _import_from_stdin(index: Index, args: argparse.Namespace) -> PackReport:
    """``import -``: standard input copied into a temporary file in the home (no more bytes than
    the pack's header declares, :func:`docmunch.index.pack_import.spool_pack`), then imported
    like a file; errors name standard input, not the temporary file."""
    with tempfile.TemporaryDirectory(prefix=".tmp-pack-", dir=index.home) as tmp:
        path = Path(tmp) / "stdin.dmpack"
        try:
            spool_pack(sys.stdin.buffer, path)
            report = index.import_pack(path, as_name=args.as_name, replace=args.replace)
        except PackError as exc:
            message = str(exc).replace(str(path), "standard input")
            raise type(exc)(message, path="-") from None
    return dataclasses.replace(report, path="-")


def add_commands(cmd: Register) -> None:
    """Add ``default``, ``rename``, ``export`` and ``import`` to the ``docmunch`` parser."""
    sp = cmd("default", _cmd_default, "show or choose which version a bare NAME means")
    sp.add_argument("repo", metavar="NAME[@VERSION]", help="NAME@VERSION pins it; NAME shows the default")
    sp.add_argument("--unpin", action="store_true", help="the newest indexed version is the default again")
    sp.add_argument("--json", action="store_true")

    sp = cmd("rename", _cmd_rename, "store a repo under another name (e.g. give it a version)")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("new", metavar="NEW_NAME", help="NAME or NAME@VERSION (section ids are rewritten)")
    sp.add_argument("--json", action="store_true")

    sp = cmd("export", _cmd_export, "write a repo (one version) as one portable pack file")
    sp.add_argument("repo", metavar="REPO[@VERSION]")
    sp.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the pack file (.dmpack); - for standard output"
    )
    sp.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    sp.add_argument("--json", action="store_true")

    sp = cmd("import", _cmd_import, "verify a pack and add its repo to the index (all or nothing)")
    sp.add_argument("file", metavar="FILE", help="the pack file; - reads it from standard input")
    sp.add_argument("--as", dest="as_name", metavar="NAME[@VERSION]", help="import under this name")
    sp.add_argument("--replace", action="store_true", help="replace a repo of that name if it exists")
    sp.add_argument("--json", action="store_true")
