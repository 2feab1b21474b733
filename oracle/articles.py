"""Article benchmark on ``articles-dev``: snippet precision/recall/F1 as trafilatura's evaluation counts it.

Pages and truth: ``$DOCMUNCH_FIXTURES/articles-dev/`` (330 news/blog pages, ``truth.json`` with
hand-picked ``with`` snippets that must be in the extracted text and ``without`` snippets that
must not). The metric is upstream's ``tests/eval_common.py`` (adbar/trafilatura, Apache-2.0),
as the folder's README states it:

- ``norm(s) = re.sub(r"\\s+", " ", s).strip()``, then case-sensitive exact substring tests;
- per page ``tp`` = ``with`` snippets found, ``fp`` = ``without`` snippets found,
  ``fn = len(with) - tp``, ``tn = len(without) - fp``; a raise or an empty output finds nothing;
- headline scores are micro-averaged over all pages (pooled counts).

Extractors, fed as upstream feeds them (README "Metric" and "Reference figures"):

- ``docmunch`` — ``extract(page_bytes).text`` (bytes, charset sniffed by docmunch, no URL);
- ``trafilatura`` / ``trafilatura-precision`` — ``trafilatura.extract(page_bytes,
  include_comments=False, include_tables=True, include_formatting=False)``, the second with
  ``favor_precision=True`` (both ``fast=False``, upstream's "standard" and "precision");
- ``readability-lxml`` — ``Document(decode_file(bytes)).summary()``, the HTML string scored
  as-is (markup included), as upstream scores it;
- ``readability-lxml+html_text`` — ``html_text.extract_text`` of that summary (only when the
  ``html-text`` test dependency is installed).

Peers are pinned, so :func:`run_extractor` can cache their outputs like :mod:`oracle.extractors`
does (``oracle/.cache/articles-<peer>-<version>/<sha256>.json``); the benchmark never uses the
cache for timing. docmunch is never cached.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import re
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from oracle.errors import OracleError
from oracle.runner import CACHE_DIR

__all__ = [
    "EXTRACTORS",
    "ArticlePage",
    "Counts",
    "PageScore",
    "load_articles",
    "norm",
    "page_rows",
    "run_extractor",
    "score_all",
    "score_page",
    "summarize",
    "summary_json",
]

TRUTH_FORMAT = "docmunch-articles-dev/1"
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class ArticlePage:
    """One annotated page of ``articles-dev``."""

    id: str
    """Page id (``truth.json`` ``id``, ASCII, unique)."""
    url: str
    """The page's original URL (never fetched; upstream passes none to the extractors)."""
    path: Path
    """The page file (``pages/<id>.html`` or ``.html.gz``)."""
    with_: tuple[str, ...]
    """Snippets a correct extraction must contain."""
    without: tuple[str, ...]
    """Boilerplate snippets it must not contain."""

    def source(self) -> bytes:
        """The page bytes as stored (gunzipped when the file is ``.gz``)."""
        data = self.path.read_bytes()
        return gzip.decompress(data) if self.path.suffix == ".gz" else data


def load_articles(fixtures: Path) -> list[ArticlePage]:
    """Pages of ``fixtures/articles-dev/truth.json``; :class:`OracleError` when missing or malformed."""
    folder = fixtures / "articles-dev"
    try:
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OracleError(f"cannot read {folder / 'truth.json'}: {exc}") from exc
    if truth.get("format") != TRUTH_FORMAT:
        raise OracleError(f"{folder / 'truth.json'}: format is not {TRUTH_FORMAT}")
    return [
        ArticlePage(p["id"], p.get("url", ""), folder / p["file"], tuple(p["with"]), tuple(p["without"]))
        for p in truth["pages"]
    ]


def norm(text: str) -> str:
    """Upstream's normalisation: every whitespace run (Unicode spaces too) to one space, trimmed."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class PageScore:
    """One extractor's snippet counts on one page."""

    page: str
    """Page id."""
    extractor: str
    """Extractor name from :data:`EXTRACTORS`."""
    tp: int
    """``with`` snippets found."""
    fp: int
    """``without`` snippets found (leaked boilerplate)."""
    fn: int
    """``with`` snippets missed."""
    tn: int
    """``without`` snippets correctly absent."""
    missed: tuple[str, ...] = ()
    """The ``with`` snippets not found (for finding the pages to work on)."""
    leaked: tuple[str, ...] = ()
    """The ``without`` snippets found."""
    ms: float = 0.0
    """Wall time of the extractor call, milliseconds (of the run that produced the text)."""
    error: str | None = None
    """``"Type: message"`` when the extractor raised; the page then finds nothing."""
    empty: bool = False
    """The extractor returned ``None`` or ``""`` (also finds nothing)."""


def score_page(
    page: ArticlePage, extractor: str, text: str | None, *, ms: float = 0.0, error: str | None = None
) -> PageScore:
    """Count ``page``'s snippets in ``text`` (``None``/``""`` and errors find nothing)."""
    out = norm(text or "")
    if not out:
        return PageScore(
            page.id, extractor, 0, 0, len(page.with_), len(page.without), page.with_, (), ms, error, not error
        )
    missed = tuple(w for w in page.with_ if norm(w) not in out)
    leaked = tuple(x for x in page.without if norm(x) in out)
    tp, fp = len(page.with_) - len(missed), len(leaked)
    tn = len(page.without) - fp
    return PageScore(page.id, extractor, tp, fp, len(missed), tn, missed, leaked, ms, error)


@dataclass(slots=True)
class Counts:
    """Pooled counts of one extractor over a page set and the scores computed from them."""

    pages: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    errors: int = 0
    empty: int = 0
    leaking_pages: int = 0
    """Pages with at least one ``without`` snippet found."""
    ms: list[float] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def accuracy(self) -> float:
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 0.0

    @property
    def f1(self) -> float:
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else 0.0

    def to_json(self) -> dict[str, Any]:
        """Counts and scores (rounded to 4 decimals, as upstream's CI gate) as a JSON object."""
        ordered = sorted(self.ms)
        return {
            "pages": self.pages,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "accuracy": round(self.accuracy, 4),
            "f1": round(self.f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "leaking_pages": self.leaking_pages,
            "errors": self.errors,
            "empty": self.empty,
            "ms_median": round(ordered[len(ordered) // 2], 3) if ordered else None,
            "ms_mean": round(sum(ordered) / len(ordered), 3) if ordered else None,
        }


def summarize(scores: Iterable[PageScore]) -> dict[str, Counts]:
    """Pool page scores per extractor (micro-average), in first-seen extractor order."""
    out: dict[str, Counts] = {}
    for s in scores:
        c = out.setdefault(s.extractor, Counts())
        c.pages += 1
        c.tp += s.tp
        c.fp += s.fp
        c.fn += s.fn
        c.tn += s.tn
        c.errors += s.error is not None
        c.empty += s.empty
        c.leaking_pages += s.fp > 0
        c.ms.append(s.ms)
    return out


def _docmunch(source: bytes) -> str:
    from docmunch.extract import extract

    return extract(source).text


def _trafilatura(source: bytes, *, precision: bool = False) -> str | None:
    import trafilatura

    return trafilatura.extract(
        source,
        include_comments=False,
        include_tables=True,
        include_formatting=False,
        fast=False,
        favor_precision=precision,
    )


def _trafilatura_precision(source: bytes) -> str | None:
    return _trafilatura(source, precision=True)


def _readability(source: bytes) -> str:
    from readability import Document
    from trafilatura.utils import decode_file

    summary: str = Document(decode_file(source)).summary()  # readability-lxml has no type hints
    return summary


def _readability_text(source: bytes) -> str:
    import html_text

    return html_text.extract_text(_readability(source))


Adapter = Callable[[bytes], "str | None"]

EXTRACTORS: dict[str, Adapter] = {
    "docmunch": _docmunch,
    "trafilatura": _trafilatura,
    "trafilatura-precision": _trafilatura_precision,
    "readability-lxml": _readability,
}
"""Extractor name → adapter (page bytes in, plain text out), in display order."""
if importlib.util.find_spec("html_text") is not None:
    EXTRACTORS["readability-lxml+html_text"] = _readability_text

_DISTRIBUTION = {
    "trafilatura": "trafilatura",
    "trafilatura-precision": "trafilatura",
    "readability-lxml": "readability-lxml",
    "readability-lxml+html_text": "readability-lxml",
}


def _cache_path(extractor: str, source: bytes, cache_dir: Path) -> Path:
    version = metadata.version(_DISTRIBUTION[extractor])
    return cache_dir / f"articles-{extractor}-{version}" / f"{hashlib.sha256(source).hexdigest()}.json"


def run_extractor(
    extractor: str, source: bytes, *, cache: bool = False, cache_dir: Path = CACHE_DIR
) -> tuple[str | None, float, str | None]:
    """Run one extractor on page bytes: ``(text, ms, error)``.

    ``ms`` is the wall time of the adapter call alone (``time.perf_counter``, parsing included).
    Exceptions are caught into ``error`` (``"Type: message"``). With ``cache`` a pinned peer's
    result is read from / written to ``cache_dir`` (docmunch never is). Raises ``ValueError`` for
    an unknown extractor name.
    """
    if extractor not in EXTRACTORS:
        raise ValueError(f"unknown extractor {extractor!r}")
    path = _cache_path(extractor, source, cache_dir) if cache and extractor != "docmunch" else None
    if path is not None and path.is_file():
        try:
            hit = json.loads(path.read_text(encoding="utf-8"))
            return hit["text"], float(hit["ms"]), None
        except (OSError, ValueError, KeyError, TypeError):
            pass
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = EXTRACTORS[extractor](source)
        error = None
    except Exception as exc:  # one failing page is a data point, never the end of the run
        text, error = None, f"{type(exc).__name__}: {exc}"
    ms = (time.perf_counter() - started) * 1000.0
    if path is not None and error is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"text": text, "ms": ms}, fh, ensure_ascii=False)
        os.replace(tmp, path)
    return text, ms, error


def score_all(
    pages: Iterable[ArticlePage], extractors: Iterable[str] = tuple(EXTRACTORS), *, cache: bool = False
) -> list[PageScore]:
    """Run every extractor on every page, interleaved page by page (so load hits them alike).

    Returns one :class:`PageScore` per (page, extractor), pages in the given order. ``cache``:
    see :func:`run_extractor` (the benchmark passes ``False`` so every time is measured).
    """
    names = tuple(extractors)
    out: list[PageScore] = []
    for page in pages:
        source = page.source()
        for name in names:
            text, ms, error = run_extractor(name, source, cache=cache)
            out.append(score_page(page, name, text, ms=ms, error=error))
    return out


def summary_json(scores: Iterable[PageScore]) -> dict[str, dict[str, Any]]:
    """:func:`summarize` as JSON: extractor → :meth:`Counts.to_json`."""
    return {name: counts.to_json() for name, counts in summarize(scores).items()}


def page_rows(scores: Iterable[PageScore]) -> list[dict[str, Any]]:
    """Per-page rows for ``reports/``: counts, missed and leaked snippets, ms, error."""
    return [
        {
            "page": s.page,
            "extractor": s.extractor,
            "tp": s.tp,
            "fp": s.fp,
            "fn": s.fn,
            "tn": s.tn,
            "missed": list(s.missed),
            "leaked": list(s.leaked),
            "ms": round(s.ms, 3),
            "error": s.error,
            "empty": s.empty,
        }
        for s in scores
    ]
