"""Reading the index: repos, documents, tables of contents, section bytes.

Section bytes always come from the raw cache by ``open`` + ``seek`` + ``read`` of the
section's own range; a whole document is read only by
:func:`docmunch.index.verify.verify_repo`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from docmunch.errors import DocumentNotFound, SectionNotFound
from docmunch.index.analyze import is_cjk
from docmunch.index.records import (
    DocInfo,
    RepoGroup,
    RepoInfo,
    SectionRead,
    VerifyCheck,
)
from docmunch.index.runlock import run_state
from docmunch.index.store import Store
from docmunch.index.verify import ORIGINAL_KINDS, check_original, original_path, source_encoding
from docmunch.index.versions import RepoRow, default_of
from docmunch.section import Section

__all__ = [
    "SECTION_COLUMNS",
    "get_section",
    "get_section_context",
    "list_docs",
    "list_groups",
    "list_repos",
    "locate",
    "read_snippet",
    "row_to_section",
    "toc",
    "toc_tree",
]

SECTION_COLUMNS = (
    "s.sid, r.name, d.doc_path, s.title, s.level, s.parent_sid, s.slug, s.byte_start, s.byte_end, "
    "s.subtree_end, s.content_hash, s.summary, s.token_estimate, s.line, s.anchor, s.locator"
)
"""Columns (tables ``s`` sections, ``d`` docs, ``r`` repos) that :func:`row_to_section` reads."""

_FROM = "FROM sections s JOIN docs d ON d.id = s.doc_id JOIN repos r ON r.id = d.repo_id"

TOKEN_BYTES = 4
"""Bytes per token in every estimate (the design brief's ``tokens = bytes / 4``)."""

_LOOKAHEAD = 4
"""Bytes read past a snippet's budget: one more UTF-8 character, to see whether it ends a word."""


def _continues_word(before: str, after: str) -> bool:
    """Whether a cut between characters ``before`` and ``after`` splits a word: both are letters,
    digits or ``_`` outside CJK (between CJK characters, or next to one, any cut is fine)."""
    def word(ch: str) -> bool:
        return (ch.isalnum() or ch == "_") and not is_cjk(ch)

    return word(before) and word(after)


def read_snippet(store: Store, raw_hash: str, start: int, end: int, budget: int) -> str:
    """The start of a section, at most ``budget`` bytes of UTF-8, never ending inside a word.

    Args:
        store: the open store (raw cache).
        raw_hash: the document's raw-cache key; ``start``, ``end``: the section's byte range.
        budget: the most bytes the snippet may hold (``snippet_bytes``; > 0).

    Returns:
        A prefix of the section's text: the whole section when it fits, else its first
        ``budget`` bytes cut back to a UTF-8 character boundary and, when that splits a word
        (``Configura|tion``), to the last whitespace before it (the hard cut when there is
        none, as in one long identifier). CJK text is cut at any character.

    Raises:
        IndexStoreError: the cache file is missing or unreadable.
    """
    data = store.raw.read_range(raw_hash, start, min(end, start + budget + _LOOKAHEAD))
    text = data[:budget].decode("utf-8", errors="ignore")
    if len(data) <= budget:
        return text
    rest = data[len(text.encode("utf-8")):].decode("utf-8", errors="ignore")
    if text and rest and _continues_word(text[-1], rest[0]):
        space = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"))
        if space > 0:
            return text[:space].rstrip() or text
    return text


def row_to_section(row: tuple[Any, ...]) -> Section:
    """A :class:`Section` from a row of :data:`SECTION_COLUMNS`."""
    return Section(
        id=row[0],
        repo=row[1],
        doc_path=row[2],
        title=row[3],
        level=row[4],
        parent_id=row[5],
        slug=row[6],
        byte_start=row[7],
        byte_end=row[8],
        subtree_end=row[9],
        content_hash=row[10],
        summary=row[11],
        token_estimate=row[12],
        line=row[13],
        anchor=row[14],
        locator=json.loads(row[15]) if row[15] is not None else None,
    )


def list_repos(store: Store) -> list[RepoInfo]:
    """Every stored repo (each version separately) with its document and section counts, by full name."""
    return [info for group in list_groups(store) for info in group.versions]


def list_groups(store: Store) -> list[RepoGroup]:
    """Every name with its versions (newest first) and which one a bare name means, by name."""
    rows = store.conn.execute(
        "SELECT r.id, r.name, r.base, r.version, r.pinned, r.source, r.indexed_at, r.ref, r.commit_sha, "
        "(SELECT count(*) FROM docs d WHERE d.repo_id = r.id), "
        "(SELECT count(*) FROM sections s JOIN docs d ON d.id = s.doc_id WHERE d.repo_id = r.id) "
        "FROM repos r ORDER BY r.id"
    ).fetchall()
    members: dict[str, list[tuple[RepoRow, tuple[Any, ...]]]] = {}
    for row in rows:
        key = RepoRow(row[0], row[1], row[2] or row[1], row[3], bool(row[4]))
        members.setdefault(key.base, []).append((key, row))
    groups: list[RepoGroup] = []
    for base in sorted(members):
        default = default_of([key for key, _ in members[base]]).id
        infos = tuple(
            RepoInfo(
                repo=key.name,
                docs=row[9],
                sections=row[10],
                source=row[5],
                indexed_at=row[6],
                name=key.base,
                version=key.version,
                ref=row[7],
                commit=row[8],
                default=key.id == default,
                pinned=key.pinned,
                last_run=run_state(store.home, key.name),
            )
            for key, row in reversed(members[base])
        )
        groups.append(RepoGroup(base, infos))
    return groups


def list_docs(store: Store, repo: str) -> list[DocInfo]:
    """The documents of ``repo`` by doc_path. Raises RepoNotFound."""
    repo_id = store.repo_id(repo)
    rows = store.conn.execute(
        "SELECT d.doc_path, d.title, (SELECT count(*) FROM sections s WHERE s.doc_id = d.id), d.bytes, "
        "d.source_kind, d.source_ref FROM docs d WHERE d.repo_id = ? ORDER BY d.doc_path",
        (repo_id,),
    ).fetchall()
    return [DocInfo(*row) for row in rows]


def toc(store: Store, repo: str, doc_path: str | None = None) -> list[Section]:
    """Sections of a repo (or one document) in document order.

    Raises:
        RepoNotFound: no such repo. DocumentNotFound: ``doc_path`` is not indexed in it.
    """
    repo_id = store.repo_id(repo)
    sql = f"SELECT {SECTION_COLUMNS} {_FROM} WHERE d.repo_id = ?"
    args: list[Any] = [repo_id]
    if doc_path is not None:
        known = store.conn.execute(
            "SELECT 1 FROM docs WHERE repo_id = ? AND doc_path = ?", (repo_id, doc_path)
        ).fetchone()
        if known is None:
            raise DocumentNotFound(repo, doc_path)
        sql += " AND d.doc_path = ?"
        args.append(doc_path)
    sql += " ORDER BY d.doc_path, s.ord"
    return [row_to_section(r) for r in store.conn.execute(sql, args)]


def toc_tree(store: Store, repo: str, doc_path: str | None = None) -> list[dict[str, Any]]:
    """Nested outline: ``[{"id","title","level","doc_path","byte_start","byte_end","children":[...]}]``.

    Top-level entries are sections without a parent, in document order.
    """
    nodes: dict[str, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    for s in toc(store, repo, doc_path):
        node = {
            "id": s.id,
            "title": s.title,
            "level": s.level,
            "doc_path": s.doc_path,
            "byte_start": s.byte_start,
            "byte_end": s.byte_end,
            "children": [],
        }
        nodes[s.id] = node
        parent = nodes.get(s.parent_id) if s.parent_id else None
        (parent["children"] if parent is not None else roots).append(node)
    return roots


def _lookup(store: Store, repo: str, section_id: str) -> tuple[Section, str, int, int, int]:
    """(section, raw_hash, doc bytes, doc id, ord) of one section. Raises RepoNotFound/SectionNotFound."""
    row = store.conn.execute(
        f"SELECT {SECTION_COLUMNS}, d.raw_hash, d.bytes, d.id, s.ord {_FROM} WHERE s.sid = ? AND r.name = ?",
        (section_id, repo),
    ).fetchone()
    if row is None:
        store.repo_id(repo)  # RepoNotFound first when the repo itself is unknown
        raise SectionNotFound(repo, section_id, suggestions=_near_ids(store, repo, section_id))
    return row_to_section(row[:16]), row[16], row[17], row[18], row[19]


NEAR_IDS = 3
"""Section ids an unknown id's error names at most (:func:`_near_ids`)."""


def _near_ids(store: Store, repo: str, section_id: str) -> tuple[str, ...]:
    """Ids of ``repo`` that an unknown ``section_id`` (``REPO::DOC_PATH::SLUGS#LEVEL``) most
    likely meant, in document order: with its ``#LEVEL`` left out, the ids that add one; else, in
    the same document, the ids whose slug path ends with its last slug (a parent's slug left
    out, ``…::pod-lifetime#2`` for ``…::pod-lifecycle/pod-lifetime``). At most :data:`NEAR_IDS`."""
    parts = section_id.split("::")
    if len(parts) < 3:
        return ()
    doc_path, slugs = "::".join(parts[1:-1]), parts[-1]
    rows = store.conn.execute(
        f"SELECT s.sid {_FROM} WHERE r.name = ? AND d.doc_path = ? ORDER BY s.ord", (repo, doc_path)
    ).fetchall()
    ids = [row[0] for row in rows]
    if "#" not in slugs:
        found = [sid for sid in ids if sid.startswith(section_id + "#")]
        if found:
            return tuple(found[:NEAR_IDS])
    last = slugs.rpartition("#")[0] if "#" in slugs else slugs
    last = last.rpartition("/")[2]
    if not last:
        return ()
    found = [sid for sid in ids if sid.rpartition("::")[2].rpartition("#")[0].rpartition("/")[2] == last]
    return tuple(found[:NEAR_IDS])


def get_section(store: Store, repo: str, section_id: str, *, verify: bool = False) -> SectionRead:
    """Read one section's own byte range from the raw cache.

    ``verify=True`` re-hashes exactly the bytes returned and compares them with
    ``content_hash``; for local Markdown/text sources (:data:`ORIGINAL_KINDS`) it also hashes
    the same range of the user's original file, as :func:`verify_repo` does. ``checks`` says
    which copies were hashed; ``verified`` is false when any of them differs (a missing
    original is reported, not counted as a mismatch).

    Raises:
        RepoNotFound, SectionNotFound, IndexStoreError (raw cache file missing).
    """
    section, raw_hash, doc_bytes, doc_id, _ = _lookup(store, repo, section_id)
    data = store.raw.read_range(raw_hash, section.byte_start, section.byte_end)
    content = data.decode("utf-8", errors="replace")
    if not verify:
        return SectionRead(section, content, doc_bytes)
    cache_ok = hashlib.sha256(data).hexdigest() == section.content_hash
    checks = [VerifyCheck("cache", str(store.raw.path_for(raw_hash)), cache_ok)]
    kind, ref, meta = store.conn.execute(
        "SELECT source_kind, source_ref, meta FROM docs WHERE id = ?", (doc_id,)
    ).fetchone()
    original = original_path(kind, ref)
    if original is not None:
        encoding = source_encoding(meta)
        start, end, expected = section.byte_start, section.byte_end, section.content_hash
        ok = check_original(original, start, end, expected, encoding=encoding)
        checks.append(VerifyCheck("original", str(original), ok))
    verified = all(check.ok is not False for check in checks)
    return SectionRead(section, content, doc_bytes, verified, tuple(checks))


def get_section_context(
    store: Store, repo: str, section_id: str, *, max_tokens: int = 2000
) -> dict[str, Any]:
    """A section with its breadcrumb and as much following text as fits in ``max_tokens``.

    Tokens are estimated as bytes / 4. The section itself is always returned whole; then the
    sections that follow it in the same document (its children first, since they come next)
    are added while the total stays within the budget.

    Returns:
        ``{"section": SectionRead.to_json(), "breadcrumb": [{"id","title","level"}, …root first],
        "following": [{"id","title","level","byte_start","byte_end","content"}, …],
        "tokens": int, "truncated": bool}`` — ``truncated`` is true when more of the document
        followed but did not fit.
    """
    section, raw_hash, _, doc_id, ordinal = _lookup(store, repo, section_id)
    conn = store.conn
    head = get_section(store, repo, section_id)
    breadcrumb: list[dict[str, Any]] = []
    parent = section.parent_id
    while parent is not None and len(breadcrumb) < 16:
        row = conn.execute(
            "SELECT sid, title, level, parent_sid FROM sections WHERE sid = ?", (parent,)
        ).fetchone()
        if row is None:
            break
        breadcrumb.append({"id": row[0], "title": row[1], "level": row[2]})
        parent = row[3]
    breadcrumb.reverse()
    budget = max(0, max_tokens) * TOKEN_BYTES
    used = section.byte_end - section.byte_start
    following: list[dict[str, Any]] = []
    truncated = False
    rows = conn.execute(
        "SELECT sid, title, level, byte_start, byte_end FROM sections "
        "WHERE doc_id = ? AND ord > ? ORDER BY ord",
        (doc_id, ordinal),
    )
    for sid, title, level, start, end in rows:
        if used + (end - start) > budget:
            truncated = True
            break
        used += end - start
        following.append(
            {"id": sid, "title": title, "level": level, "byte_start": start, "byte_end": end, "content": ""}
        )
    if following:
        blob = store.raw.read_range(raw_hash, following[0]["byte_start"], following[-1]["byte_end"])
        base = following[0]["byte_start"]
        for item in following:
            item["content"] = blob[item["byte_start"] - base : item["byte_end"] - base].decode(
                "utf-8", errors="replace"
            )
    return {
        "section": head.to_json(),
        "breadcrumb": breadcrumb,
        "following": following,
        "tokens": used // TOKEN_BYTES,
        "truncated": truncated,
    }


def locate(store: Store, repo: str, section_id: str) -> dict[str, Any]:
    """Where a section lives in the original source.

    Returns:
        ``{"repo","doc_path","section_id","source_path","source_kind","byte_start","byte_end",
        "byte_range_of","source_encoding","locator"}``; ``source_path`` is the document's
        ``source_ref`` (absolute path or URL of the original) or, when the renderer gave none,
        the repo source joined with the doc_path. ``byte_start``/``byte_end`` are always
        offsets into the stored bytes (the raw cache, what ``get_section`` reads);
        ``byte_range_of`` says what those are:

        - ``"original"``: the source is stored unchanged (:data:`ORIGINAL_KINDS`: Markdown,
          text, reStructuredText, MDX), so the range holds on the user's file too;
        - ``"stored_markdown"``: the Markdown rendition docmunch made (web page, DOCX, PDF,
          HTML file, notebook), whose offsets are no position in the original — ``locator``
          (URL fragment, Word paragraphs, PDF pages and boxes, notebook cells) is that;
        - ``"stored_utf8"``: the UTF-8 form of a text file in UTF-16/32, whose codec is
          ``source_encoding`` (``None`` for every other document).

    Raises:
        RepoNotFound, SectionNotFound.
    """
    section, _, _, doc_id, _ = _lookup(store, repo, section_id)
    ref, kind, meta, source = store.conn.execute(
        "SELECT d.source_ref, d.source_kind, d.meta, r.source FROM docs d JOIN repos r ON r.id = d.repo_id "
        "WHERE d.id = ?",
        (doc_id,),
    ).fetchone()
    if not ref:
        ref = f"{source.rstrip('/')}/{section.doc_path}" if source else section.doc_path
    encoding = source_encoding(meta)
    if kind not in ORIGINAL_KINDS:
        range_of = "stored_markdown"
    else:
        range_of = "original" if encoding is None else "stored_utf8"
    return {
        "repo": repo,
        "doc_path": section.doc_path,
        "section_id": section.id,
        "source_path": ref,
        "source_kind": kind,
        "byte_start": section.byte_start,
        "byte_end": section.byte_end,
        "byte_range_of": range_of,
        "source_encoding": encoding[0] if encoding is not None else None,
        "locator": section.locator,
    }
