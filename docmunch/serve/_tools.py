"""The MCP tool catalogue: names, JSON schemas, descriptions and annotations (design brief §7).

Descriptions are written for the agent: when to reach for the tool and what comes back.
Annotations follow the MCP spec's ``ToolAnnotations``: ``readOnlyHint`` on every reader,
``destructiveHint`` only on ``delete_index``, ``openWorldHint`` on tools that go to the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types

from docmunch.index import MAX_HITS

__all__ = ["INSTRUCTIONS", "TOOLS", "ToolSpec", "tool_by_name"]

INSTRUCTIONS = (
    "docmunch serves documentation as small, byte-exact sections so you read only what answers "
    "the question. Order of use: (1) list_repos to see what is indexed; if it is empty or lacks "
    "the docs you need, index them first with index_local (folder or file), index_url (web page "
    "or site with crawl=true) or index_repo. (2) search_sections with the user's question as is "
    "(or keywords) returns section handles (id, title, summary), never bodies. (3) get_section "
    "with a handle's id returns that section's exact text plus a citation; use get_sections "
    "for several ids at once and get_section_context when you also need the breadcrumb and "
    "neighbouring sections. "
    "To browse instead of search: list_docs, then get_toc / get_toc_tree / "
    "get_document_outline. verify_index checks stored hashes; extract_url converts one page "
    "to Markdown without indexing it. Repos may be versioned: NAME@VERSION names one version, "
    "a bare NAME its default."
)
"""Initialize ``instructions``: the order an agent should use the tools (< 1,000 characters)."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as listed by ``tools/list``."""

    name: str
    """Wire name of the tool (``search_sections``)."""
    title: str
    """Human title shown by hosts."""
    description: str
    """When to use the tool and what it returns, for the agent."""
    input_schema: dict[str, Any]
    """JSON Schema (draft 2020-12) of the arguments object."""
    read_only: bool
    """``readOnlyHint``: the tool changes nothing."""
    destructive: bool = False
    """``destructiveHint``: the tool may delete data (only meaningful when not read-only)."""
    open_world: bool = False
    """``openWorldHint``: the tool reaches the network."""

    def to_tool(self) -> types.Tool:
        """The SDK ``Tool`` record for ``tools/list``."""
        annotations = types.ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=None if self.read_only else self.destructive,
            idempotent_hint=True if self.read_only else None,
            open_world_hint=self.open_world,
        )
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            annotations=annotations,
        )


def _obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


_REPO = {
    "type": "string",
    "minLength": 1,
    "description": "An indexed repo (see list_repos): NAME (its default version) or NAME@VERSION.",
}
_SEARCH_REPO = {
    "type": "string",
    "minLength": 1,
    "description": "NAME (its default version), NAME@VERSION, or NAME@* for every version of NAME. "
    "Omit to search the default version of every repo.",
}
_SECTION_REPO = {
    **_REPO,
    "description": "Optional: the id already names its repo (the part before its first `::`), which is "
    "used when this is omitted. If given: NAME, NAME@VERSION, or a bare NAME that also accepts "
    "ids of any of NAME's versions; an id naming another repo is an unknown section.",
}
_DOC_PATH = {
    "type": "string",
    "minLength": 1,
    "description": "Document path inside the repo (see list_docs).",
}
_SECTION_ID = {
    "type": "string",
    "minLength": 1,
    "description": "Section id `{repo}::{doc_path}::{slug_path}#{level}` from search_sections or get_toc.",
}
_VERIFY = {
    "type": "boolean",
    "default": False,
    "description": "Re-hash the bytes read and report `verified` (true when they match the index).",
}
_LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 5000,
    "description": "Page size (default: 100 docs or sections, 50 tree nodes, 200 repos).",
}
_OFFSET = {"type": "integer", "minimum": 0, "default": 0, "description": "Items to skip (use next_offset)."}
_NAME = {
    "type": "string",
    "minLength": 1,
    "description": "Repo name to index under (default: derived); NAME@VERSION keeps this version "
    "beside the others of NAME.",
}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "index_local",
        "Index a local folder or file",
        "Index documentation on this machine (a folder of Markdown/text/HTML/DOCX/PDF, or one file) so "
        "it can be searched. Use when list_repos does not show the docs you need. Re-running is cheap: "
        "unchanged files are skipped (incremental=true). Returns a report: repo, docs_indexed, "
        "docs_unchanged, docs_removed, docs_skipped, sections, errors, elapsed_ms. Sends progress "
        "notifications per file when you pass a progress token.",
        _obj(
            {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Absolute path of a folder or file.",
                },
                "name": _NAME,
                "incremental": {"type": "boolean", "default": True, "description": "Skip unchanged files."},
            },
            ["path"],
        ),
        read_only=False,
    ),
    ToolSpec(
        "index_url",
        "Index a web page or site",
        "Fetch a documentation web page (or, with crawl=true, the site under it, up to max_pages) and "
        "index its main content as sections. Use for online docs not on disk. Returns an index report "
        "like index_local.",
        _obj(
            {
                "url": {"type": "string", "pattern": "^https?://", "description": "http(s) URL."},
                "name": _NAME,
                "crawl": {"type": "boolean", "default": False, "description": "Follow links under the URL."},
                "max_pages": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 10000,
                    "default": 500,
                    "description": "With crawl=true, the most pages to request.",
                },
            },
            ["url"],
        ),
        read_only=False,
        open_world=True,
    ),
    ToolSpec(
        "index_repo",
        "Index a GitHub repository's docs",
        "Index the Markdown documentation of a GitHub repository (URL or OWNER/NAME) at a ref. Returns "
        "an index report like index_local.",
        _obj(
            {
                "url": {
                    "type": "string",
                    "minLength": 1,
                    "description": "https://github.com/OWNER/NAME or OWNER/NAME.",
                },
                "ref": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Branch, tag or commit (default branch).",
                },
                "name": _NAME,
            },
            ["url"],
        ),
        read_only=False,
        open_world=True,
    ),
    ToolSpec(
        "list_repos",
        "List indexed repos",
        "List every indexed repo (collection of documents). Call first: an empty list means you must "
        "index something. Returns {repos: [{repo, docs, sections, source, indexed_at, default, "
        "versions: [{repo, version, default, pinned, docs, sections, source, ref, commit, indexed_at}]}], "
        "total, next_offset}: one entry per NAME; `default` is the NAME@VERSION a bare NAME means.",
        _obj({"limit": _LIMIT, "offset": _OFFSET}),
        read_only=True,
    ),
    ToolSpec(
        "delete_index",
        "Delete an indexed repo",
        "Delete a repo and all its stored sections from the index (the user's files are not touched). "
        "A bare NAME deletes its default version, NAME@* every version. Returns {repo, deleted: true, "
        "repos: [full names deleted]}.",
        _obj({"repo": {**_REPO, "description": "NAME, NAME@VERSION or NAME@* (every version)."}}, ["repo"]),
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "list_docs",
        "List a repo's documents",
        "List the documents of a repo to browse it. Returns {repo, docs: [{doc_path, title, sections, "
        "bytes, source_kind, source_ref}], total, next_offset}.",
        _obj({"repo": _REPO, "limit": _LIMIT, "offset": _OFFSET}, ["repo"]),
        read_only=True,
    ),
    ToolSpec(
        "get_toc",
        "Flat table of contents",
        "Flat list of section handles in document order (whole repo, or one document with doc_path), "
        "each with id, title, level, doc_path, summary and byte range. Use to browse when you do not "
        "know what to search for; then get_section an id. Pages with limit/offset.",
        _obj({"repo": _REPO, "doc_path": _DOC_PATH, "limit": _LIMIT, "offset": _OFFSET}, ["repo"]),
        read_only=True,
    ),
    ToolSpec(
        "get_toc_tree",
        "Nested table of contents",
        "The heading hierarchy as a nested tree ({id, title, level, doc_path, byte_start, byte_end, "
        "children}) for the whole repo or one document. Use to see how a document is organised. "
        "Pages over top-level nodes with limit/offset.",
        _obj({"repo": _REPO, "doc_path": _DOC_PATH, "limit": _LIMIT, "offset": _OFFSET}, ["repo"]),
        read_only=True,
    ),
    ToolSpec(
        "get_document_outline",
        "Outline of one document",
        "Compact outline of ONE document: its headings as {id, title, level} in order, without "
        "summaries. The cheapest way to see what a document covers before reading sections.",
        _obj({"repo": _REPO, "doc_path": _DOC_PATH}, ["repo", "doc_path"]),
        read_only=True,
    ),
    ToolSpec(
        "search_sections",
        "Search sections",
        "Search indexed sections; the first tool to use for a question. Pass the question as is, in "
        "plain words ('how do I share data between threads?', Chinese, or mixed): sections matching "
        "some of its words are ranked (titles weigh most), question and stop words are ignored, "
        "identifiers like Arc<Mutex<T>> or --dry-run match verbatim. Returns handles, not bodies: "
        "{results: [{id, repo, title, level, doc_path, score, summary, byte_start, byte_end, snippet?}]}; "
        "no results come with no_results: {reason, message} (stop_words, unknown_words, filtered, …); "
        "unmatched_words lists words of the query that occur nowhere in the searched repos (the "
        "results rest on the others: another repo or other words may answer better); "
        "corrected_words maps mistyped words to the word also searched for them ({drian: drain}; "
        "such a word may be in unmatched_words too, as typed it matched nothing); "
        "query_cut_at says a query over 65,536 characters was searched by its first N characters. "
        "Then call get_section with an id. Omit repo to search every repo.",
        _obj(
            {
                "query": {"type": "string", "minLength": 1, "description": "Keywords or a question."},
                "repo": _SEARCH_REPO,
                "max_results": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_HITS,
                    "default": 10,
                    "description": f"Most results to return, 1-{MAX_HITS}; a larger value is an "
                    "invalid-arguments error, never cut silently.",
                },
                "doc_path": _DOC_PATH,
                "path_glob": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Only docs whose doc_path matches this shell pattern; * also "
                    "crosses / ('tasks/*' matches 'tasks/debug/debug-pods.md').",
                },
                "min_level": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 6,
                    "description": "Only sections whose heading level is at least this (0 = the "
                    "text before a document's first heading, 1 = '#', 2 = '##', ...).",
                },
                "max_level": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 6,
                    "description": "Only sections whose heading level is at most this (e.g. 2: "
                    "page titles and chapters, no subsections).",
                },
                "snippet_bytes": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 4000,
                    "default": 0,
                    "description": (
                        "Also return the start of each section, at most this many bytes, "
                        "ending at a word boundary (0 = none)."
                    ),
                },
            },
            ["query"],
        ),
        read_only=True,
    ),
    ToolSpec(
        "get_section",
        "Read one section",
        "Read one section's exact text (its heading through the byte before the next heading) by id. "
        "Returns {id, title, level, doc_path, byte_start, byte_end, content_hash, content, verified}; "
        "_meta.citation says where it came from. verify=true re-hashes the bytes. The id alone is "
        "enough: repo defaults to the one the id names. A section larger than the response ceiling "
        "(1 MiB) comes back cut with truncated: true and next_offset: call again with offset set to "
        "it to read on.",
        _obj(
            {
                "repo": _SECTION_REPO,
                "section_id": _SECTION_ID,
                "verify": _VERIFY,
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                    "description": "Bytes of the section's text to skip (UTF-8): the next_offset of a "
                    "cut result. An offset inside a character starts at the next one.",
                },
            },
            ["section_id"],
        ),
        read_only=True,
    ),
    ToolSpec(
        "get_sections",
        "Read several sections",
        "Read several sections by id in one call. Unknown ids do not fail the batch: each appears in "
        "`errors` with a message. Returns {sections: [...as get_section], errors: [{section_id, "
        "error}]} (repo echoes the argument, null when omitted); _meta.citations lists where each "
        "came from. Without repo each id is read from the repo it names. Over the response ceiling "
        "(1 MiB) the sections that did not fit are named in not_returned (read them with "
        "get_section); a first section too large on its own comes back cut with next_offset.",
        _obj(
            {
                "repo": _SECTION_REPO,
                "section_ids": {
                    "type": "array",
                    # no minLength: an empty id is that id's error, not the whole call's
                    "items": {k: v for k, v in _SECTION_ID.items() if k != "minLength"},
                    "minItems": 1,
                    "maxItems": 100,
                    "description": "1-100 section ids (from search_sections or get_toc), answered "
                    "in this order; a repeated id once.",
                },
                "verify": _VERIFY,
            },
            ["section_ids"],
        ),
        read_only=True,
    ),
    ToolSpec(
        "get_section_context",
        "Read a section with its context",
        "Read a section together with its breadcrumb (ancestor headings) and as many following or "
        "child sections as fit in max_tokens (1 token ≈ 4 bytes). The section itself is always "
        "returned whole, even over max_tokens (unless it alone exceeds the 1 MiB response ceiling: "
        "then section.truncated and section.next_offset say where get_section with offset reads "
        "on); truncated: true says more of the document followed than fit. Use when one section "
        "alone is too little context. repo defaults to the one the id names.",
        _obj(
            {
                "repo": _SECTION_REPO,
                "section_id": _SECTION_ID,
                "max_tokens": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 200000,
                    "default": 2000,
                    "description": "Budget for the section and its context (1 token = 4 bytes).",
                },
            },
            ["section_id"],
        ),
        read_only=True,
    ),
    ToolSpec(
        "verify_index",
        "Verify a repo's hashes",
        "Re-hash every section of a repo against the stored bytes and, for sources kept as the user's "
        "own bytes (Markdown, text, rst, MDX), the original files. Returns {repo, sections_checked, ok, "
        "mismatches: [{id, doc_path, expected, actual, reason, where}]}: id is a section id (REPO::DOC_PATH "
        "for a change outside every section), expected the stored sha256, actual the sha256 now (null "
        "when the bytes could not be hashed: file missing, shorter or grown), reason one readable line, "
        "where 'cache' or 'original'. Use when content looks stale; re-index with index_local if not ok.",
        _obj({"repo": _REPO}, ["repo"]),
        read_only=True,
    ),
    ToolSpec(
        "extract_url",
        "Extract one page as Markdown",
        "Fetch one web page and return its main content as Markdown with its title and metadata, "
        "without indexing it. Use for a one-off page; use index_url for docs you will search again.",
        _obj({"url": {"type": "string", "pattern": "^https?://", "description": "http(s) URL."}}, ["url"]),
        read_only=True,
        open_world=True,
    ),
)
"""Every tool, in the order ``tools/list`` shows them."""

_BY_NAME = {spec.name: spec for spec in TOOLS}


def tool_by_name(name: str) -> ToolSpec | None:
    """The :class:`ToolSpec` called ``name``, or ``None``."""
    return _BY_NAME.get(name)
