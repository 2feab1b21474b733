"""``docmunch verify`` and ``docmunch locate``: a section against, and in, its original source.

``verify`` re-hashes every section of a repo (cache, and the original files of sources stored
as the user's bytes, when still on disk) and says what it checked where;
``locate`` prints where one section came from: the source, its place there (locator: URL,
Word paragraph ids, PDF page boxes, notebook cells) and what its byte range is a range of —
the user's file for sources stored unchanged, else the stored Markdown rendition.
:func:`add_commands` registers both.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from docmunch.cli.parser import Register
from docmunch.index import Index, VerifyReport
from docmunch.terminal import console as _console
from docmunch.terminal import counted as _count
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
                f"[red]MISMATCH[/] ({m.where}) {_esc(m.id, keep='')}: {_esc(m.reason, keep='')} "
                f"[dim](expected sha256 {m.expected[:12]}…{got})[/]"
            )
        console.print(_verify_summary(report))
    return 0 if report.ok else 1


def _verify_summary(report: VerifyReport) -> str:
    """The last line of ``verify``: what was checked where, then ``ok`` or the mismatch count.

    ``o: 12 sections checked in the cache, 1 original file re-read from disk, 2 documents
    (converted sources such as PDF or DOCX) checked in the cache only, ok``.
    """
    parts = [_count(report.sections_checked, "section", "sections") + " checked in the cache"]
    originals = ("original file", "original files")
    if report.originals_checked:
        parts.append(_count(report.originals_checked, *originals) + " re-read from disk")
    if report.originals_missing:
        parts.append(_count(report.originals_missing, *originals) + " not found (not a mismatch)")
    if report.cache_only:
        parts.append(
            _count(report.cache_only, "document", "documents")
            + " (converted sources such as PDF or DOCX, or without a local file) checked in the cache only"
        )
    parts.append("ok" if report.ok else _count(len(report.mismatches), "mismatch", "mismatches"))
    return f"{_esc(report.repo)}: " + ", ".join(parts)


_KIND_NAMES = {
    "markdown": "Markdown",
    "text": "text",
    "rst": "reStructuredText",
    "mdx": "MDX",
    "docx": "DOCX",
    "pdf": "PDF",
    "html": "HTML file",
    "url": "web page",
    "ipynb": "notebook",
}
"""How ``locate`` names each ``source_kind`` (an unknown kind is printed as it is)."""


def _cmd_locate(args: argparse.Namespace) -> int:
    with Index.open() as index:  # no REPO: the repo the id names (Index.section_repo)
        where = index.locate(args.repo, args.section_id)
    if args.json:
        _emit_json(where)
        return 0
    sys.stdout.write("".join(_printable(line) + "\n" for line in _locate_lines(where)))
    return 0


def _locate_lines(where: dict[str, Any]) -> list[str]:
    """The human form of :meth:`Index.locate`: one labelled line each for the source, the place
    in it (when the section has a locator) and what the byte range is a range of — the file
    itself, the stored Markdown rendition of a converted source (never the PDF's or DOCX's own
    bytes), or the stored UTF-8 form of a UTF-16/32 text file."""
    kind = _KIND_NAMES.get(where["source_kind"], where["source_kind"])
    lines = [f"source:   {where['source_path']} ({kind})"]
    if where["locator"]:
        lines.append(f"location: {_locator_text(where['locator'])}")
    span = f"{where['byte_start']}-{where['byte_end']}"
    if where["byte_range_of"] == "original":
        same = "stored unchanged: the cache holds the same bytes"
        lines.append(f"bytes:    {span} of the file itself ({same})")
    elif where["byte_range_of"] == "stored_utf8":
        codec = str(where["source_encoding"]).upper()
        lines.append(
            f"bytes:    {span} of the stored UTF-8 form of this {codec} file, not of the file itself "
            f"(`docmunch section` prints them)"
        )
    else:
        lines.append(
            f"bytes:    {span} of the stored Markdown rendition, not of the {kind} "
            f"(`docmunch section` prints them)"
        )
    return lines


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
    cells = [p.get("index") for p in locator.get("positions") or () if p.get("type") == "cell"]
    if cells:
        return "cells " + ", ".join(str(c) for c in cells) + " (0-based, in the notebook's order)"
    return json.dumps(locator, ensure_ascii=False)[:200]


def add_commands(cmd: Register) -> None:
    """Register ``verify`` and ``locate`` through ``cmd`` (:data:`docmunch.cli.parser.Register`)."""
    sp = cmd("verify", _cmd_verify, "re-hash every section (cache and original files); exit 1 on mismatch")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("--json", action="store_true")

    sp = cmd("locate", _cmd_locate, "where a section lives in its original source")
    sp.add_argument("repo", metavar="REPO", nargs="?", help="default: the repo the id names (before its ::)")
    sp.add_argument("section_id", metavar="SECTION_ID")
    sp.add_argument("--json", action="store_true")
