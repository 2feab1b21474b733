"""One document on its way into the store: sectioned, rows built, bytes in the raw cache.

:func:`prepare_document` does all the CPU work of indexing a document (sectioning, search
terms, hash checks) and writes its bytes to the raw cache; it touches no database, so it also runs
in worker processes (:mod:`docmunch.index.prepare`). :meth:`Store.commit_documents
<docmunch.index.store.Store.commit_documents>` then makes prepared documents visible.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from docmunch.errors import IndexStoreError
from docmunch.formats.base import Rendition
from docmunch.index.analyze import title_key
from docmunch.index.impacts import DocumentTerms, SectionTerms, SectionText, document_terms
from docmunch.index.rawcache import RawCache
from docmunch.section import ParsedDocument, Section, split_at_headings, split_markdown, split_text

__all__ = [
    "PreparedDoc",
    "SectionRows",
    "document_text",
    "parse_rendition",
    "prepare_document",
    "section_rows",
]


def parse_rendition(rendition: Rendition, *, repo: str, doc_path: str) -> ParsedDocument:
    """Section a rendition: ``split_text`` for text sources, ``split_at_headings`` when the
    source's own parser found the headings (reStructuredText, MDX), else ``split_markdown``.

    Raises:
        ConvertError: the bytes are not valid UTF-8.
    """
    if rendition.source_kind == "text":
        return split_text(rendition.markdown, repo=repo, doc_path=doc_path)
    declared = rendition.declared_title
    if rendition.headings is not None:
        return split_at_headings(rendition.markdown, rendition.headings, repo=repo, doc_path=doc_path,
                                 title=rendition.title, declared_title=declared)
    return split_markdown(rendition.markdown, repo=repo, doc_path=doc_path, declared_title=declared)


@dataclass(frozen=True, slots=True)
class PreparedDoc:
    """A sectioned document whose bytes are in the raw cache, ready to be committed."""

    doc_path: str
    values: tuple[Any, ...]
    """title, source_kind, source_ref, source_hash, raw_hash, bytes, meta (JSON text)."""
    raw_hash: str
    section_rows: list[tuple[Any, ...]]
    block_rows: list[tuple[Any, ...]]
    term_rows: list[SectionTerms]
    """Per section (same order as ``section_rows``): prior and (term, impact) list."""
    doc_terms: DocumentTerms
    """The document's own (term, impact) list (document-level evidence of question search)."""
    pending: Path | None
    """Raw cache file written without fsync (synced by :meth:`Store.commit_documents`)."""
    data: bytes = b""
    """The stored bytes, kept until commit to re-create the cache file if another writer's
    clean-up removed it meanwhile."""


def prepare_document(
    raw: RawCache, repo: str, doc_path: str, rendition: Rendition, *, source_hash: str, sync: bool = True
) -> PreparedDoc:
    """Section a rendition and put its bytes in the raw cache; nothing is visible yet.

    With ``sync=False`` the raw file is not fsynced here: :meth:`Store.commit_documents` syncs
    all pending files of a batch together before its transaction.

    Raises:
        ConvertError: the rendition is not valid UTF-8. IndexStoreError: cache write failed.
    """
    if not repo or "::" in repo:
        raise IndexStoreError(f"invalid repo name {repo!r}: it must be non-empty and contain no '::'")
    parsed = parse_rendition(rendition, repo=repo, doc_path=doc_path)
    data = rendition.markdown
    locators = [
        s.locator
        if s.locator is not None
        else rendition.locator_for(s.byte_start, s.byte_end, anchor=s.anchor)
        for s in parsed.sections
    ]
    title = rendition.title or parsed.title or doc_path.rsplit("/", 1)[-1]
    derived = section_rows(data, parsed.sections, locators, title=title, doc_path=doc_path)
    block_rows = [
        (i, b.md_start, b.md_end, b.kind, b.text, json.dumps(list(b.positions), ensure_ascii=False))
        for i, b in enumerate(rendition.blocks)
    ]
    raw_hash, pending = raw.put(data, sync=sync)
    return PreparedDoc(
        doc_path=doc_path,
        values=(
            title,
            rendition.source_kind,
            rendition.source_ref,
            source_hash,
            raw_hash,
            len(data),
            json.dumps(rendition.meta, ensure_ascii=False, default=str),
        ),
        raw_hash=raw_hash,
        section_rows=derived.rows,
        block_rows=block_rows,
        term_rows=derived.terms,
        doc_terms=derived.doc_terms,
        pending=None if sync else pending,
        data=data,
    )


def document_text(title: str, doc_path: str) -> str:
    """What the document field of every section holds: title and path words (no suffix)."""
    stem = doc_path.rsplit(".", 1)[0] if "." in doc_path.rsplit("/", 1)[-1] else doc_path
    return f"{title} {stem.replace('/', ' ')}"


class SectionRows(NamedTuple):
    """Everything the store writes for one document's sections (see :func:`section_rows`)."""

    rows: list[tuple[Any, ...]]
    """``sections`` table rows without id, doc_id and ord."""
    terms: list[SectionTerms]
    """Per section: prior and (term, impact) list."""
    doc_terms: DocumentTerms
    """The document's (term, impact) list."""


def section_rows(
    data: bytes,
    sections: Sequence[Section],
    locators: Sequence[dict[str, Any] | None],
    *,
    title: str,
    doc_path: str,
) -> SectionRows:
    """Rows for the ``sections`` table and the term index of one document.

    The one place the search data of a section is derived (``title_fold``, ``title_key``,
    heading path, weighted terms of the sections and of the document): the indexer calls it for every
    new document, a pack import for every packed one and a schema migration for every stored
    one, so a change to tokenisation or weighting reaches all three.

    Args:
        data: the stored document bytes.
        sections: its sections in document order.
        locators: each section's locator (``None`` for none), same order.
        title: the document title.
        doc_path: the document's path in its repo.

    Raises:
        IndexStoreError: a section's ``content_hash`` is not the sha256 of its byte range.
    """
    titles = {s.id: s.title for s in sections}
    parents = {s.id: s.parent_id for s in sections}
    rows: list[tuple[Any, ...]] = []
    texts: list[SectionText] = []
    for s, locator in zip(sections, locators, strict=True):
        chain: list[str] = []
        parent = s.parent_id
        while parent is not None and parent in titles and len(chain) < 16:
            chain.append(titles[parent])
            parent = parents[parent]
        heading_path = " > ".join(reversed(chain))
        if hashlib.sha256(data[s.byte_start : s.byte_end]).hexdigest() != s.content_hash:
            raise IndexStoreError(f"wrong content_hash for {s.id}: it is not the sha256 of its bytes")
        rows.append(
            (
                s.id,
                s.title,
                " ".join(s.title.split()).casefold(),
                s.level,
                s.parent_id,
                s.slug,
                s.byte_start,
                s.byte_end,
                s.subtree_end,
                s.content_hash,
                s.summary,
                s.token_estimate,
                s.line,
                s.anchor,
                json.dumps(locator, ensure_ascii=False) if locator is not None else None,
                title_key(s.title),
            )
        )
        body = data[s.byte_start : s.byte_end].decode("utf-8", errors="replace")
        own = body.split("\n", 1)[1] if s.level > 0 and "\n" in body else ("" if s.level > 0 else body)
        texts.append(SectionText(s.title, heading_path, own, page_title=s.level <= 1 and s.title == title))
    if not texts:
        return SectionRows(rows, [], ([], b""))
    term_rows, doc_terms = document_terms(document_text(title, doc_path), texts)
    return SectionRows(rows, term_rows, doc_terms)
