"""``docmunch index`` and ``docmunch refresh``: the commands that write sources into the index.

:func:`add_commands` registers both with their arguments. A run ends the same way for both
(:func:`_run_outcome`): ``--json`` prints the :class:`~docmunch.index.IndexReport`, else each
skipped, failed or warned-about path is one line on stderr (long lists summed up:
:data:`_LISTED_SKIPS`, :data:`_SAME_ERROR_LINES`); progress goes to stderr
(:mod:`docmunch.progress`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from docmunch.cli.optional import load_optional
from docmunch.cli.parser import Register, positive
from docmunch.cli.password import add_password_arguments, read_password
from docmunch.errors import InvalidRepoName
from docmunch.index import DEFAULT_MAX_FILE_BYTES, FileError, Index, IndexReport
from docmunch.index.versions import with_version
from docmunch.terminal import console as _console
from docmunch.terminal import counted as _count
from docmunch.terminal import emit_json as _emit_json
from docmunch.terminal import esc as _esc
from docmunch.terminal import one_line as _one_line
from docmunch.terminal import printable as _printable

__all__ = ["add_commands"]

_LISTED_SKIPS = 20
"""Skipped paths printed one per line on stderr; beyond that, one summary line per run."""

_SAME_ERROR_LINES = 3
"""Paths failing with one identical message each get a line; beyond that, one line with the count."""


def _cmd_index(args: argparse.Namespace) -> int:
    source: str = args.source
    started = time.perf_counter()
    if args.repo is not None and not args.repo.strip():
        raise InvalidRepoName(f"invalid repo name {args.repo!r}: it must not be empty", repo=args.repo)
    parse_source = load_optional("docmunch.sources.spec", "parse_source", "indexing URLs")
    spec = parse_source(source)  # SourceError for an unsupported scheme (ftp:, file:)
    source = spec.value
    for option, where in _ignored_options(args, spec.kind):
        sys.stderr.write(f"docmunch: warning: {option} does not apply to {where}; ignored\n")
    local = spec.kind not in ("url", "github")
    password = read_password(args, prog="docmunch index") if local else None  # before any index work
    with Index.open() as index:
        if spec.kind == "url":
            index_url = load_optional("docmunch.sources.web", "index_url", "indexing URLs")
            with _source_progress(args, "crawling" if args.crawl else "fetching") as progress:
                _wait_notice(index, progress)
                report: IndexReport = index_url(
                    index,
                    source,
                    repo=_url_repo(source, args),
                    allow_private=args.allow_private,
                    crawl=args.crawl,
                    max_pages=args.max_pages,
                    scope=args.scope,
                    concurrency=args.concurrency,
                    progress=progress,
                )
        elif spec.kind == "github":
            index_github = load_optional("docmunch.sources.github", "index_github", "indexing GitHub repos")
            with _source_progress(args, "indexing") as progress:
                _wait_notice(index, progress)
                report = index_github(
                    index,
                    source,
                    repo=args.repo,
                    version=args.version,
                    path=args.path,
                    progress=progress,
                    allow_private=args.allow_private,
                )
        else:
            report = _index_local(index, Path(source), args, password)
    if not args.json:
        secs = time.perf_counter() - started
        _console().print(
            f"[bold]{_esc(report.repo)}[/]: {report.docs_indexed} indexed, "
            f"{report.docs_unchanged} unchanged, "
            f"{report.docs_removed} removed, {report.docs_skipped} skipped, "
            f"{_count(len(report.errors), 'error', 'errors')}; "
            f"{_count(report.sections, 'section', 'sections')} ({secs:.2f} s)"
        )
    return _run_outcome(report, args)


_INDEX_OPTIONS: dict[str, tuple[str, frozenset[str]]] = {
    # dest: (option, the source kinds it applies to)
    "allow_private": ("--allow-private", frozenset({"url", "github"})),
    "crawl": ("--crawl", frozenset({"url"})),
    "max_pages": ("--max-pages", frozenset({"url"})),
    "scope": ("--scope", frozenset({"url"})),
    "concurrency": ("--concurrency", frozenset({"url"})),
    "path": ("--path", frozenset({"github"})),
    "full": ("--full", frozenset({"local"})),
    "max_file_bytes": ("--max-file-bytes", frozenset({"local"})),
    "password": ("--password", frozenset({"local"})),
    "password_stdin": ("--password-stdin", frozenset({"local"})),
    "exclude": ("--exclude", frozenset({"local"})),
}
"""``docmunch index`` options that only some kinds of source read (``local`` = a folder or file)."""

_KIND_NAMES = {"url": "a web URL", "github": "a GitHub repo", "local": "a local folder or file"}


def _ignored_options(args: argparse.Namespace, kind: str) -> list[tuple[str, str]]:
    """``(option, what the source is)`` for each option given (not at its default) that a
    ``kind`` source ignores; ``--max-pages``/``--scope``/``--concurrency`` need ``--crawl``."""
    kind = kind if kind in ("url", "github") else "local"
    defaults = _index_defaults()
    out: list[tuple[str, str]] = []
    for dest, (option, kinds) in _INDEX_OPTIONS.items():
        if getattr(args, dest) == getattr(defaults, dest):
            continue
        if kind not in kinds:
            out.append((option, _KIND_NAMES[kind]))
        elif kind == "url" and dest in ("max_pages", "scope", "concurrency") and not args.crawl:
            out.append((option, "a single page (without --crawl)"))
    return out


def _run_outcome(report: IndexReport, args: argparse.Namespace) -> int:
    """Print a run's JSON (``--json``) or its per-file problems (stderr); return the exit status.

    Each failed file or page is one ``docmunch: error PATH: MESSAGE`` line on stderr (a message
    shared by more than :data:`_SAME_ERROR_LINES` paths is printed once, at its first path, with
    the count), each
    warning one ``docmunch: warning PATH: MESSAGE`` line, and each skipped file one
    ``docmunch: skipped PATH: REASON`` line (more than :data:`_LISTED_SKIPS` skips are summed
    up per reason; ``--json`` lists them all). A folder that now holds no file of a known
    format (:attr:`~docmunch.index.IndexReport.nothing_to_index`) is one ``docmunch: MESSAGE``
    line. The run exits 1 when it had errors and nothing was indexed or unchanged (the whole
    request failed), or when the folder held no file of a known format; else 0: one bad file
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
        if report.source_changed is not None:  # refresh now re-reads something else
            sys.stderr.write(f"docmunch: note: {_one_line(report.source_changed['message'])}\n")
        skips = list(zip(report.skipped_paths, report.skipped_reasons, strict=False))
        details = report.skipped_details
        if len(skips) <= _LISTED_SKIPS:
            for i, (path, reason) in enumerate(skips):
                detail = details[i] if i < len(details) and details[i] else ""
                line = f"{reason} ({detail})" if detail else reason
                sys.stderr.write(f"docmunch: skipped {_printable(path)}: {_one_line(line)}\n")
        else:
            counts = Counter(reason for _path, reason in skips)
            summary = ", ".join(f"{reason} {n}" for reason, n in counts.most_common())
            sys.stderr.write(f"docmunch: skipped {report.docs_skipped} ({summary}); --json lists them\n")
        for warning in report.warnings:
            sys.stderr.write(f"docmunch: warning {_printable(warning.path)}: {_one_line(warning.message)}\n")
        same = Counter(_alike(err) for err in report.errors)
        for err in report.errors:
            message, key = _one_line(err.message), _alike(err)
            if same[key] == 0:  # already printed with its count
                continue
            count = ""
            if same[key] > _SAME_ERROR_LINES:
                count = f" (and {same[key] - 1} more with the same error; --json lists them)"
                same[key] = 0
            sys.stderr.write(f"docmunch: error {_printable(err.path)}: {message}{count}\n")
        if report.nothing_to_index is not None:
            sys.stderr.write(f"docmunch: {_one_line(report.nothing_to_index)}\n")
    failed = bool(report.errors) and report.docs_indexed == 0 and report.docs_unchanged == 0
    return 1 if failed or report.nothing_to_index is not None else 0


def _alike(err: FileError) -> str:
    """What makes two errors "the same error": the one-line message with the failing path or
    URL itself left out (``connection refused: URL`` from every page of a server that went away)."""
    message = _one_line(err.message)
    return message.replace(err.path, "\x00") if err.path else message


def _url_repo(url: str, args: argparse.Namespace) -> str | None:
    """``--repo`` with ``--version`` attached (a URL's default repo name is its host[:port])."""
    if args.version is None:
        repo: str | None = args.repo
        return repo
    from docmunch.sources.urls import default_repo_name

    return with_version(args.repo or default_repo_name(url), args.version)


def _index_local(index: Index, path: Path, args: argparse.Namespace, password: str | None) -> IndexReport:
    kwargs: dict[str, Any] = {
        "repo": args.repo,
        "version": args.version,
        "incremental": not args.full,
        "max_file_bytes": args.max_file_bytes,
        "password": password,
        "exclude": tuple(args.exclude or ()),
        "replace": args.replace,
    }
    with _source_progress(args, "indexing") as progress:
        _wait_notice(index, progress)
        return index.index_path(path, progress=progress, **kwargs)


@contextlib.contextmanager
def _source_progress(
    args: argparse.Namespace, label: str
) -> Iterator[Callable[[int, int, str], None] | None]:
    """Progress on stderr for long runs (:mod:`docmunch.progress`); ``None`` with ``--json``.

    A TTY gets a live line (count, rate, ETA, path cut to the width); anything else gets a
    plain line every :data:`~docmunch.progress.PLAIN_INTERVAL_S` seconds.
    """
    if getattr(args, "json", False):
        yield None
        return
    from docmunch.progress import RunProgress

    console = _stderr_console() if sys.stderr.isatty() else None
    with RunProgress(label, console=console).open() as progress:
        yield progress


def _wait_notice(index: Index, progress: Callable[[int, int, str], None] | None) -> None:
    """Make ``index`` say on stderr, in one line, when this run waits for another run of its repo,
    and restart the progress clock when it may go on (:func:`docmunch.progress.wait_notice`)."""
    from docmunch.progress import wait_notice

    index.on_wait = wait_notice(progress)


def _cmd_refresh(args: argparse.Namespace) -> int:
    refresh = load_optional("docmunch.sources.refresh", "refresh_repo", "refresh")
    started = time.perf_counter()
    with Index.open() as index, _source_progress(args, "refreshing") as progress:
        _wait_notice(index, progress)
        repo = index.resolve_repo(args.repo)
        report: IndexReport = refresh(index, repo, allow_private=args.allow_private, progress=progress)
    if not args.json:
        _console().print(
            f"[bold]{_esc(report.repo)}[/]: {report.docs_indexed} changed, "
            f"{report.docs_unchanged} unchanged, "
            f"{report.docs_removed} removed, {_count(len(report.errors), 'error', 'errors')}; "
            f"{_count(report.sections, 'section', 'sections')} ({time.perf_counter() - started:.2f} s)"
        )
    return _run_outcome(report, args)


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def add_commands(cmd: Register) -> None:
    """Register ``index`` and ``refresh`` through ``cmd`` (:data:`docmunch.cli.parser.Register`)."""
    sp = cmd("index", _cmd_index, "index a folder, a file, a URL or github:OWNER/NAME[@REF]")
    _add_index_arguments(sp)

    sp = cmd("refresh", _cmd_refresh, "re-fetch a URL/crawl/GitHub repo; only changed pages are re-indexed")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("--allow-private", action="store_true", help="allow private/loopback addresses")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")


def _add_index_arguments(sp: argparse.ArgumentParser) -> None:
    """The arguments of ``docmunch index`` (also read by :func:`_index_defaults`)."""
    sp.add_argument("source", metavar="SOURCE")
    sp.add_argument("--repo", help="repo name, NAME or NAME@VERSION (default: the folder name)")
    sp.add_argument(
        "--version",
        metavar="V",
        help="index as NAME@V beside other versions (github:O/N@REF does this by itself)",
    )
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument(
        "--max-file-bytes",
        type=positive,
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
    sp.add_argument(
        "--replace", action="store_true", help="index into a repo that holds another source, replacing it"
    )
    add_password_arguments(sp, what="encrypted PDF files")
    sp.add_argument("--allow-private", action="store_true", help="allow URLs on private/loopback addresses")
    sp.add_argument("--crawl", action="store_true", help="follow links/sitemaps under the URL")
    sp.add_argument(
        "--max-pages", type=positive, default=500, metavar="N", help="crawl at most N pages (500)"
    )
    sp.add_argument(
        "--scope", metavar="PREFIX", help="crawl URLs under this prefix (default: the start folder)"
    )
    sp.add_argument("--concurrency", type=positive, default=4, metavar="K", help="pages fetched at once (4)")
    sp.add_argument("--path", metavar="SUBDIR", help="github: index only this folder of the repo")


def _index_defaults() -> argparse.Namespace:
    """Every ``docmunch index`` argument at its default (what a bare ``docmunch index SOURCE`` gets)."""
    scratch = argparse.ArgumentParser()
    _add_index_arguments(scratch)
    return scratch.parse_args(["x"])
