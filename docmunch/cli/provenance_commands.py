"""``docmunch verify`` and ``docmunch locate``: a section against, and in, its original source.

``verify`` re-hashes every section of a repo (cache, and the original files still on disk);
``locate`` prints where one section's bytes came from (path and byte range, plus its locator:
URL, Word paragraph ids or PDF page boxes). :func:`add_commands` registers both.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from docmunch.cli.parser import Register
from docmunch.index import Index
from docmunch.terminal import console as _console
from docmunch.terminal import emit_json as _emit_json
from docmunch.terminal import esc as _esc
from docmunch.terminal import printable as _printable

__all__ = ["add_commands"]


def _cmd_verify(args: argparse.Namespace) -> int:
    with Index.open() as index:
        report = index.verify_repo(args.repo)
    if args.json:
        _emit_json(report.to_json())
    else:
        console = _console()
        for m in report.mismatches:
            got = f", got {m.actual[:12]}…" if m.actual else ""
            console.print(
                f"[red]MISMATCH[/] ({m.where}) {_esc(m.id)}: {_esc(m.reason)} "
                f"[dim](expected sha256 {m.expected[:12]}…{got})[/]"
            )
        state = "ok" if report.ok else f"{len(report.mismatches)} mismatches"
        console.print(
            f"{report.repo}: {report.sections_checked} sections checked in the cache and "
            f"{report.originals_checked} original files still on disk, {state}"
        )
    return 0 if report.ok else 1


def _cmd_locate(args: argparse.Namespace) -> int:
    with Index.open() as index:
        where = index.locate(args.repo, args.section_id)
    if args.json:
        _emit_json(where)
        return 0
    line = f"{where['source_path']}  bytes {where['byte_start']}-{where['byte_end']}"
    if where["locator"]:
        line += "  " + _locator_text(where["locator"])
    sys.stdout.write(_printable(line) + "\n")
    return 0


def _locator_text(locator: dict[str, Any]) -> str:
    """One readable line for a locator (``--json`` gives the whole record)."""
    if "url" in locator:
        return str(locator["url"])
    if "paraid_start" in locator or "ordinal_start" in locator:
        ids = f"paraId {locator.get('paraid_start')}-{locator.get('paraid_end')}, "
        return (ids if locator.get("paraid_start") else "") + (
            f"paragraphs {locator.get('ordinal_start')}-{locator.get('ordinal_end')}"
        )
    if "pages" in locator:
        pages = []
        for page in locator["pages"]:
            label = f" ({page['page_label']})" if page.get("page_label") else ""
            box = ", ".join(f"{v:.0f}" for v in page.get("bbox") or ())
            pages.append(f"page {page.get('page')}{label} [{box}]")
        return "; ".join(pages) + " (PDF points, origin bottom-left)"
    return json.dumps(locator, ensure_ascii=False)[:200]


def add_commands(cmd: Register) -> None:
    """Register ``verify`` and ``locate`` through ``cmd`` (:data:`docmunch.cli.parser.Register`)."""
    sp = cmd("verify", _cmd_verify, "re-hash every section (cache and original files); exit 1 on mismatch")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("--json", action="store_true")

    sp = cmd("locate", _cmd_locate, "where a section lives in its original source")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("section_id", metavar="SECTION_ID")
    sp.add_argument("--json", action="store_true")
