"""The ``docmunch`` command: a thin layer over :class:`docmunch.index.Index` (design brief §6).

``main(argv) -> int`` parses arguments, calls the index, prints human output (rich) or
``--json`` for scripts on stdout. Errors are one line on stderr with exit status 1, never a
traceback (``DOCMUNCH_DEBUG=1`` shows it for internal errors); Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from docmunch import __version__
from docmunch.errors import DocmunchError, SourceError
from docmunch.index import DEFAULT_MAX_FILE_BYTES, Index, IndexReport, section_toc_json

__all__ = ["build_parser", "main"]


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _optional(module: str, func: str, what: str) -> Callable[..., Any]:
    """``module.func`` when that module exists, else a SourceError saying ``what`` is unsupported."""
    if importlib.util.find_spec(module) is None:
        raise SourceError(f"{what} is not supported yet by this docmunch")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


# --- commands --------------------------------------------------------------------------------
def _cmd_index(args: argparse.Namespace) -> int:
    source: str = args.source
    started = time.perf_counter()
    with Index.open() as index:
        if source.startswith(("http://", "https://")):
            index_url = _optional("docmunch.sources.web", "index_url", "indexing URLs")
            with _source_progress(args, "crawling" if args.crawl else "fetching") as progress:
                report: IndexReport = index_url(
                    index,
                    source,
                    repo=args.repo,
                    allow_private=args.allow_private,
                    crawl=args.crawl,
                    max_pages=args.max_pages,
                    scope=args.scope,
                    concurrency=args.concurrency,
                    progress=progress,
                )
        elif source.startswith("github:"):
            index_github = _optional("docmunch.sources.github", "index_github", "indexing GitHub repos")
            with _source_progress(args, "indexing") as progress:
                report = index_github(
                    index,
                    source,
                    repo=args.repo,
                    path=args.path,
                    progress=progress,
                    allow_private=args.allow_private,
                )
        else:
            report = _index_local(index, Path(source), args)
    if not args.json:
        secs = time.perf_counter() - started
        _console().print(
            f"[bold]{_esc(report.repo)}[/]: {report.docs_indexed} indexed, "
            f"{report.docs_unchanged} unchanged, "
            f"{report.docs_removed} removed, {report.docs_skipped} skipped, {len(report.errors)} errors; "
            f"{report.sections} sections ({secs:.2f} s)"
        )
    return _run_outcome(report, args)


def _run_outcome(report: IndexReport, args: argparse.Namespace) -> int:
    """Print a run's JSON (``--json``) or its per-file problems (stderr); return the exit status.

    Each failed file or page is one ``docmunch: error PATH: MESSAGE`` line on stderr (and each
    skipped file one ``docmunch: skipped PATH: REASON`` line). The run exits 1 when it had
    errors and nothing was indexed or unchanged (the whole request failed), else 0: one bad file
    in a folder is reported, never fatal.
    """
    if args.json:
        _emit_json(report.to_json())
    else:
        if report.interrupted_run is not None:
            run = report.interrupted_run
            sys.stderr.write(
                f"docmunch: note: the previous run of {_printable(report.repo)} (pid {run.get('pid')}, "
                f"started {run.get('started_at')}) was interrupted; this run completed the repo\n"
            )
        for path, reason in zip(report.skipped_paths, report.skipped_reasons, strict=False):
            sys.stderr.write(f"docmunch: skipped {_printable(path)}: {_one_line(reason)}\n")
        for err in report.errors:
            sys.stderr.write(f"docmunch: error {_printable(err.path)}: {_one_line(err.message)}\n")
    failed = bool(report.errors) and report.docs_indexed == 0 and report.docs_unchanged == 0
    return 1 if failed else 0


def _index_local(index: Index, path: Path, args: argparse.Namespace) -> IndexReport:
    kwargs: dict[str, Any] = {
        "repo": args.repo,
        "incremental": not args.full,
        "max_file_bytes": args.max_file_bytes,
        "password": args.password,
        "exclude": tuple(args.exclude or ()),
    }
    with _source_progress(args, "indexing") as progress:
        return index.index_path(path, progress=progress, **kwargs)


@contextlib.contextmanager
def _source_progress(
    args: argparse.Namespace, label: str
) -> Iterator[Callable[[int, int, str], None] | None]:
    """A rich progress bar on stderr for long runs (``None`` when stderr is not a TTY or --json)."""
    if not (sys.stderr.isatty() and not getattr(args, "json", False)):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=_stderr_console(), transient=True) as bar:
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total, description=message[-70:])

        yield progress


def _cmd_refresh(args: argparse.Namespace) -> int:
    refresh = _optional("docmunch.sources.refresh", "refresh_repo", "refresh")
    started = time.perf_counter()
    with Index.open() as index, _source_progress(args, "refreshing") as progress:
        report: IndexReport = refresh(index, args.repo, allow_private=args.allow_private, progress=progress)
    if not args.json:
        _console().print(
            f"[bold]{_esc(report.repo)}[/]: {report.docs_indexed} changed, "
            f"{report.docs_unchanged} unchanged, "
            f"{report.docs_removed} removed, {len(report.errors)} errors; {report.sections} sections "
            f"({time.perf_counter() - started:.2f} s)"
        )
    return _run_outcome(report, args)


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def _cmd_search(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with Index.open() as index:
        hits = index.search(
            args.query,
            repo=args.repo,
            limit=args.limit,
            doc_path=args.doc,
            path_glob=args.glob,
            snippet_bytes=args.snippet,
        )
    latency = round((time.perf_counter() - started) * 1000, 2)
    if args.json:
        _emit_json(
            {
                "results": [h.to_json() for h in hits],
                "_meta": {"latency_ms": latency, "sections_returned": len(hits), "query": args.query},
            }
        )
        return 0
    console = _console()
    if not hits:
        console.print(f"no results for {args.query!r} in {args.repo}")
        return 0
    for h in hits:
        console.print(f"[bold]{h.score:7.2f}[/]  [bold]{_esc(h.title)}[/]  [dim]({_esc(h.doc_path)})[/]")
        console.print(f"         {_esc(h.id)}")
        if h.summary:
            console.print(f"         [dim]{_esc(h.summary)}[/]")
        if h.snippet:
            console.print(_esc(h.snippet))
    return 0


def _cmd_toc(args: argparse.Namespace) -> int:
    with Index.open() as index:
        if args.tree:
            tree = index.toc_tree(args.repo, args.doc_path)
            if args.json:
                _emit_json({"sections": tree})
                return 0
            console = _console()
            _print_tree(console, tree, 0)
            return 0
        sections = index.toc(args.repo, args.doc_path)
    if args.json:
        _emit_json({"sections": [section_toc_json(s) for s in sections]})
        return 0
    console = _console()
    current = None
    for s in sections:
        if s.doc_path != current:
            current = s.doc_path
            console.print(f"[bold]{_esc(current)}[/]")
        indent = "  " * max(s.level, 1)
        console.print(f"{indent}{_esc(s.title)}  [dim]{_esc(s.id)}[/]")
    return 0


def _print_tree(console: Any, nodes: list[dict[str, Any]], depth: int) -> None:
    for node in nodes:
        console.print(f"{'  ' * depth}{_esc(node['title'])}  [dim]{_esc(node['id'])}[/]")
        _print_tree(console, node["children"], depth + 1)


def _cmd_section(args: argparse.Namespace) -> int:
    with Index.open() as index:
        read = index.get_section(args.repo, args.id, verify=args.verify)
    if args.json:
        _emit_json(read.to_json())
        return 0 if read.verified is not False else 1
    s = read.section
    console = _console()
    console.print(f"[dim]{_esc(s.id)}  bytes {s.byte_start}-{s.byte_end}  sha256 {s.content_hash}[/]")
    if read.verified is not None:
        console.print(f"verified: {'true' if read.verified else '[red]false[/]'}")
    sys.stdout.write(read.content if read.content.endswith("\n") else read.content + "\n")
    return 0 if read.verified is not False else 1


def _cmd_list(args: argparse.Namespace) -> int:
    with Index.open() as index:
        repos = index.list_repos()
        home = index.home
    if args.json:
        _emit_json({"repos": [r.to_json() for r in repos]})
        return 0
    console = _console()
    if not repos:
        console.print(f"no repos indexed under {home}; try `docmunch index PATH`")
        return 0
    for r in repos:
        console.print(
            f"[bold]{_esc(r.repo)}[/]  {r.docs} docs, {r.sections} sections, indexed {r.indexed_at}  "
            f"[dim]{_esc(r.source)}[/]"
        )
    return 0


def _cmd_delete(args: argparse.Namespace) -> int:
    with Index.open() as index:
        index.delete_repo(args.repo)
    _console().print(f"deleted {args.repo}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    with Index.open() as index:
        report = index.verify_repo(args.repo)
    if args.json:
        _emit_json(report.to_json())
    else:
        console = _console()
        for m in report.mismatches:
            console.print(f"[red]MISMATCH[/] ({m.where}) {_esc(m.id)}: expected {m.expected}, got {m.actual}")
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
        line += "  " + json.dumps(where["locator"], ensure_ascii=False)
    sys.stdout.write(line + "\n")
    return 0


def _cmd_extract(args: argparse.Namespace) -> int:
    extract = _optional("docmunch.sources.web", "extract_source", "extract")
    result = extract(args.source, format=args.format, allow_private=args.allow_private)
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, indent=2)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    run = _optional("docmunch.serve", "run", "serve")
    return int(run(http=args.http, allow_remote=args.allow_remote))


_SAFE_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _printable(text: str) -> str:
    """``text`` with every character that could break or restyle a terminal line escaped.

    Control characters (C0, DEL, C1: newlines, ``ESC`` colour codes, bells), line/paragraph
    separators, bidirectional overrides ("Trojan Source", CVE-2021-42574) and lone
    surrogates become ``\\n``/``\\t``/``\\xNN``/``\\uNNNN``; everything else is kept.
    """
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch in _SAFE_ESCAPES:
            out.append(_SAFE_ESCAPES[ch])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif ch in _BIDI_CONTROLS or ch in "\u2028\u2029" or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _one_line(message: str) -> str:
    """A message on one printable line: whitespace runs collapsed, then :func:`_printable`."""
    return _printable(" ".join(message.split()))


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# --- parser ----------------------------------------------------------------------------------
def _positive(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(text: str) -> int:
    """argparse type: an integer ≥ 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) instead of the usage block plus a line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of every sub-command (also used for ``--help`` docs)."""
    p = _Parser(prog="docmunch", description="Byte-exact documentation section index.")
    p.add_argument("--version", action="version", version=f"docmunch {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def cmd(name: str, func: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        return sp

    sp = cmd("index", _cmd_index, "index a folder, a file, a URL or github:OWNER/NAME[@REF]")
    sp.add_argument("source", metavar="SOURCE")
    sp.add_argument("--repo", help="repo name (default: the folder name)")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument(
        "--max-file-bytes",
        type=_positive,
        default=DEFAULT_MAX_FILE_BYTES,
        metavar="N",
        help="skip files larger than N bytes (default 5 MiB)",
    )
    sp.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="ignore files matching this .gitignore-style pattern (repeatable)",
    )
    sp.add_argument("--full", action="store_true", help="re-parse every file, even unchanged ones")
    sp.add_argument("--password", help="password of encrypted PDF/DOCX files")
    sp.add_argument("--allow-private", action="store_true", help="allow URLs on private/loopback addresses")
    sp.add_argument("--crawl", action="store_true", help="follow links/sitemaps under the URL")
    sp.add_argument(
        "--max-pages", type=_positive, default=500, metavar="N", help="crawl at most N pages (500)"
    )
    sp.add_argument(
        "--scope", metavar="PREFIX", help="crawl URLs under this prefix (default: the start folder)"
    )
    sp.add_argument("--concurrency", type=_positive, default=4, metavar="K", help="pages fetched at once (4)")
    sp.add_argument("--path", metavar="SUBDIR", help="github: index only this folder of the repo")

    sp = cmd("refresh", _cmd_refresh, "re-fetch a URL/crawl/GitHub repo; only changed pages are re-indexed")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("--allow-private", action="store_true", help="allow private/loopback addresses")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")

    sp = cmd("search", _cmd_search, "search the sections of a repo")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("query", metavar="QUERY")
    sp.add_argument("--limit", type=_positive, default=10, metavar="N")
    sp.add_argument("--doc", metavar="PATH", help="only this doc_path")
    sp.add_argument("--glob", metavar="PATTERN", help="only doc_paths matching this fnmatch pattern")
    sp.add_argument(
        "--snippet", type=_non_negative, default=0, metavar="BYTES",
        help="include the first BYTES of each hit",
    )
    sp.add_argument("--json", action="store_true")

    sp = cmd("toc", _cmd_toc, "table of contents of a repo or one document")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("doc_path", metavar="DOC_PATH", nargs="?")
    sp.add_argument("--tree", action="store_true", help="nested outline")
    sp.add_argument("--json", action="store_true")

    sp = cmd("section", _cmd_section, "print one section's exact bytes")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("id", metavar="SECTION_ID")
    sp.add_argument("--verify", action="store_true", help="re-hash the bytes against content_hash")
    sp.add_argument("--json", action="store_true")

    sp = cmd("list", _cmd_list, "list indexed repos")
    sp.add_argument("--json", action="store_true")

    sp = cmd("delete", _cmd_delete, "delete a repo from the index")
    sp.add_argument("repo", metavar="REPO")

    sp = cmd("verify", _cmd_verify, "re-hash every section (cache and original files); exit 1 on mismatch")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("--json", action="store_true")

    sp = cmd("locate", _cmd_locate, "where a section lives in its original source")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("section_id", metavar="SECTION_ID")
    sp.add_argument("--json", action="store_true")

    sp = cmd("extract", _cmd_extract, "extract the main content of a web page or file")
    sp.add_argument("source", metavar="URL|FILE")
    sp.add_argument("--format", choices=("markdown", "json", "html"), default="markdown")
    sp.add_argument("--allow-private", action="store_true")

    sp = cmd("serve", _cmd_serve, "run the MCP server (stdio, or streamable HTTP with --http)")
    sp.add_argument("--http", metavar="HOST:PORT")
    sp.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback HOST (needs DOCMUNCH_TOKEN)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 error, 2 usage error, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except DocmunchError as exc:
        sys.stderr.write(f"docmunch: {_one_line(str(exc))}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("docmunch: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:
        if os.environ.get("DOCMUNCH_DEBUG"):
            traceback.print_exc()
        msg = _one_line(str(exc)) or type(exc).__name__
        sys.stderr.write(f"docmunch: internal error: {msg} (set DOCMUNCH_DEBUG=1 for the traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
