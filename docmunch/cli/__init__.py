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
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from docmunch import __version__, cli_versions
from docmunch.errors import DocmunchError, InvalidRepoName, RepoNotFound, SourceError, UnknownVersion
from docmunch.index import DEFAULT_MAX_FILE_BYTES, Index, IndexReport, SectionRead, section_toc_json
from docmunch.index.versions import with_version
from docmunch.setup import commands as setup_commands
from docmunch.suggest import near_matches
from docmunch.terminal import console as _console
from docmunch.terminal import emit_json as _emit_json
from docmunch.terminal import esc as _esc
from docmunch.terminal import one_line as _one_line
from docmunch.terminal import printable as _printable

__all__ = ["build_parser", "main"]

_LISTED_SKIPS = 20
"""Skipped paths printed one per line on stderr; beyond that, one summary line per run."""

_SAME_ERROR_LINES = 3
"""Paths failing with one identical message each get a line; beyond that, one line with the count."""


def _optional(module: str, func: str, what: str) -> Callable[..., Any]:
    """``module.func`` when that module exists, else a SourceError saying ``what`` is unsupported."""
    if importlib.util.find_spec(module) is None:
        raise SourceError(f"{what} is not supported yet by this docmunch")
    found: Callable[..., Any] = getattr(importlib.import_module(module), func)
    return found


# --- commands --------------------------------------------------------------------------------
def _cmd_index(args: argparse.Namespace) -> int:
    source: str = args.source
    started = time.perf_counter()
    if args.repo is not None and not args.repo.strip():
        raise InvalidRepoName(f"invalid repo name {args.repo!r}: it must not be empty", repo=args.repo)
    parse_source = _optional("docmunch.sources.spec", "parse_source", "indexing URLs")
    spec = parse_source(source)  # SourceError for an unsupported scheme (ftp:, file:)
    source = spec.value
    for option, where in _ignored_options(args, spec.kind):
        sys.stderr.write(f"docmunch: warning: {option} does not apply to {where}; ignored\n")
    with Index.open() as index:
        if spec.kind == "url":
            index_url = _optional("docmunch.sources.web", "index_url", "indexing URLs")
            with _source_progress(args, "crawling" if args.crawl else "fetching") as progress:
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
            index_github = _optional("docmunch.sources.github", "index_github", "indexing GitHub repos")
            with _source_progress(args, "indexing") as progress:
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
    "exclude": ("--exclude", frozenset({"local"})),
}
"""``docmunch index`` options that only some kinds of source read (``local`` = a folder or file)."""

_KIND_NAMES = {"url": "a web URL", "github": "a GitHub repo", "local": "a local folder or file"}


def _ignored_options(args: argparse.Namespace, kind: str) -> list[tuple[str, str]]:
    """``(option, what the source is)`` for each option given (not at its default) that a
    ``kind`` source ignores; ``--max-pages``/``--scope``/``--concurrency`` need ``--crawl``."""
    kind = kind if kind in ("url", "github") else "local"
    defaults = build_parser().commands["index"].parse_args(["x"])
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
    up per reason; ``--json`` lists them all). The run exits 1 when it had errors and nothing
    was indexed or unchanged (the whole request failed), else 0: one bad file in a folder is
    reported, never fatal.
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
        same = Counter(_one_line(err.message) for err in report.errors)
        for err in report.errors:
            message = _one_line(err.message)
            if same[message] == 0:  # already printed with its count
                continue
            count = ""
            if same[message] > _SAME_ERROR_LINES:
                count = f" (and {same[message] - 1} more with the same error; --json lists them)"
                same[message] = 0
            sys.stderr.write(f"docmunch: error {_printable(err.path)}: {message}{count}\n")
    failed = bool(report.errors) and report.docs_indexed == 0 and report.docs_unchanged == 0
    return 1 if failed else 0


def _url_repo(url: str, args: argparse.Namespace) -> str | None:
    """``--repo`` with ``--version`` attached (a URL's default repo name is its host[:port])."""
    if args.version is None:
        repo: str | None = args.repo
        return repo
    from docmunch.sources.urls import default_repo_name

    return with_version(args.repo or default_repo_name(url), args.version)


def _index_local(index: Index, path: Path, args: argparse.Namespace) -> IndexReport:
    kwargs: dict[str, Any] = {
        "repo": args.repo,
        "version": args.version,
        "incremental": not args.full,
        "max_file_bytes": args.max_file_bytes,
        "password": args.password,
        "exclude": tuple(args.exclude or ()),
        "replace": args.replace,
    }
    with _source_progress(args, "indexing") as progress:
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


def _cmd_refresh(args: argparse.Namespace) -> int:
    refresh = _optional("docmunch.sources.refresh", "refresh_repo", "refresh")
    started = time.perf_counter()
    with Index.open() as index, _source_progress(args, "refreshing") as progress:
        repo = index.resolve_repo(args.repo)
        report: IndexReport = refresh(index, repo, allow_private=args.allow_private, progress=progress)
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
    # `search QUERY` and `search --all QUERY...` search every repo; `search REPO QUERY...` one repo.
    words: list[str] = args.words
    if not words:
        sys.stderr.write("docmunch search: QUERY is missing (see 'docmunch search --help')\n")
        return 2
    if args.all or len(words) == 1:
        args.repo, args.query = None, " ".join(words)
    else:
        args.repo, args.query = words[0], " ".join(words[1:])
    started = time.perf_counter()
    with Index.open() as index:
        if len(words) == 1 and not args.all and any(r.repo == words[0] for r in index.list_repos()):
            sys.stderr.write(
                f"docmunch: note: searching every repo for {_printable(words[0])!r}; to search repo "
                f"{_printable(words[0])} give a query too: docmunch search {_printable(words[0])} QUERY\n"
            )
        try:
            hits = index.search(
                args.query,
                repo=args.repo,
                limit=args.limit,
                doc_path=args.doc,
                path_glob=args.glob,
                snippet_bytes=args.snippet,
            )
        except RepoNotFound as error:
            if args.repo is None or isinstance(error, UnknownVersion) or error.suggestions:
                raise
            # an unquoted question reads as REPO QUERY: say how to search for all of it
            whole = _printable(" ".join(words))
            raise RepoNotFound(
                error.repo, f"{error}; to search every repo for the whole question, quote it or "
                f"use --all: docmunch search --all {whole}"
            ) from error
        empty = None if hits else index.explain_empty(
            args.query, repo=args.repo, doc_path=args.doc, path_glob=args.glob
        )
    latency = round((time.perf_counter() - started) * 1000, 2)
    if args.json:
        answer: dict[str, Any] = {"results": [h.to_json() for h in hits]}
        if empty is not None:
            answer["no_results"] = empty.to_json()
        answer["_meta"] = {"latency_ms": latency, "sections_returned": len(hits), "query": args.query}
        _emit_json(answer)
    if empty is not None:  # like an unknown section or document: one line on stderr, exit 1
        sys.stderr.write(f"docmunch: no results: {_one_line(empty.message)}\n")
        return 1
    if args.json:
        return 0
    console = _console()
    for h in hits:
        place = h.doc_path if args.repo is not None else f"{h.repo}: {h.doc_path}"
        console.print(f"[bold]{h.score:7.2f}[/]  [bold]{_esc(h.title)}[/]  [dim]({_esc(place)})[/]")
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
        console.print(f"verified: {'true' if read.verified else '[red]false[/]'} ({_checks_text(read)})")
    sys.stdout.write(read.content if read.content.endswith("\n") else read.content + "\n")
    return 0 if read.verified is not False else 1


def _checks_text(read: SectionRead) -> str:
    """What ``section --verify`` re-hashed, e.g. ``cache ok; original /abs/a.md MISMATCH (...)``."""
    parts = []
    for check in read.checks:
        name = "cache" if check.where == "cache" else f"original {_esc(check.path)}"
        if check.ok is None:
            parts.append(f"{name} not checked: the file is gone")
        elif check.ok:
            parts.append(f"{name} ok")
        else:
            hint = "changed since it was indexed, re-index it" if check.where == "original" else "corrupt"
            parts.append(f"{name} [red]MISMATCH[/]: {hint}")
    if not any(check.where == "original" for check in read.checks):
        parts.append("no original file to check (converted or remote source)")
    return "; ".join(parts)


def _cmd_list(args: argparse.Namespace) -> int:
    with Index.open() as index:
        groups = index.list_groups()
        home = index.home
    if args.json:
        _emit_json({"repos": [g.to_json() for g in groups]})
        return 0
    console = _console()
    if not groups:
        console.print(f"no repos indexed under {home}; try `docmunch index PATH`")
        return 0
    for g in groups:
        if len(g.versions) == 1 and g.versions[0].version is None:
            r = g.versions[0]
            console.print(
                f"[bold]{_esc(r.repo)}[/]  {r.docs} docs, {r.sections} sections, indexed {r.indexed_at}  "
                f"[dim]{_esc(_origin(r))}[/]{_last_run(r)}"
            )
            continue
        console.print(f"[bold]{_esc(g.name)}[/]  [dim]bare name means[/] {_esc(g.default.repo)}")
        for r in g.versions:
            mark = "pinned default" if r.pinned else "default" if r.default else ""
            label = _esc(r.version or "(unversioned)")
            console.print(
                f"  {label:<16} {mark:<14} {r.docs} docs, {r.sections} sections, "
                f"indexed {r.indexed_at}  [dim]{_esc(_origin(r))}[/]{_last_run(r)}"
            )
    return 0


def _last_run(info: Any) -> str:
    if info.last_run == "running":
        return "  [yellow](being indexed now)[/]"
    if info.last_run == "interrupted":
        return "  [yellow](last run interrupted: index it again to complete it)[/]"
    return ""


def _origin(info: Any) -> str:
    """Where a repo came from: its source, plus the git ref and commit when it has them."""
    if info.commit:
        ref = info.ref or "(default branch)"
        return f"{info.source.rsplit('@', 1)[0]} ref {ref} commit {info.commit[:12]}"
    return str(info.source)


def _cmd_delete(args: argparse.Namespace) -> int:
    with Index.open() as index:
        deleted = index.delete_repo(args.repo)
    _console().print(f"deleted {', '.join(_esc(name) for name in deleted)}")
    return 0


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


def _cmd_extract(args: argparse.Namespace) -> int:
    extract = _optional("docmunch.sources.web", "extract_source", "extract")
    result = extract(
        args.source, format=args.format, allow_private=args.allow_private, password=args.password
    )
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, indent=2)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    run = _optional("docmunch.serve", "run", "serve")
    return int(run(http=args.http, allow_remote=args.allow_remote, allow_private=args.allow_private))


# --- parser ----------------------------------------------------------------------------------
def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None


def _positive(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(text: str) -> int:
    """argparse type: an integer ≥ 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


def _host_port(text: str) -> str:
    """argparse type: ``HOST:PORT`` (``[::1]:PORT``, ``:PORT``) with a port 0–65535."""
    _host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT with a port 0-65535, e.g. 127.0.0.1:8765, not {text!r}"
        )
    return text


_REPO_HELP = "NAME (its default version), NAME@VERSION or NAME@* (every version)"


_SEARCH_OPTIONS: dict[str, int] = {}
"""``docmunch search``'s option strings → how many values each takes (set by :func:`build_parser`)."""


def _option_arity(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Option string → number of values, for every option of ``parser`` (``-h`` included)."""
    table: dict[str, int] = {}
    for action in parser._actions:  # argparse has no public list of a parser's actions
        count = 0 if action.nargs == 0 else 1
        for option in action.option_strings:
            table[option] = count
    return table


class _UsageError(Exception):
    """A command line the parser would misread; the message is printed as is, exit 2."""


def _search_argv(argv: list[str]) -> list[str]:
    """``docmunch search`` argv with every token that is not one of its options (or an
    option's value) moved behind ``--``, so a query such as ``--dry-run`` or
    ``-o=json`` is a query word and options may stand before or after the query.

    Raises:
        _UsageError: a token before ``--`` is a near miss of a search option (``--limt``,
            ``--jsn``, a prefix such as ``--lim``; :func:`docmunch.suggest.near_matches`).
    """
    if not argv or argv[0] != "search":
        return argv
    options: list[str] = []
    words: list[str] = []
    rest = iter(argv[1:])
    for token in rest:
        if token == "--":
            words.extend(rest)
            break
        name = token.split("=", 1)[0]
        arity = _SEARCH_OPTIONS.get(name if token.startswith("--") else token)
        if arity is None:
            _refuse_near_option("docmunch search", name, _SEARCH_OPTIONS)
            words.append(token)
            continue
        options.append(token)
        if arity and "=" not in token:
            options.extend(next(rest, "") for _ in range(arity))
    return ["search", *options, *(["--", *words] if words else [])]


def _near_options(name: str, options: Iterable[str]) -> list[str]:
    """Long options that ``name`` (a token starting with ``-``, not a number, at least two
    letters after the dashes: ``-x`` stays a query word) likely meant."""
    core = name.lstrip("-")
    if not name.startswith("-") or len(core) < 2 or core[0].isdigit():
        return []
    return near_matches(name, [o for o in options if o.startswith("--")], strip="-")


def _refuse_near_option(prog: str, name: str, options: Iterable[str]) -> None:
    """Raise :class:`_UsageError` when ``name`` is a near miss of one of ``options``."""
    near = _near_options(name, options)
    if near:
        raise _UsageError(
            f"{prog}: unknown option {name!r} (did you mean {' or '.join(near)}?); "
            "to search for it, put it after '--'"
        )


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) instead of the usage block plus a line;
    ``commands`` maps each sub-command's name to its parser (set by :func:`build_parser`)."""

    commands: Mapping[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, with unrecognized arguments reported by the sub-command's
    parser (its name, its ``--help``) and a did-you-mean for a near-miss option (exit 2)."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    commands: Mapping[str, argparse.ArgumentParser] = getattr(parser, "commands", {})
    sub = commands.get(str(getattr(args, "command", "")), parser)
    near = next((n for t in extra if (n := _near_options(t.split("=", 1)[0], _option_arity(sub)))), [])
    hint = f" (did you mean {' or '.join(near)}?)" if near else ""
    sub.error(f"unrecognized arguments: {' '.join(extra)}{hint}")  # exits 2


def build_parser() -> _Parser:
    """The argparse parser of every sub-command (also used for ``--help`` docs)."""
    p = _Parser(prog="docmunch", description="Byte-exact documentation section index.")
    p.add_argument("--version", action="version", version=f"docmunch {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    p.commands = sub.choices

    def cmd(name: str, func: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        return sp

    sp = cmd("index", _cmd_index, "index a folder, a file, a URL or github:OWNER/NAME[@REF]")
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
    sp.add_argument(
        "--replace", action="store_true", help="index into a repo that holds another source, replacing it"
    )
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

    sp = cmd("search", _cmd_search, "search sections with keywords or a question (one repo, or all)")
    sp.add_argument(
        "words",
        metavar="[REPO] QUERY",
        nargs="*",
        help=f"REPO: {_REPO_HELP}; omit it (or use --all) to search every repo. QUERY: keywords or a "
        "plain question in any language; words after REPO are the query, and a query may start "
        "with '-' (--dry-run)",
    )
    sp.add_argument("--all", action="store_true", help="search every repo: docmunch search --all QUERY")
    sp.add_argument("--limit", type=_positive, default=10, metavar="N")
    sp.add_argument("--doc", metavar="PATH", help="only this doc_path")
    sp.add_argument("--glob", metavar="PATTERN", help="only doc_paths matching this fnmatch pattern")
    sp.add_argument(
        "--snippet", type=_non_negative, default=0, metavar="BYTES",
        help="include the first BYTES of each hit",
    )
    sp.add_argument("--json", action="store_true")
    global _SEARCH_OPTIONS
    _SEARCH_OPTIONS = _option_arity(sp)

    sp = cmd("toc", _cmd_toc, "table of contents of a repo or one document")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("doc_path", metavar="DOC_PATH", nargs="?")
    sp.add_argument("--tree", action="store_true", help="nested outline")
    sp.add_argument("--json", action="store_true")

    sp = cmd("section", _cmd_section, "print one section's exact bytes")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("id", metavar="SECTION_ID")
    sp.add_argument(
        "--verify",
        action="store_true",
        help="re-hash the bytes (cache, and the original file of local text sources) against content_hash",
    )
    sp.add_argument("--json", action="store_true")

    sp = cmd("list", _cmd_list, "list indexed repos")
    sp.add_argument("--json", action="store_true")

    sp = cmd("delete", _cmd_delete, "delete a repo from the index")
    sp.add_argument("repo", metavar="REPO", help=_REPO_HELP)
    cli_versions.add_commands(cmd)
    setup_commands.add_commands(cmd)

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
    sp.add_argument("--password", help="password of an encrypted PDF/DOCX file")

    sp = cmd("serve", _cmd_serve, "run the MCP server (stdio, or streamable HTTP with --http)")
    sp.add_argument("--http", metavar="HOST:PORT", type=_host_port)
    sp.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback HOST (needs DOCMUNCH_TOKEN)"
    )
    sp.add_argument(
        "--allow-private",
        action="store_true",
        help="let index_url/extract_url fetch private/loopback addresses (= DOCMUNCH_ALLOW_PRIVATE=1)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 error, 2 usage error, 130 interrupted,
    141 when the reader of stdout went away, as a SIGPIPE would end a C tool)."""
    parser = build_parser()
    try:
        args = _parse(parser, _search_argv(list(sys.argv[1:] if argv is None else argv)))
    except _UsageError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    try:
        status = int(args.func(args))
        sys.stdout.flush()  # here, so a reader that went away is seen below, not at exit
        return status
    except DocmunchError as exc:
        message = _one_line(str(exc))
        sys.stderr.write(f"docmunch: {message}\n")
        if getattr(args, "json", False):  # scripts get a JSON answer on stdout too
            with contextlib.suppress(OSError):
                _emit_json({"error": {"type": type(exc).__name__, "message": " ".join(str(exc).split())}})
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("docmunch: interrupted\n")
        return 130
    except BrokenPipeError:  # `docmunch … | head`: the reader left; end as SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 128 + signal.SIGPIPE
    except Exception as exc:
        if os.environ.get("DOCMUNCH_DEBUG"):
            traceback.print_exc()
        msg = _one_line(str(exc)) or type(exc).__name__
        sys.stderr.write(f"docmunch: internal error: {msg} (set DOCMUNCH_DEBUG=1 for the traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
