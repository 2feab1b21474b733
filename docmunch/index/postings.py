"""The term index behind question search: impact-ordered postings and per-section term lists.

Index time (:func:`section_terms`, in the parser workers): every section is analysed
(:mod:`docmunch.index.analyze`) in four fields — its title, its heading path (ancestor
titles), its document (title and path) and its body — and each distinct term gets one
**impact**: the BM25F term-frequency part (Robertson, Zaragoza & Taylor, "Simple BM25
extension to multiple weighted fields", CIKM 2004)::

    tf~ = Σ_field  W[field] · tf[field] / (1 − B[field] + B[field] · len[field] / AVG[field])
    impact = tf~ / (K1 + tf~)            (0 … 1, stored as 1 … IMPACT_LEVELS)

Field lengths are normalised by fixed reference lengths (:data:`AVG_FIELD_TERMS`) instead of
the collection averages, so an impact never changes after it is written (Anh & Moffat's
impact-ordered indexes make the same trade). The query multiplies the impact by the term's
IDF at search time (:mod:`docmunch.index.rank`).

Storage (:class:`TermWriter`, :func:`delete_section_terms`, in the write transaction):

* ``terms(id, repo_id, term, df)`` — per-repo vocabulary with document frequency (sections);
* ``postings(term_id, impact, section_id)`` — primary key in that order, ``impact`` descending,
  ``WITHOUT ROWID``: the best sections for a term are the first rows of its range, so a
  query reads at most a fixed number of postings per term however common the term is;
* ``section_terms(section_id, repo_id, prior, terms)`` — each section's own (term id, impact)
  list as a packed array (for exact scoring of candidates and for deletion) and its
  content prior (:func:`content_prior`);
* ``repo_stats(repo_id, sections)`` — section count per repo (the N of IDF).
"""

from __future__ import annotations

import re
import sqlite3
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence

from docmunch.index.analyze import CHAR_PREFIX, terms

__all__ = [
    "AVG_FIELD_TERMS",
    "FIELD_WEIGHTS",
    "IMPACT_LEVELS",
    "K1",
    "MIN_CONTENT_WORDS",
    "B",
    "SectionTerms",
    "TermCache",
    "TermWriter",
    "content_prior",
    "delete_section_terms",
    "section_terms",
]

FIELD_WEIGHTS = (4.0, 2.0, 2.0, 1.0)
"""BM25F weights of title, heading path, document (title + path), body. Dev set: title 4 vs 6
vs 10 — 0.833 / 0.825 / 0.817 recall@10; document field 2 vs 1: +1 question (docs/search.md)."""
B = (0.3, 0.3, 0.3, 0.75)
"""BM25F length normalisation per field (short fields barely; body the usual 0.75)."""
K1 = 1.2
"""BM25 saturation (Robertson's usual 1.2; 0.8 and 2.5 both measured lower on the dev set)."""
AVG_FIELD_TERMS = (4.0, 4.0, 12.0, 150.0)
"""Reference field lengths in terms (≈ the corpora's averages: title 3–8, heading path 2–5,
document 11–13, body 115–300)."""
IMPACT_LEVELS = 255
"""Impacts are stored as integers 1 … 255 (0 never occurs: a posting means the term occurs)."""
MIN_CONTENT_WORDS = 8
"""A section with fewer words of its own prose (links, comments, template shortcodes and the
heading line removed) counts as non-content (empty "What's next" lists, shortcode-only
headings) and gets :data:`NON_CONTENT_PRIOR`."""
NON_CONTENT_PRIOR = 0.5
"""Score multiplier of a non-content section (dev set: 0.825 → 0.817 recall without it, and
shortcode headings ranked first on mixed queries)."""

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$", re.M)
_WORDS = re.compile(r"\w+")

SectionTerms = tuple[float, list[tuple[str, int]]]
"""``(prior, [(term, impact), …])`` of one section, terms distinct."""


def content_prior(body: str) -> float:
    """Score multiplier for a section body (heading line excluded): :data:`NON_CONTENT_PRIOR`
    when it has fewer than :data:`MIN_CONTENT_WORDS` words outside comments, template
    shortcodes and links, else 1.0."""
    text = _COMMENT.sub(" ", body)
    text = _SHORTCODE.sub(" ", text)
    text = _REF_LINK.sub(" ", text)
    text = _LINK.sub(" ", text)
    for count, _ in enumerate(_WORDS.finditer(text), start=1):
        if count >= MIN_CONTENT_WORDS:
            return 1.0
    return NON_CONTENT_PRIOR


def section_terms(title: str, heading_path: str, document: str, body: str) -> SectionTerms:
    """Prior and (term, impact) list of one section.

    Args:
        title: the section title (plain text).
        heading_path: ancestor titles joined by ``" > "``.
        document: document title and doc_path.
        body: the section text after its heading line (HTML comments are not indexed).
    """
    fields = (title, heading_path, document, _COMMENT.sub(" ", body))
    counts = [Counter(terms(text)) for text in fields]
    # Field length in words: character terms (CJK) repeat the words' text, so they do not count.
    lengths = [sum(n for t, n in c.items() if not t.startswith(CHAR_PREFIX)) for c in counts]
    norms = [FIELD_WEIGHTS[f] / (1 - B[f] + B[f] * lengths[f] / AVG_FIELD_TERMS[f]) for f in range(4)]
    tf: dict[str, float] = {}
    for f, counter in enumerate(counts):
        for term, n in counter.items():
            tf[term] = tf.get(term, 0.0) + n * norms[f]
    out = [(term, max(1, round(IMPACT_LEVELS * t / (K1 + t)))) for term, t in tf.items()]
    return content_prior(body), out


class TermCache:
    """Term ids already known to this process, per repo (saves a lookup per term and batch).

    Trusted only after :meth:`validate` inside the current write transaction: the cached
    count of a repo's terms must equal the table's, else (another process added or deleted
    terms) the repo's cache is dropped. Terms are only ever deleted with their repo.
    """

    def __init__(self) -> None:
        self.ids: dict[int, dict[str, int]] = {}

    def validate(self, conn: sqlite3.Connection, repo_id: int) -> None:
        """Drop the repo's cached ids unless they match the table (call inside the transaction)."""
        known = self.ids.get(repo_id)
        if known is None:
            return
        count = conn.execute("SELECT count(*) FROM terms WHERE repo_id = ?", (repo_id,)).fetchone()[0]
        if count != len(known):
            del self.ids[repo_id]

    def clear(self) -> None:
        """Forget everything (after deleting a repo)."""
        self.ids.clear()


class TermWriter:
    """Buffers the term rows of one write transaction and writes them sorted in :meth:`flush`.

    Sorting postings by primary key before inserting them and updating each term's ``df``
    once per transaction (not once per document) is what keeps cold indexing fast.
    """

    def __init__(self, conn: sqlite3.Connection, cache: TermCache | None = None) -> None:
        self.conn = conn
        self._cache = cache if cache is not None else TermCache()
        self._checked: set[int] = set()
        self._postings: list[tuple[int, int, int]] = []
        self._forward: list[tuple[int, int, float, bytes]] = []
        self._df: Counter[int] = Counter()
        self._sections: Counter[int] = Counter()

    def _term_ids(self, repo_id: int, words: Iterable[str]) -> dict[str, int]:
        if repo_id not in self._checked:
            self._cache.validate(self.conn, repo_id)
            self._checked.add(repo_id)
        ids = self._cache.ids.setdefault(repo_id, {})
        wanted = [w for w in dict.fromkeys(words) if w not in ids]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            self.conn.executemany(
                "INSERT OR IGNORE INTO terms(repo_id, term, df) VALUES (?, ?, 0)",
                ((repo_id, w) for w in chunk),
            )
            marks = ",".join("?" * len(chunk))
            for term, tid in self.conn.execute(
                f"SELECT term, id FROM terms WHERE repo_id = ? AND term IN ({marks})", (repo_id, *chunk)
            ):
                ids[term] = tid
        return ids

    def add(self, repo_id: int, first_rowid: int, rows: Sequence[SectionTerms]) -> None:
        """Queue the term rows of a document's sections (section ids ``first_rowid …``)."""
        ids = self._term_ids(repo_id, (t for _, items in rows for t, _ in items))
        for offset, (prior, items) in enumerate(rows):
            sid = first_rowid + offset
            packed = sorted((ids[t] << 8) | impact for t, impact in items)
            self._postings.extend((value >> 8, value & 0xFF, sid) for value in packed)
            self._df.update(value >> 8 for value in packed)
            self._forward.append((sid, repo_id, prior, array("Q", packed).tobytes()))
        self._sections[repo_id] += len(rows)

    def flush(self) -> None:
        """Write everything queued (inside the caller's transaction)."""
        conn = self.conn
        self._postings.sort(key=lambda row: (row[0], -row[1], row[2]))
        conn.executemany("INSERT INTO postings(term_id, impact, section_id) VALUES (?, ?, ?)", self._postings)
        conn.executemany(
            "INSERT INTO section_terms(section_id, repo_id, prior, terms) VALUES (?, ?, ?, ?)", self._forward
        )
        conn.executemany(
            "UPDATE terms SET df = df + ? WHERE id = ?", sorted((n, t) for t, n in self._df.items())
        )
        conn.executemany(
            "INSERT INTO repo_stats(repo_id, sections) VALUES (?, ?) "
            "ON CONFLICT(repo_id) DO UPDATE SET sections = sections + excluded.sections",
            self._sections.items(),
        )
        self._postings.clear()
        self._forward.clear()
        self._df.clear()
        self._sections.clear()


def delete_section_terms(conn: sqlite3.Connection, section_ids: Sequence[int]) -> None:
    """Remove the postings, term list and counts of these sections (same transaction)."""
    df: Counter[int] = Counter()
    per_repo: Counter[int] = Counter()
    doomed: list[tuple[int, int, int]] = []
    for start in range(0, len(section_ids), 500):
        chunk = list(section_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        for sid, repo_id, blob in conn.execute(
            f"SELECT section_id, repo_id, terms FROM section_terms WHERE section_id IN ({marks})", chunk
        ):
            packed = array("Q")
            packed.frombytes(blob)
            per_repo[repo_id] += 1
            for value in packed:
                doomed.append((value >> 8, value & 0xFF, sid))
                df[value >> 8] += 1
        conn.execute(f"DELETE FROM section_terms WHERE section_id IN ({marks})", chunk)
    conn.executemany("DELETE FROM postings WHERE term_id = ? AND impact = ? AND section_id = ?", doomed)
    conn.executemany("UPDATE terms SET df = df - ? WHERE id = ?", ((n, tid) for tid, n in df.items()))
    conn.executemany(
        "UPDATE repo_stats SET sections = sections - ? WHERE repo_id = ?",
        ((n, repo_id) for repo_id, n in per_repo.items()),
    )
