"""Tool implementations: thin calls into :class:`docmunch.index.Index` (the CLI's core too).

Every handler is synchronous (quick reads run on the event loop, the rest in a worker thread), takes the
validated arguments dict and returns a :class:`ToolOutput`; user errors propagate as
:class:`~docmunch.errors.DocmunchError` and become MCP tool errors in ``_server``.

``tokens_saved`` follows design brief §7: bytes of whole documents *not* sent, divided by 4
(the same 4-bytes-per-token estimate as ``Section.token_estimate``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docmunch.errors import DocmunchError, RepoNotFound, SectionNotFound, SourceError
from docmunch.index.querytext import query_cut
from docmunch.index.records import echo_query, section_toc_json
from docmunch.serve._context import BYTES_PER_TOKEN, ProgressFn, ToolContext, ToolOutput

__all__ = ["HANDLERS", "citation", "github_spec"]


LIST_PAGE_ITEMS = 100
"""Default page size (items) of ``list_docs`` and ``get_toc``: about 40 KB of JSON, 10k tokens,
on a large repo (500 was 140–205 KB on k8s-en). A caller asks for more with ``limit``."""
TREE_PAGE_NODES = 50
"""Default page size of ``get_toc_tree`` (top-level nodes, each with its subtree; 200 was 89 KB)."""
REPO_PAGE_ITEMS = 200
"""Default page size of ``list_repos`` (repos are few; a page rarely ends early)."""


def _page(items: list[Any], args: dict[str, Any], key: str, default_limit: int) -> dict[str, Any]:
    """One page of ``items``: ``{key: items[offset:offset+limit], total, offset, next_offset}``.

    ``limit`` defaults to ``default_limit`` items; ``next_offset`` is ``None`` on the last page.
    """
    offset = int(args.get("offset", 0))
    limit = int(args.get("limit", default_limit))
    chunk = items[offset : offset + limit]
    end = offset + len(chunk)
    return {
        key: chunk,
        "total": len(items),
        "offset": offset,
        "next_offset": end if end < len(items) else None,
    }


def _section_handle(section: Any) -> dict[str, Any]:
    return {
        **section_toc_json(section),
        "summary": section.summary,
        "token_estimate": section.token_estimate,
    }


def citation(repo: str | None, read: Any) -> dict[str, Any]:
    """``{repo, doc_path, section_id, byte_start, byte_end, content_hash, locator}`` of a SectionRead;
    ``repo`` is the full name the section was read from (``NAME@VERSION`` when versioned; the
    ``repo`` argument, possibly ``None``, only when the section carries none)."""
    section = read.section
    return {
        "repo": section.repo or repo,
        "doc_path": section.doc_path,
        "section_id": section.id,
        "byte_start": section.byte_start,
        "byte_end": section.byte_end,
        "content_hash": section.content_hash,
        "locator": section.locator,
    }


# --- writers -----------------------------------------------------------------------------


def index_local(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    path = Path(args["path"]).expanduser()
    if not path.is_absolute():
        raise SourceError(
            f"path {args['path']!r} is relative; pass an absolute path (the server's working "
            f"directory is {Path.cwd()})",
            path=str(path),
        )
    if not path.exists():
        raise SourceError(f"no such file or folder: {str(path)!r}", path=str(path))
    report = ctx.index.index_path(
        path, repo=args.get("name"), incremental=bool(args.get("incremental", True)), progress=progress
    )
    ctx.forget_sizes(report.repo)
    return ToolOutput(report.to_json(), sections_returned=0)


def _optional_source(module: str, attr: str, what: str) -> Callable[..., Any]:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module.startswith(err.name):
            raise DocmunchError(f"{what} is not supported yet in this docmunch build") from None
        raise
    func: Callable[..., Any] | None = getattr(mod, attr, None)
    if func is None:
        raise DocmunchError(f"{what} is not supported yet in this docmunch build")
    return func


def _call_with_supported(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``func`` passing only the keyword arguments its signature accepts (e.g. ``progress``)."""
    params = inspect.signature(func).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    return func(*args, **kwargs)


def index_url(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    func = _optional_source("docmunch.sources.web", "index_url", "indexing web pages")
    report = _call_with_supported(
        func,
        ctx.index,
        args["url"],
        repo=args.get("name"),
        crawl=bool(args.get("crawl", False)),
        max_pages=int(args.get("max_pages", 500)),
        progress=progress,
        allow_private=ctx.allow_private,
    )
    ctx.forget_sizes()
    return ToolOutput(report.to_json())


_GITHUB_URL = re.compile(
    r"^(?:github:|(?:https?://)?(?:www\.)?github\.com/)?(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?(?:@(?P<ref>.+))?$"
)


def github_spec(url: str, ref: str | None) -> str:
    """``github:OWNER/NAME[@REF]`` (the CLI's source syntax) from a GitHub URL or ``OWNER/NAME``.

    Raises ``SourceError`` when ``url`` names no repository.
    """
    match = _GITHUB_URL.match(url.strip())
    if match is None:
        raise SourceError(
            f"{url!r} is not a GitHub repository; pass https://github.com/OWNER/NAME or OWNER/NAME"
        )
    ref = ref or match["ref"]
    return f"github:{match['owner']}/{match['name']}" + (f"@{ref}" if ref else "")


def index_repo(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    spec = github_spec(args["url"], args.get("ref"))
    func = _optional_source("docmunch.sources.github", "index_github", "indexing GitHub repos")
    report = _call_with_supported(func, ctx.index, spec, repo=args.get("name"), progress=progress)
    ctx.forget_sizes()
    return ToolOutput(report.to_json())


def delete_index(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    deleted = ctx.index.delete_repo(args["repo"])
    ctx.forget_sizes()
    return ToolOutput({"repo": args["repo"], "deleted": True, "repos": deleted})


# --- readers -----------------------------------------------------------------------------


def list_repos(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repos = [group.to_json() for group in ctx.index.list_groups()]
    return ToolOutput(_page(repos, args, "repos", REPO_PAGE_ITEMS), list_key="repos")


def _repo(ctx: ToolContext, args: dict[str, Any]) -> str:
    """The full name (``NAME@VERSION`` when versioned) the ``repo`` argument means; results echo it."""
    return str(ctx.index.resolve_repo(args["repo"]))


def list_docs(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = _repo(ctx, args)
    docs = [info.to_json() for info in ctx.index.list_docs(repo)]
    return ToolOutput({"repo": repo, **_page(docs, args, "docs", LIST_PAGE_ITEMS)}, list_key="docs")


def get_toc(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = _repo(ctx, args)
    sections = [_section_handle(s) for s in ctx.index.toc(repo, args.get("doc_path"))]
    page = _page(sections, args, "sections", LIST_PAGE_ITEMS)
    return ToolOutput({"repo": repo, **page}, sections_returned=len(page["sections"]), list_key="sections")


def _count_nodes(nodes: list[dict[str, Any]]) -> int:
    return sum(1 + _count_nodes(node.get("children") or []) for node in nodes)


def get_toc_tree(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = _repo(ctx, args)
    tree = ctx.index.toc_tree(repo, args.get("doc_path"))
    page = _page(tree, args, "tree", TREE_PAGE_NODES)
    return ToolOutput({"repo": repo, **page}, sections_returned=_count_nodes(page["tree"]), list_key="tree")


def get_document_outline(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = _repo(ctx, args)
    sections = ctx.index.toc(repo, args["doc_path"])
    if not sections:
        raise DocmunchError(
            f"no document {args['doc_path']!r} in repo {args['repo']!r}; list_docs shows its documents"
        )
    outline = [{"id": s.id, "title": s.title, "level": s.level} for s in sections]
    return ToolOutput(
        {"repo": repo, "doc_path": args["doc_path"], "outline": outline},
        sections_returned=len(outline),
        list_key="outline",
    )


def search_sections(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = args.get("repo")
    low, high = args.get("min_level"), args.get("max_level")
    if low is not None and high is not None and low > high:  # no section could pass: say so
        raise DocmunchError(f"min_level {low} is above max_level {high}, so no section can match; swap them")
    hits = ctx.index.search(
        args["query"],
        repo=repo,
        limit=int(args.get("max_results", 10)),
        doc_path=args.get("doc_path"),
        path_glob=args.get("path_glob"),
        min_level=args.get("min_level"),
        max_level=args.get("max_level"),
        snippet_bytes=int(args.get("snippet_bytes", 0)),
    )
    results = [hit.to_json() for hit in hits]
    docs = {(r.get("repo") or repo, r["doc_path"]) for r in results}
    doc_bytes = sum(ctx.doc_sizes(r).get(d, 0) for r, d in docs if r)
    answer: dict[str, Any] = {"query": echo_query(args["query"]), "results": results}
    if results and (unmatched := ctx.index.unmatched_words(args["query"], repo=repo)):
        answer["unmatched_words"] = list(unmatched)  # the results rest on the other words
    if results and (corrected := ctx.index.corrected_words(args["query"], repo=repo)):
        answer["corrected_words"] = corrected  # mistyped words searched as the repos' nearest
    if (cut := query_cut(args["query"])) is not None:
        answer["query_cut_at"] = cut  # only the first characters of a huge query were searched
    if not results:  # why: stop words only, no known word, filters (docmunch.index.empty)
        answer["no_results"] = ctx.index.explain_empty(
            args["query"], repo=repo, doc_path=args.get("doc_path"), path_glob=args.get("path_glob"),
            min_level=args.get("min_level"), max_level=args.get("max_level"),
        ).to_json()  # fmt: skip
    return ToolOutput(
        answer,
        sections_returned=len(results),
        tokens_saved=doc_bytes // BYTES_PER_TOKEN,
        list_key="results",
    )


def get_section(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = args.get("repo")  # None: the repo the id names (Index.section_repo, as the CLI)
    read = ctx.index.get_section(repo, args["section_id"], verify=bool(args.get("verify", False)))
    section_bytes = read.section.byte_end - read.section.byte_start
    payload = read.to_json()
    if offset := int(args.get("offset", 0)):  # reading on after a result the ceiling cut
        data = read.content.encode("utf-8")
        if offset > len(data):
            raise DocmunchError(f"offset {offset} is past the end of the section ({len(data)} bytes)")
        while offset < len(data) and data[offset] & 0xC0 == 0x80:  # inside a character: start after it
            offset += 1
        payload.update(content=data[offset:].decode("utf-8"), offset=offset)
    return ToolOutput(
        payload,
        sections_returned=1,
        tokens_saved=max(0, read.doc_bytes - section_bytes) // BYTES_PER_TOKEN,
        meta={"citation": citation(repo, read)},
        text_key="content",
        resumable=True,
    )


def get_sections(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = args.get("repo")  # resolved per id: another version of a bare NAME, or (None) the id's repo
    verify = bool(args.get("verify", False))
    sections: list[dict[str, Any]] = []
    citations: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    doc_bytes: dict[tuple[str, str], int] = {}
    sent: dict[tuple[str, str], int] = {}
    for section_id in dict.fromkeys(args["section_ids"]):  # de-duplicated, order kept
        try:
            read = ctx.index.get_section(repo, section_id, verify=verify)
        except SectionNotFound as err:
            errors.append({"section_id": section_id, "error": str(err)})
            continue
        except RepoNotFound as err:
            if repo is not None:  # the call's own repo argument is wrong: every id would fail
                raise
            errors.append({"section_id": section_id, "error": str(err)})  # the id names it
            continue
        sections.append(read.to_json())
        citations.append(citation(repo, read))
        doc = (read.section.repo, read.section.doc_path)
        doc_bytes[doc] = read.doc_bytes
        sent[doc] = sent.get(doc, 0) + read.section.byte_end - read.section.byte_start
    saved = sum(max(0, doc_bytes[d] - sent[d]) for d in doc_bytes) // BYTES_PER_TOKEN
    return ToolOutput(
        {"repo": repo, "sections": sections, "errors": errors},
        sections_returned=len(sections),
        tokens_saved=saved,
        meta={"citations": citations},
        list_key="sections",
        list_item_id="id",  # left out by the ceiling: named in not_returned, read with get_section
        text_key="sections.0.content",  # a first section over the ceiling on its own: cut, readable on
        resumable=True,
    )


def get_section_context(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    repo = args.get("repo")  # None: the repo the id names
    result = ctx.index.get_section_context(
        repo, args["section_id"], max_tokens=int(args.get("max_tokens", 2000))
    )
    read = ctx.index.get_section(repo, args["section_id"])
    following = result.get("following") or []
    sent = (read.section.byte_end - read.section.byte_start) + sum(
        int(f["byte_end"]) - int(f["byte_start"]) for f in following
    )
    return ToolOutput(
        dict(result),
        sections_returned=1 + len(following),
        tokens_saved=max(0, read.doc_bytes - sent) // BYTES_PER_TOKEN,
        meta={"citation": citation(repo, read)},
        list_key="following",
        text_key="section.content",  # a section over the ceiling on its own: cut, readable on
        resumable=True,
    )


def verify_index(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    report = ctx.index.verify_repo(args["repo"])
    return ToolOutput(report.to_json(), list_key="mismatches")


def extract_url(ctx: ToolContext, args: dict[str, Any], progress: ProgressFn) -> ToolOutput:
    func = _optional_source("docmunch.sources.web", "extract_source", "extracting web pages")
    result = _call_with_supported(func, args["url"], format="json", allow_private=ctx.allow_private)
    if isinstance(result, str):
        payload: dict[str, Any] = {"url": args["url"], "markdown": result}
    else:
        payload = result.to_json() if hasattr(result, "to_json") else dict(result)
    return ToolOutput(payload, text_key="markdown" if isinstance(payload.get("markdown"), str) else None)


HANDLERS: dict[str, Callable[[ToolContext, dict[str, Any], ProgressFn], ToolOutput]] = {
    "index_local": index_local,
    "index_url": index_url,
    "index_repo": index_repo,
    "list_repos": list_repos,
    "delete_index": delete_index,
    "list_docs": list_docs,
    "get_toc": get_toc,
    "get_toc_tree": get_toc_tree,
    "get_document_outline": get_document_outline,
    "search_sections": search_sections,
    "get_section": get_section,
    "get_sections": get_sections,
    "get_section_context": get_section_context,
    "verify_index": verify_index,
    "extract_url": extract_url,
}
"""Tool name → implementation; the keys equal the names in ``_tools.TOOLS``."""
