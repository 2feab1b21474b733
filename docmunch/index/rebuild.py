"""Rebuilding the term index of question search from what an index already stores.

A schema migration (:mod:`docmunch.index.schema`) that changes how terms are derived or kept
calls :func:`rebuild_term_index` inside its transaction: every stored document's bytes are
read back from the raw cache, its sections are rebuilt from their ``sections`` rows, and
:func:`docmunch.index.document.section_rows` — the one function the indexer and the pack
import use too — derives their terms, which :class:`~docmunch.index.postings.TermWriter`
writes; each section's ``title_key`` is derived from its stored title. A document whose bytes
are missing or no longer match their sections keeps its sections (readable, listed, found by
the legacy ranking, and by its titles' keys) but gets no terms; the count is returned so the
caller can say so and point at ``docmunch verify``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from docmunch.errors import DocmunchError
from docmunch.index.analyze import title_key
from docmunch.index.document import section_rows
from docmunch.index.postings import TermWriter, compact
from docmunch.index.rawcache import RawCache
from docmunch.section import Section

__all__ = ["RebuildReport", "rebuild_term_index"]

_BATCH_DOCS = 64
"""Documents whose term rows are merged into the postings per flush."""


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What :func:`rebuild_term_index` did."""

    docs: int
    """Documents whose terms were derived."""
    sections: int
    """Sections indexed."""
    unreadable: tuple[str, ...]
    """``repo::doc_path`` of documents whose stored bytes are missing or do not match."""


def rebuild_term_index(conn: sqlite3.Connection, raw: RawCache) -> RebuildReport:
    """Fill the (empty) term tables from the stored documents, inside the caller's transaction."""
    writer = TermWriter(conn)
    docs = conn.execute(
        "SELECT d.id, d.repo_id, r.name, d.doc_path, d.title, d.raw_hash FROM docs d "
        "JOIN repos r ON r.id = d.repo_id ORDER BY d.id"
    ).fetchall()
    done = sections_done = 0
    unreadable: list[str] = []
    for doc_id, repo_id, repo, doc_path, title, raw_hash in docs:
        rows = conn.execute(
            "SELECT id, sid, title, level, parent_sid, slug, byte_start, byte_end, subtree_end, "
            "content_hash, summary, token_estimate, line, anchor, locator FROM sections "
            "WHERE doc_id = ? ORDER BY ord",
            (doc_id,),
        ).fetchall()
        if not rows:
            continue
        # the title is in the row: even a document whose bytes are gone gets its title keys
        keys = [(title_key(row[2]), row[0]) for row in rows]
        conn.executemany("UPDATE sections SET title_key = ? WHERE id = ?", keys)
        try:
            data = raw.read_all(raw_hash)
            sections = [
                Section(
                    id=sid, repo=repo, doc_path=doc_path, title=s_title, level=level, parent_id=parent,
                    slug=slug, byte_start=start, byte_end=end, subtree_end=subtree, content_hash=digest,
                    summary=summary, token_estimate=tokens, line=line, anchor=anchor,
                )
                for (_, sid, s_title, level, parent, slug, start, end, subtree, digest, summary, tokens, line,
                     anchor, _loc) in rows
            ]  # fmt: skip
            locators = [json.loads(row[14]) if row[14] is not None else None for row in rows]
            derived = section_rows(data, sections, locators, title=title, doc_path=doc_path)
        except (DocmunchError, OSError, ValueError):
            unreadable.append(f"{repo}::{doc_path}")
            continue
        first = int(rows[0][0])
        if [int(r[0]) for r in rows] != list(range(first, first + len(rows))):
            # Section rowids of one document are consecutive when written by the store; an
            # index that was edited otherwise gets its terms section by section.
            for row, terms in zip(rows, derived.terms, strict=True):
                writer.add(repo_id, doc_id, int(row[0]), [terms], derived.doc_terms, doc_postings=False)
            writer.add(repo_id, doc_id, first, [], derived.doc_terms)
        else:
            writer.add(repo_id, doc_id, first, derived.terms, derived.doc_terms)
        done += 1
        sections_done += len(rows)
        if done % _BATCH_DOCS == 0:
            writer.flush()
    writer.flush()
    for (repo_id,) in conn.execute("SELECT id FROM repos").fetchall():
        compact(conn, int(repo_id))
    return RebuildReport(done, sections_done, tuple(unreadable))
