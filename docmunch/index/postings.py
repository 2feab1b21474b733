"""Storage of the term index: per-term postings as compact blobs, in segments.

Tables (written in the same transaction as the documents they describe):

* ``terms(id, repo_id, term)`` — per-repo vocabulary. A term's document frequency is not
  stored: it is the number of its section postings (blob length / 5), read with them.
* ``postings(id, term_id, sections, docs)`` — a term's **postings** in one or more
  *segments*: the ids of the sections (and documents) holding it, with one impact byte each
  (:func:`pack_postings`). A query reads a term's segments and scores every posting at once
  with numpy (order does not matter to a sum), so the work per term is a B-tree lookup plus a
  vectorised pass, and no posting is ever left unread (no cut-off, no approximate candidates).
* ``section_terms(section_id, repo_id, prior, terms)`` — each section's own term ids and
  impacts in the postings blob format (for pseudo-relevance feedback and for deletion) and
  its prior (:mod:`docmunch.index.impacts`).
* ``repo_stats(repo_id, sections)`` — section count per repo (the N of IDF).
* ``common_terms(repo_id, term)`` — the terms at least :data:`COMMON_TERM_SHARE` of a repo's
  documents hold that some page title holds too (its product's name, ``kubernet``; words
  like ``use``), refreshed by
  :func:`compact` at the end of every indexing run and by a pack load
  (:data:`docmunch.index.search.TITLE_TERMS_BOOST` reads them).

A section's posting impact already includes its prior (``impact × prior``, rounded): the
query's ``Σ weight · impact`` is then the prior-weighted score without a per-section lookup.

Writing (:class:`TermWriter`): a batch's postings are grouped by term with one numpy sort
and appended as one new segment per touched term (plain inserts, nothing read back), like
the segments of a Lucene index; :func:`compact` merges a term's segments into one — for the
terms reaching :data:`MAX_SEGMENTS` as part of a flush, and for a whole repo at the end of
an indexing run. Rewriting every touched blob on every batch instead made indexing
quadratic in the corpus size. Deleting (:func:`delete_section_terms`) filters the ids out
of the segments of the terms the deleted sections list.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from docmunch.index.impacts import DocumentTerms, SectionTerms

__all__ = [
    "COMMON_TERM_SHARE",
    "MAX_POSTING_ID",
    "MAX_SEGMENTS",
    "TermCache",
    "TermWriter",
    "compact",
    "delete_section_terms",
    "pack_postings",
    "read_postings",
    "refresh_common_terms",
    "unpack_postings",
]

MAX_POSTING_ID = 2**32 - 1
"""Section and document ids are stored as unsigned 32-bit integers."""
MAX_SEGMENTS = 16
"""A term's segments are merged when a flush brings them to this many (bounds the rows a
query reads per term when no end-of-run compaction ran, e.g. one document at a time)."""

_ID = np.dtype("<u4")
_IMPACT = np.dtype("u1")
_POSTING_BYTES = _ID.itemsize + _IMPACT.itemsize
"""Bytes of one posting in a blob (:func:`pack_postings`)."""
_CHUNK = 500
"""Ids per ``IN (…)`` list (below SQLite's default limit of 999 variables)."""

IdArray = npt.NDArray[np.uint32]
ImpactArray = npt.NDArray[np.uint8]


def pack_postings(ids: IdArray, impacts: ImpactArray) -> bytes:
    """Blob of postings: the ids (little-endian uint32, ascending) then one impact byte each."""
    return ids.astype(_ID, copy=False).tobytes() + impacts.astype(_IMPACT, copy=False).tobytes()


def unpack_postings(blob: bytes | None) -> tuple[IdArray, ImpactArray]:
    """Ids and impacts of a postings blob (read-only views; empty for ``None``)."""
    if not blob:
        return np.empty(0, _ID), np.empty(0, _IMPACT)
    n = len(blob) // 5
    return np.frombuffer(blob, _ID, n), np.frombuffer(blob, _IMPACT, n, 4 * n)


def _without(blob: bytes | None, doomed: IdArray) -> bytes:
    """``blob`` without the postings of ``doomed`` (ascending, distinct ids); ``blob`` itself when
    it holds none of them. A binary search per posting: ``np.isin`` cost ~60 µs a call, and a
    batch replacing 300 documents filters some 40 000 segments."""
    ids, impacts = unpack_postings(blob)
    if not ids.size or not doomed.size:
        return blob or b""
    where = np.searchsorted(doomed, ids)
    np.minimum(where, doomed.size - 1, out=where)
    hit = doomed[where] == ids
    if not hit.any():
        return blob or b""
    keep = ~hit
    return pack_postings(ids[keep], impacts[keep])


class TermCache:
    """Term ids already known to this process, per repo (saves a lookup per term and batch).

    Trusted only after :meth:`validate` inside the current write transaction: the cached
    count of a repo's terms must equal the table's, else (another process added or deleted
    terms) the repo's cache is dropped. Terms are only ever deleted with their repo, so a cache
    as large as the table holds every term of the repo (it is *complete*): a term it lacks is
    new, and gets its id without a lookup.
    """

    def __init__(self) -> None:
        self.ids: dict[int, dict[str, int]] = {}
        self.complete: set[int] = set()
        """Repos whose cached ids are every term of the repo (as of the last :meth:`validate`)."""

    def validate(self, conn: sqlite3.Connection, repo_id: int) -> None:
        """Drop the repo's cached ids unless they match the table, and note whether they are
        complete (call inside the transaction)."""
        known = self.ids.get(repo_id)
        count = conn.execute("SELECT count(*) FROM terms WHERE repo_id = ?", (repo_id,)).fetchone()[0]
        if known is not None and count != len(known):
            del self.ids[repo_id]
            known = None
        if known is None and count == 0:
            known = self.ids[repo_id] = {}
        if known is not None:
            self.complete.add(repo_id)
        else:
            self.complete.discard(repo_id)

    def clear(self) -> None:
        """Forget everything (after deleting a repo or rolling back)."""
        self.ids.clear()
        self.complete.clear()


class TermWriter:
    """Queues the term rows of one write transaction and appends them as segments in :meth:`flush`."""

    def __init__(self, conn: sqlite3.Connection, cache: TermCache | None = None) -> None:
        self.conn = conn
        self._cache = cache if cache is not None else TermCache()
        self._checked: set[int] = set()
        self._sections: list[tuple[npt.NDArray[np.int64], int]] = []
        """Queued section postings: (term ids, section id) per section."""
        self._section_impacts: list[bytes] = []
        """Their impact bytes (prior applied), same order."""
        self._docs: list[tuple[npt.NDArray[np.int64], int]] = []
        """Queued document postings: (term ids, document id) per document."""
        self._doc_impacts: list[bytes] = []
        self._forward: list[tuple[int, int, float, bytes]] = []
        self._counts: Counter[int] = Counter()
        self._next_id: int | None = None
        """Id of the next new term (complete caches only), once read in this transaction."""

    def _term_ids(self, repo_id: int, words: Sequence[str]) -> dict[str, int]:
        """``{term: id}`` covering the distinct ``words`` (new terms inserted)."""
        if repo_id not in self._checked:
            self._cache.validate(self.conn, repo_id)
            self._checked.add(repo_id)
        ids = self._cache.ids.setdefault(repo_id, {})
        wanted = [w for w in dict.fromkeys(words) if w not in ids]
        if not wanted:
            return ids
        if repo_id in self._cache.complete:
            # Every term of the repo is cached: the missing ones are new. Ids are numbered as
            # SQLite numbers a rowid (the largest + 1; this transaction holds the write lock).
            if self._next_id is None:
                row = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM terms").fetchone()
                self._next_id = int(row[0])
            first = self._next_id
            self._next_id += len(wanted)
            new = dict(zip(wanted, range(first, self._next_id), strict=True))
            self.conn.executemany(
                "INSERT INTO terms(id, repo_id, term) VALUES (?, ?, ?)",
                ((tid, repo_id, term) for term, tid in new.items()),
            )
            ids.update(new)
            return ids
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            self.conn.executemany(
                "INSERT OR IGNORE INTO terms(repo_id, term) VALUES (?, ?)",
                ((repo_id, w) for w in chunk),
            )
            marks = ",".join("?" * len(chunk))
            for term, tid in self.conn.execute(
                f"SELECT term, id FROM terms WHERE repo_id = ? AND term IN ({marks})", (repo_id, *chunk)
            ):
                ids[term] = tid
        self._next_id = None  # rowids assigned by SQLite meanwhile
        return ids

    def add(
        self,
        repo_id: int,
        doc_id: int,
        first_rowid: int,
        rows: Sequence[SectionTerms],
        doc: DocumentTerms,
        *,
        doc_postings: bool = True,
    ) -> None:
        """Queue the term rows of one document (its sections have ids ``first_rowid …``).

        Args:
            rows: per section, prior, indices into ``doc``'s vocabulary and impacts.
            doc: the document's vocabulary and document-level impacts.
            doc_postings: also queue the document's own postings (once per document).
        """
        vocabulary, doc_impacts = doc
        ids = self._term_ids(repo_id, vocabulary)
        vocab_ids = np.fromiter(map(ids.__getitem__, vocabulary), dtype=np.int64, count=len(vocabulary))
        for offset, (prior, local, impacts) in enumerate(rows):
            sid = first_rowid + offset
            term_ids = vocab_ids[np.frombuffer(local, _ID)]
            self._sections.append((term_ids, sid))
            if prior == 1.0:
                self._section_impacts.append(impacts)
            else:  # max(1, round(impact × prior)), halves up
                scaled = np.floor(np.frombuffer(impacts, _IMPACT) * prior + 0.5)
                self._section_impacts.append(np.maximum(scaled, 1).astype(_IMPACT).tobytes())
            self._forward.append((sid, repo_id, prior, term_ids.astype(_ID).tobytes() + impacts))
        if doc_postings and vocabulary:
            self._docs.append((vocab_ids, doc_id))
            self._doc_impacts.append(doc_impacts)
        self._counts[repo_id] += len(rows)

    def flush(self) -> None:
        """Write everything queued (inside the caller's transaction)."""
        conn = self.conn
        sections = _grouped(self._sections, self._section_impacts)
        docs = _grouped(self._docs, self._doc_impacts)
        rows = [(tid, blob, docs.pop(tid, b"")) for tid, blob in sections.items()]
        rows.extend((tid, b"", blob) for tid, blob in docs.items())
        conn.executemany("INSERT INTO postings(term_id, sections, docs) VALUES (?, ?, ?)", rows)
        conn.executemany(
            "INSERT INTO section_terms(section_id, repo_id, prior, terms) VALUES (?, ?, ?, ?)", self._forward
        )
        conn.executemany(
            "INSERT INTO repo_stats(repo_id, sections) VALUES (?, ?) "
            "ON CONFLICT(repo_id) DO UPDATE SET sections = sections + excluded.sections",
            self._counts.items(),
        )
        _compact_terms(conn, _crowded(conn, [row[0] for row in rows]))
        for queue in (self._sections, self._section_impacts, self._docs, self._doc_impacts, self._forward):
            queue.clear()
        self._counts.clear()


def _grouped(parts: list[tuple[npt.NDArray[np.int64], int]], impacts: list[bytes]) -> dict[int, bytes]:
    """``{term id: postings blob}`` of queued postings ``[(term ids, section or document id)]``
    with their impact bytes (one numpy sort for the whole batch)."""
    terms = np.concatenate([p[0] for p in parts]) if parts else np.empty(0, np.int64)
    if not terms.size:  # nothing but sections without a searchable word
        return {}
    owners = np.repeat(
        np.asarray([p[1] for p in parts], dtype=np.int64), [p[0].size for p in parts]
    )
    if owners.size and int(owners.max()) > MAX_POSTING_ID:
        raise OverflowError("section or document id beyond the term index's 32-bit range")
    order = np.argsort(terms, kind="stable")
    terms = terms[order]
    id_bytes = owners[order].astype(_ID).tobytes()
    impact_bytes = np.frombuffer(b"".join(impacts), dtype=_IMPACT)[order].tobytes()
    bounds = [0, *(np.flatnonzero(terms[1:] != terms[:-1]) + 1).tolist(), terms.size]
    starts = terms[bounds[:-1]].tolist()
    out: dict[int, bytes] = {}
    for tid, lo, hi in zip(starts, bounds, bounds[1:], strict=False):
        out[tid] = id_bytes[4 * lo : 4 * hi] + impact_bytes[lo:hi]
    return out


def _crowded(conn: sqlite3.Connection, term_ids: Sequence[int]) -> list[int]:
    """Those of ``term_ids`` that have reached :data:`MAX_SEGMENTS` segments."""
    out: list[int] = []
    for start in range(0, len(term_ids), _CHUNK):
        chunk = list(term_ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        out.extend(
            row[0]
            for row in conn.execute(
                f"SELECT term_id FROM postings WHERE term_id IN ({marks}) GROUP BY term_id "
                f"HAVING count(*) >= {MAX_SEGMENTS}",
                chunk,
            )
        )
    return out


def _compact_terms(conn: sqlite3.Connection, term_ids: Sequence[int]) -> None:
    """Merge the segments of each of ``term_ids`` into one (inside the caller's transaction)."""
    for start in range(0, len(term_ids), _CHUNK):
        chunk = list(term_ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        parts: defaultdict[int, list[tuple[bytes, bytes]]] = defaultdict(list)
        for tid, sections, docs in conn.execute(
            f"SELECT term_id, sections, docs FROM postings WHERE term_id IN ({marks}) ORDER BY id", chunk
        ):
            parts[tid].append((sections or b"", docs or b""))
        conn.execute(f"DELETE FROM postings WHERE term_id IN ({marks})", chunk)
        conn.executemany(
            "INSERT INTO postings(term_id, sections, docs) VALUES (?, ?, ?)",
            (
                (tid, _concat([p[0] for p in segs]), _concat([p[1] for p in segs]))
                for tid, segs in parts.items()
            ),
        )


def _concat(blobs: list[bytes]) -> bytes:
    """One postings blob holding the postings of several."""
    if len(blobs) == 1:
        return blobs[0]
    ids = b"".join(blob[: 4 * (len(blob) // 5)] for blob in blobs)
    impacts = b"".join(blob[4 * (len(blob) // 5) :] for blob in blobs)
    return ids + impacts


COMMON_TERM_SHARE = 0.5
"""Share of a repo's documents a term must be in to be one of its ``common_terms`` (k8s-en:
11 of 27,896 terms, ``kubernet`` at 65 %; docs/search.md, round 13)."""


def refresh_common_terms(conn: sqlite3.Connection, repo_id: int) -> None:
    """Recompute a repo's ``common_terms`` inside the caller's transaction: the terms in at
    least :data:`COMMON_TERM_SHARE` of its documents (postings segments summed) that a page
    title (a level 0 or 1 section's ``title_key``) holds. About 60 ms for k8s-en's 27,896
    terms."""
    conn.execute("DELETE FROM common_terms WHERE repo_id = ?", (repo_id,))
    docs = conn.execute("SELECT count(*) FROM docs WHERE repo_id = ?", (repo_id,)).fetchone()[0]
    if not docs:
        return
    conn.execute(
        "INSERT INTO common_terms(repo_id, term) SELECT repo_id, term FROM ("
        " SELECT t.repo_id, t.term FROM terms t JOIN postings p ON p.term_id = t.id"
        " WHERE t.repo_id = ? GROUP BY t.id HAVING sum(length(p.docs)) >= ?) AS c "
        "WHERE EXISTS (SELECT 1 FROM sections s JOIN docs d ON d.id = s.doc_id"
        " WHERE d.repo_id = c.repo_id AND s.level <= 1"
        " AND instr(' ' || s.title_key || ' ', ' ' || c.term || ' ') > 0)",
        (repo_id, _POSTING_BYTES * COMMON_TERM_SHARE * docs),
    )


def compact(conn: sqlite3.Connection, repo_id: int) -> int:
    """Merge every term of a repo whose postings are in several segments, then
    :func:`refresh_common_terms`; returns how many terms were merged."""
    crowded = [
        row[0]
        for row in conn.execute(
            "SELECT p.term_id FROM postings p JOIN terms t ON t.id = p.term_id WHERE t.repo_id = ? "
            "GROUP BY p.term_id HAVING count(*) > 1",
            (repo_id,),
        )
    ]
    _compact_terms(conn, crowded)
    refresh_common_terms(conn, repo_id)
    return len(crowded)


def read_postings(conn: sqlite3.Connection, term_ids: Sequence[int]) -> dict[int, tuple[bytes, bytes]]:
    """``{term id: (sections blob, docs blob)}`` with every segment of each term concatenated."""
    parts: defaultdict[int, list[tuple[bytes, bytes]]] = defaultdict(list)
    for start in range(0, len(term_ids), _CHUNK):
        chunk = list(term_ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        for tid, sections, docs in conn.execute(
            f"SELECT term_id, sections, docs FROM postings WHERE term_id IN ({marks})", chunk
        ):
            parts[tid].append((sections or b"", docs or b""))
    return {
        tid: (_concat([p[0] for p in segs]), _concat([p[1] for p in segs])) for tid, segs in parts.items()
    }


def delete_section_terms(
    conn: sqlite3.Connection, section_ids: Sequence[int], doc_ids: Sequence[int]
) -> None:
    """Remove these sections (and documents) from the term index (same transaction).

    ``doc_ids`` are the documents whose sections are all in ``section_ids``; their terms are
    the union of those sections' terms.
    """
    df: Counter[int] = Counter()
    per_repo: Counter[int] = Counter()
    for start in range(0, len(section_ids), _CHUNK):
        chunk = list(section_ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        for repo_id, blob in conn.execute(
            f"SELECT repo_id, terms FROM section_terms WHERE section_id IN ({marks})", chunk
        ):
            per_repo[repo_id] += 1
            df.update(unpack_postings(blob)[0].tolist())
        conn.execute(f"DELETE FROM section_terms WHERE section_id IN ({marks})", chunk)
    if not df:
        return
    doomed_sections = np.unique(np.asarray(section_ids, dtype=_ID))
    doomed_docs = np.unique(np.asarray(doc_ids, dtype=_ID))
    touched = sorted(df)
    updates: list[tuple[bytes, bytes, int]] = []
    empty: list[tuple[int]] = []
    for start in range(0, len(touched), _CHUNK):
        chunk = touched[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for rowid, sections, docs in conn.execute(
            f"SELECT id, sections, docs FROM postings WHERE term_id IN ({marks})", chunk
        ):
            kept = (_without(sections, doomed_sections), _without(docs, doomed_docs))
            if not (kept[0] or kept[1]):
                empty.append((rowid,))
            elif len(kept[0]) != len(sections or b"") or len(kept[1]) != len(docs or b""):
                updates.append((*kept, rowid))
    conn.executemany("UPDATE postings SET sections = ?, docs = ? WHERE id = ?", updates)
    conn.executemany("DELETE FROM postings WHERE id = ?", empty)
    conn.executemany(
        "UPDATE repo_stats SET sections = sections - ? WHERE repo_id = ?",
        ((n, repo_id) for repo_id, n in per_repo.items()),
    )
