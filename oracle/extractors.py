"""The extractors compared by the harness, behind one adapter shape: HTML in, :class:`Extraction` out.

- ``docmunch`` — ``docmunch.extract.extract`` (never cached: it is what changes);
- ``docmunch-generic`` — the same with ``platform_rules=False``: the Readability-style generic
  path that a page of an unknown generator gets (the gate's **generic** column);
- ``readability-lxml`` — ``readability.Document(html).summary()``, title ``short_title()``;
- ``trafilatura`` — ``trafilatura.extract(output_format="html", with_metadata=True)``, title from
  its ``<meta name="title">``;
- ``oracle`` — Readability.js results from :mod:`oracle.runner` (see :func:`from_oracle`).

Peers are pinned (pyproject ``[test]`` extra), so their results are cached like the oracle's,
under ``oracle/.cache/<peer>-<version>/<sha256>.json``.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import lxml.html

from oracle.runner import CACHE_DIR, DOCUMENT_URL, OracleResult

__all__ = ["EXTRACTORS", "PEERS", "Extraction", "extract_with", "from_oracle"]

EXTRACTORS: tuple[str, ...] = ("docmunch", "docmunch-generic", "readability-lxml", "trafilatura", "oracle")
"""Every extractor in the report's tables, in display order."""

PEERS: tuple[str, ...] = ("readability-lxml", "trafilatura")
"""Third-party Python extractors (cached, pinned versions)."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """One extractor's output on one page."""

    extractor: str
    """Name from :data:`EXTRACTORS`."""
    title: str
    """Extracted title ("" when none)."""
    html: str
    """Main-content HTML ("" on failure)."""
    ms: float
    """Wall time of the extraction, milliseconds (when it was computed, for cached results)."""
    error: str | None = None
    """``"ExtractError: ..."`` when the extractor raised; the page then scores as empty output."""


def _decode(source: bytes) -> str:
    return source.decode("utf-8-sig", errors="replace")


def _docmunch(html: str, **options: Any) -> tuple[str, str]:
    from docmunch.extract import extract

    kwargs: dict[str, Any] = dict(options)
    if "url" in inspect.signature(extract).parameters:
        kwargs["url"] = DOCUMENT_URL
    article = extract(html, **kwargs)
    return article.title or "", article.content_html or ""


def _docmunch_generic(html: str) -> tuple[str, str]:
    return _docmunch(html, platform_rules=False)


def _readability_lxml(html: str) -> tuple[str, str]:
    from readability import Document

    doc = Document(html, url=DOCUMENT_URL)
    return doc.short_title() or "", doc.summary(html_partial=True)


def _trafilatura(html: str) -> tuple[str, str]:
    import trafilatura

    out = trafilatura.extract(
        html, url=DOCUMENT_URL, output_format="html", with_metadata=True, include_formatting=True
    )
    if not out:
        return "", ""
    root = lxml.html.document_fromstring(out)
    title = root.xpath("string(//head/meta[@name='title']/@content)")
    body = root.find("body")
    inner = (
        "".join(lxml.html.tostring(child, encoding="unicode") for child in body) if body is not None else ""
    )
    return str(title), inner


_ADAPTERS: dict[str, Callable[[str], tuple[str, str]]] = {
    "docmunch": _docmunch,
    "docmunch-generic": _docmunch_generic,
    "readability-lxml": _readability_lxml,
    "trafilatura": _trafilatura,
}

_DISTRIBUTIONS = {"readability-lxml": "readability-lxml", "trafilatura": "trafilatura"}

_MODULES = {
    "docmunch": "docmunch.extract",
    "docmunch-generic": "docmunch.extract",
    "readability-lxml": "readability",
    "trafilatura": "trafilatura",
}
"""Imported before the clock starts, so the first page's time does not include the import."""


def _cache_file(extractor: str, source: bytes, cache_dir: Path) -> Path | None:
    if extractor not in PEERS:
        return None
    version = metadata.version(_DISTRIBUTIONS[extractor])
    return cache_dir / f"{extractor}-{version}" / f"{hashlib.sha256(source).hexdigest()}.json"


def _load(path: Path) -> Extraction | None:
    try:
        return Extraction(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _store(path: Path, result: Extraction) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(asdict(result), fh, ensure_ascii=False)
    os.replace(tmp, path)


def extract_with(
    extractor: str, source: bytes, *, cache_dir: Path = CACHE_DIR, refresh: bool = False
) -> Extraction:
    """Run one Python extractor on a page's bytes (decoded as UTF-8), from cache for pinned peers.

    Exceptions of the extractor are caught into :attr:`Extraction.error` (an ``ImportError`` of
    docmunch too: a missing extractor scores as empty output and says why). Raises ``ValueError``
    for an unknown extractor name (``"oracle"`` results come from :func:`from_oracle`).
    """
    if extractor not in _ADAPTERS:
        raise ValueError(f"unknown extractor {extractor!r}")
    path = _cache_file(extractor, source, cache_dir)
    if path is not None and not refresh and (hit := _load(path)) is not None:
        return hit
    try:
        importlib.import_module(_MODULES[extractor])
    except Exception as exc:
        return Extraction(extractor, "", "", 0.0, f"{type(exc).__name__}: {exc}")
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            title, html = _ADAPTERS[extractor](_decode(source))
        error = None
    except Exception as exc:  # any failure of a third-party or in-progress extractor is a data point
        title, html, error = "", "", f"{type(exc).__name__}: {exc}"
    result = Extraction(extractor, title, html, (time.perf_counter() - started) * 1000.0, error)
    if path is not None and error is None:
        _store(path, result)
    return result


def from_oracle(result: OracleResult) -> Extraction:
    """The oracle's output as an :class:`Extraction` (empty with an error when Readability found nothing)."""
    error = None if result.ok else "Readability.parse() returned null"
    return Extraction("oracle", result.title, result.content, result.ms, error)
