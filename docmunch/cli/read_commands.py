"""``docmunch search | toc | section | list | delete``: the commands over what is indexed.

``search``, ``toc``, ``section`` and ``list`` read the index (human text, or ``--json``;
shapes in docs/cli.md); ``delete`` removes a repo. :func:`add_commands` registers them with
their arguments.
"""

from __future__ import annotations

import argparse
import codecs
import sys
import time
from typing import Any

from docmunch.cli.parser import REPO_HELP, Register, non_negative, positive_at_most
from docmunch.errors import RepoNotFound, UnknownVersion
from docmunch.index import MAX_HITS, Index, SectionRead, section_toc_json
from docmunch.index.querytext import QUERY_MAX_CHARS, query_cut
from docmunch.index.records import echo_query
from docmunch.terminal import console as _console
from docmunch.terminal import counted as _counted
from docmunch.terminal import emit_json as _emit_json
from docmunch.terminal import esc as _esc
from docmunch.terminal import one_line as _one_line
from docmunch.terminal import printable as _printable

__all__ = ["add_commands"]

_HIT_INDENT = " " * 9
"""Indent of a search hit's lines under its score (the width of ``f"{score:7.2f}  "``)."""


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
    if args.min_level is not None and args.max_level is not None and args.min_level > args.max_level:
        sys.stderr.write(
            f"docmunch search: --min-level {args.min_level} is above --max-level {args.max_level}, "
            "so no section can match; swap them\n"
        )
        return 2
    length = None  # characters of the whole query, when more was given than is kept (stdin)
    if args.query == "-":  # the query is on stdin: a pasted log longer than an argument may be
        args.query, length = _stdin_query()
        if not args.query.strip():
            sys.stderr.write("docmunch search: the query read from stdin is empty\n")
            return 2
    started = time.perf_counter()
    repo_note = None  # a one-word query that names a repo: said after the answer, like every note
    with Index.open() as index:
        if len(words) == 1 and not args.all and any(r.repo == words[0] for r in index.list_repos()):
            repo_note = (
                f"searching every repo for {_printable(words[0])!r}; to search repo "
                f"{_printable(words[0])} give a query too: docmunch search {_printable(words[0])} QUERY"
            )
        try:
            hits = index.search(
                args.query,
                repo=args.repo,
                limit=args.limit,
                doc_path=args.doc,
                path_glob=args.glob,
                min_level=args.min_level,
                max_level=args.max_level,
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
            args.query, repo=args.repo, doc_path=args.doc, path_glob=args.glob,
            min_level=args.min_level, max_level=args.max_level,
        )  # fmt: skip
        unmatched = index.unmatched_words(args.query, repo=args.repo) if hits else ()
        corrected = index.corrected_words(args.query, repo=args.repo) if hits else {}
        cut = query_cut(args.query)  # a query over QUERY_MAX_CHARS is searched by its start
    cut_note = None if cut is None else (
        f"searched the first {cut:,} of the query's {length or len(args.query):,} characters "
        f"(set {QUERY_MAX_CHARS.env} to raise the limit)"
    )  # fmt: skip
    latency = round((time.perf_counter() - started) * 1000, 2)
    if args.json:
        answer: dict[str, Any] = {"results": [h.to_json() for h in hits]}
        if empty is not None:
            answer["no_results"] = empty.to_json()
        if unmatched:
            answer["unmatched_words"] = list(unmatched)
        if corrected:
            answer["corrected_words"] = corrected
        if cut is not None:
            answer["query_cut_at"] = cut
        answer["_meta"] = {
            "latency_ms": latency, "sections_returned": len(hits), "query": echo_query(args.query)
        }
        _emit_json(answer)
    if args.json or empty is not None:  # the answer first, then any line on stderr (one pipe: in order)
        sys.stdout.flush()
        if repo_note is not None:
            sys.stderr.write(f"docmunch: note: {repo_note}\n")
    if empty is not None:  # like an unknown section or document: one line on stderr, exit 1
        if cut_note is not None:  # what was not searched may hold the words that would match
            sys.stderr.write(f"docmunch: note: {cut_note}\n")
        sys.stderr.write(f"docmunch: no results: {_one_line(empty.message)}\n")
        return 1
    if args.json:
        return 0
    console = _console()
    for h in hits:
        place = h.doc_path if args.repo is not None else f"{h.repo}: {h.doc_path}"
        title, where = _esc(h.title, keep=""), _esc(place, keep="")
        console.print(f"[bold]{h.score:7.2f}[/]  [bold]{title}[/]  [dim]({where})[/]")
        console.print(f"{_HIT_INDENT}{_esc(h.id, keep='')}")
        if h.summary:
            console.print(f"{_HIT_INDENT}[dim]{_esc(h.summary)}[/]")
        if h.snippet:
            console.print(_esc(_indented(h.snippet)))
    plain = [word for word in unmatched if word not in corrected]
    if repo_note is not None:
        sys.stdout.flush()
        sys.stderr.write(f"docmunch: note: {repo_note}\n")
    if corrected or plain or cut_note is not None:  # say once, after the results, what they do not rest on
        notes = []
        if cut_note is not None:
            notes.append(cut_note)
        if corrected:
            pairs = (f"{_printable(word)} as {_printable(fixed)}" for word, fixed in corrected.items())
            notes.append("searched " + ", ".join(pairs))
        if plain:
            where = f"repo {_printable(args.repo)}" if args.repo is not None else "any repo"
            notes.append(f"not in {where}: {', '.join(_printable(word) for word in plain)}")
            notes.append("the results match the other words")
        sys.stdout.flush()
        sys.stderr.write(f"docmunch: note: {'; '.join(notes)}\n")
    return 0


def _stdin_query() -> tuple[str, int]:
    """The query given as ``-``: standard input as UTF-8 (invalid bytes replaced), and its
    length in characters. All of it is read (the command writing into the pipe must not get
    SIGPIPE), but only what can be searched is kept: a few characters more than
    :data:`~docmunch.index.querytext.QUERY_MAX_CHARS` (whose cut the note then names).

    Returns:
        ``(the kept text, characters of the whole input)``.
    """
    keep = QUERY_MAX_CHARS.value() + 1
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept: list[str] = []
    held = total = 0
    while chunk := sys.stdin.buffer.read(1 << 16):
        text = decoder.decode(chunk)
        total += len(text)
        if held < keep:
            kept.append(text[: keep - held])
            held += len(kept[-1])
    tail = decoder.decode(b"", final=True)
    total += len(tail)
    if held < keep:
        kept.append(tail[: keep - held])
    return "".join(kept), total


def _indented(text: str) -> str:
    """``text`` with every line under the hit's other lines (:data:`_HIT_INDENT`), its line breaks
    kept (a snippet's code and lists stay readable), blank lines empty, none at its ends."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(_HIT_INDENT + line if line else "" for line in lines)


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
            console.print(f"[bold]{_esc(current, keep='')}[/]")
        indent = "  " * max(s.level, 1)
        console.print(f"{indent}{_esc(s.title, keep='')}  [dim]{_esc(s.id, keep='')}[/]")
    return 0


def _print_tree(console: Any, nodes: list[dict[str, Any]], depth: int) -> None:
    for node in nodes:
        console.print(f"{'  ' * depth}{_esc(node['title'], keep='')}  [dim]{_esc(node['id'], keep='')}[/]")
        _print_tree(console, node["children"], depth + 1)


def _cmd_section(args: argparse.Namespace) -> int:
    with Index.open() as index:  # no REPO: the repo the id names (Index.section_repo)
        read = index.get_section(args.repo, args.id, verify=args.verify)
    if args.json:
        _emit_json(read.to_json())
        return 0 if read.verified is not False else 1
    s = read.section
    if args.raw:  # `> file` gets the section's bytes and nothing else
        if read.verified is not None:
            verdict = "true" if read.verified else "false"
            sys.stderr.write(f"verified: {verdict} ({_checks_text(read, plain=True)})\n")
        text = read.content
        if sys.stdout.isatty():  # a terminal still gets control characters shown, not obeyed
            text = _printable(text, keep="\n\t")
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        return 0 if read.verified is not False else 1
    console = _console()
    header = f"{_esc(s.id, keep='')}  bytes {s.byte_start}-{s.byte_end}  sha256 {s.content_hash}"
    console.print(f"[dim]{header}[/]")
    if read.verified is not None:
        console.print(f"verified: {'true' if read.verified else '[red]false[/]'} ({_checks_text(read)})")
    content = read.content
    if sys.stdout.isatty():  # a terminal obeys ESC codes, a pipe or file gets the exact text
        content = _printable(content, keep="\n\t")
    sys.stdout.write(content if content.endswith("\n") else content + "\n")
    return 0 if read.verified is not False else 1


def _checks_text(read: SectionRead, *, plain: bool = False) -> str:
    """What ``section --verify`` re-hashed, e.g. ``cache ok; original /abs/a.md MISMATCH (...)``
    (``plain``: without rich markup, for stderr)."""
    parts = []
    for check in read.checks:
        path = _printable(check.path) if plain else _esc(check.path)
        name = "cache" if check.where == "cache" else f"original {path}"
        if check.ok is None:
            parts.append(f"{name} not checked: the file is gone")
        elif check.ok:
            parts.append(f"{name} ok")
        else:
            hint = "changed since it was indexed, re-index it" if check.where == "original" else "corrupt"
            parts.append(f"{name} {'MISMATCH' if plain else '[red]MISMATCH[/]'}: {hint}")
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
                f"[bold]{_esc(r.repo)}[/]  {_sizes(r)}, indexed {r.indexed_at}  "
                f"[dim]{_esc(_origin(r), keep='')}[/]{_last_run(r)}"
            )
            continue
        console.print(f"[bold]{_esc(g.name)}[/]  [dim]bare name means[/] {_esc(g.default.repo)}")
        for r in g.versions:
            mark = "pinned default" if r.pinned else "default" if r.default else ""
            label = _esc(r.version or "(unversioned)")
            console.print(
                f"  {label:<16} {mark:<14} {_sizes(r)}, "
                f"indexed {r.indexed_at}  [dim]{_esc(_origin(r), keep='')}[/]{_last_run(r)}"
            )
    return 0


def _sizes(info: Any) -> str:
    """``"1 doc, 3 sections"``: a repo's document and section counts, nouns agreeing."""
    return f"{_counted(info.docs, 'doc', 'docs')}, {_counted(info.sections, 'section', 'sections')}"


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
    from docmunch.progress import wait_notice

    with Index.open() as index:
        index.on_wait = wait_notice()  # one line when an index run of that repo holds it
        deleted = index.delete_repo(args.repo)
    _console().print(f"deleted {', '.join(_esc(name) for name in deleted)}")
    return 0


def add_commands(cmd: Register) -> None:
    """Register ``search``, ``toc``, ``section``, ``list`` and ``delete`` through ``cmd``
    (:data:`docmunch.cli.parser.Register`)."""
    sp = cmd("search", _cmd_search, "search sections with keywords or a question (one repo, or all)")
    sp.add_argument(
        "words",
        metavar="[REPO] QUERY",
        nargs="*",
        help=f"REPO: {REPO_HELP}; omit it (or use --all) to search every repo. QUERY: keywords or a "
        "plain question in any language; words after REPO are the query, and a query may start "
        "with '-' (--dry-run); a QUERY of '-' alone is read from stdin (a pasted log)",
    )
    sp.add_argument("--all", action="store_true", help="search every repo: docmunch search --all QUERY")
    sp.add_argument(
        "--limit", type=positive_at_most(MAX_HITS), default=10, metavar="N",
        help=f"show at most N hits, 1-{MAX_HITS} (default 10)",
    )
    sp.add_argument("--doc", metavar="PATH", help="only this doc_path")
    sp.add_argument(
        "--glob", metavar="PATTERN", help="only doc_paths matching this fnmatch pattern (* also crosses /)"
    )
    sp.add_argument(
        "--min-level", type=non_negative, metavar="N",
        help="only sections of heading level N or deeper (0: a document's text before its first heading)",
    )
    sp.add_argument(
        "--max-level", type=non_negative, metavar="N", help="only sections of heading level N or less"
    )
    sp.add_argument(
        "--snippet", type=non_negative, default=0, metavar="BYTES",
        help="include the start of each hit, at most BYTES, ending at a word boundary",
    )
    sp.add_argument("--json", action="store_true")

    sp = cmd("toc", _cmd_toc, "table of contents of a repo or one document")
    sp.add_argument("repo", metavar="REPO")
    sp.add_argument("doc_path", metavar="DOC_PATH", nargs="?")
    sp.add_argument("--tree", action="store_true", help="nested outline")
    sp.add_argument("--json", action="store_true")

    sp = cmd("section", _cmd_section, "print one section's exact bytes")
    sp.add_argument("repo", metavar="REPO", nargs="?", help="default: the repo the id names (before its ::)")
    sp.add_argument("id", metavar="SECTION_ID")
    sp.add_argument(
        "--verify",
        action="store_true",
        help="re-hash the bytes (cache, and the original file of local text sources) against content_hash",
    )
    output = sp.add_mutually_exclusive_group()
    output.add_argument(
        "--raw",
        action="store_true",
        help="only the section's bytes, exactly (no header line, no newline added; --verify: on stderr)",
    )
    output.add_argument("--json", action="store_true")

    sp = cmd("list", _cmd_list, "list indexed repos")
    sp.add_argument("--json", action="store_true")

    sp = cmd("delete", _cmd_delete, "delete a repo from the index")
    sp.add_argument("repo", metavar="REPO", help=REPO_HELP)
