"""``docmunch setup CLIENT… [--dry-run] [--project DIR]`` and ``docmunch doctor`` (CLI handlers)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from docmunch.setup.clients import CLIENTS, client_by_name
from docmunch.setup.doctor import run_checks
from docmunch.setup.install import apply, plan
from docmunch.terminal import console, emit_json, esc

__all__ = ["add_commands"]

Register = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]

_VERBS = {
    "create": ("would create", "created"),
    "add": ("would add docmunch to", "added docmunch to"),
    "update": ("would update docmunch in", "updated docmunch in"),
    "unchanged": ("already set up in", "already set up in"),
}


def _cmd_setup(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    # Every client is planned first: one unreadable config stops the run before any write.
    plans = []
    for name in dict.fromkeys(args.clients):
        client = client_by_name(name)
        path = client.project_config(Path(args.project).absolute()) if args.project else None
        plans.append(plan(client, env=env, path=path))
    results = []
    out = console()
    for setup in plans:
        backup = None if args.dry_run else apply(setup)
        results.append({**setup.to_json(backup=backup, dry_run=args.dry_run), "diff": setup.diff()})
        if args.json:
            continue
        verb = _VERBS[setup.action][0 if args.dry_run else 1]
        note = f" (backup {esc(str(backup))})" if backup else ""
        out.print(f"[bold]{setup.client.name}[/]: {verb} {esc(str(setup.path))}{note}")
        command = " ".join([setup.entry["command"], *setup.entry["args"]])
        out.print(f"  runs {esc(command)}")
        if "env" in setup.entry:
            out.print(f"  env {esc(' '.join(f'{k}={v}' for k, v in setup.entry['env'].items()))}")
        if args.dry_run and setup.action != "unchanged":
            out.print(esc(setup.diff().rstrip("\n")))
        elif setup.action != "unchanged":
            out.print(f"  next: {esc(setup.client.restart)}")
    if args.json:
        emit_json({"results": results})
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    checks = run_checks()
    failed = any(c.status == "error" for c in checks)
    if args.json:
        emit_json({"ok": not failed, "checks": [c.to_json() for c in checks]})
        return 1 if failed else 0
    out = console()
    style = {"ok": "green", "info": "cyan", "warn": "yellow", "error": "red"}
    for c in checks:
        out.print(f"[{style[c.status]}]{c.status:>5}[/]  {esc(c.check)}: {esc(c.message)}")
        if c.fix and c.status != "ok":
            out.print(f"       fix: {esc(c.fix)}")
    out.print("problems found" if failed else "no problems found")
    return 1 if failed else 0


def add_commands(cmd: Register) -> None:
    """Add ``setup`` and ``doctor`` to the ``docmunch`` parser."""
    names = [c.name for c in CLIENTS]
    sp = cmd("setup", _cmd_setup, "register docmunch's MCP server in an agent's config (backup kept)")
    sp.add_argument("clients", nargs="+", choices=names, metavar="CLIENT", help=" | ".join(names))
    sp.add_argument("--dry-run", action="store_true", help="print the change (a diff), write nothing")
    sp.add_argument(
        "--project", metavar="DIR", help="write DIR's project config (.mcp.json, .cursor/, .vscode/) instead"
    )
    sp.add_argument("--json", action="store_true")

    sp = cmd("doctor", _cmd_doctor, "check the install, the index and each client's entry; say how to fix")
    sp.add_argument("--json", action="store_true")
