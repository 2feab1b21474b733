"""``docmunch default | rename | export | import``: versions and portable packs (a part of the CLI).

Registered by :func:`docmunch.cli.build_parser` through :func:`add_commands`; like every
command they are thin calls into :class:`docmunch.index.Index` and print human text or
``--json`` (shapes in docs/cli.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from docmunch.index import Index, PackReport
from docmunch.terminal import console, emit_json, esc

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
    with Index.open() as index:
        old = index.resolve_repo(args.repo)
        index.rename_repo(args.repo, args.new)  # as typed: `rename book book` renames nothing
    if args.json:
        emit_json({"repo": old, "renamed_to": args.new})
    else:
        console().print(
            f"renamed {esc(old)} to {esc(args.new)} (section ids now start with {esc(args.new)}::)"
        )
    return 0


def _print_pack(report: PackReport, verb: str) -> None:
    console().print(
        f"{verb} [bold]{esc(report.repo)}[/]: {report.docs} docs, {report.sections} sections, "
        f"{report.raw_bytes:,} document bytes in a {report.pack_bytes:,}-byte pack "
        f"{esc(report.path)} ({report.elapsed_ms / 1000:.2f} s)"
    )


def _cmd_export(args: argparse.Namespace) -> int:
    with Index.open() as index:
        report = index.export_pack(args.repo, Path(args.output), overwrite=args.force)
    if args.json:
        emit_json(report.to_json())
    else:
        _print_pack(report, "exported")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from docmunch.progress import wait_notice

    with Index.open() as index:
        index.on_wait = wait_notice()  # one line when an index run of that repo holds it
        report = index.import_pack(Path(args.file), as_name=args.as_name, replace=args.replace)
    if args.json:
        emit_json(report.to_json())
    else:
        _print_pack(report, "replaced" if report.replaced else "imported")
    return 0


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
    sp.add_argument("-o", "--output", required=True, metavar="FILE", help="the pack file (.dmpack)")
    sp.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    sp.add_argument("--json", action="store_true")

    sp = cmd("import", _cmd_import, "verify a pack and add its repo to the index (all or nothing)")
    sp.add_argument("file", metavar="FILE")
    sp.add_argument("--as", dest="as_name", metavar="NAME[@VERSION]", help="import under this name")
    sp.add_argument("--replace", action="store_true", help="replace a repo of that name if it exists")
    sp.add_argument("--json", action="store_true")
