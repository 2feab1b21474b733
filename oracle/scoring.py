"""Score extractors against the three references and aggregate per extractor × reference.

References (a page has two of them):

- ``oracle`` — Readability.js 0.6.0 in Chromium (every page);
- ``expected`` — upstream's ``expected.html`` + ``expected-metadata.json`` title (Readability pages);
- ``truth`` — the docs site's ``truth.json`` (main_text, title, headings, code blocks; docs pages).

Extractors: docmunch, readability-lxml, trafilatura, and the oracle itself (against expected and
truth only). Every text is read by :func:`oracle.htmltext.view`, except ``truth.main_text``.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from oracle.extractors import EXTRACTORS, Extraction, extract_with, from_oracle
from oracle.htmltext import view
from oracle.metrics import (
    chrome_leaks,
    code_block_exact_share,
    heading_recall,
    noise_residue,
    prf,
    title_match,
    token_similarity,
    tokens,
)
from oracle.pages import Page
from oracle.runner import OracleResult

__all__ = [
    "METRICS",
    "REFERENCES",
    "PageResult",
    "Reference",
    "Score",
    "Summary",
    "reference_set",
    "score",
    "score_pages",
    "summarize",
]

REFERENCES: tuple[str, ...] = ("oracle", "expected", "truth")

METRICS: tuple[str, ...] = (
    "title_accuracy",
    "token_similarity",
    "noise_residue",
    "precision",
    "recall",
    "f1",
    "heading_recall",
    "code_exact",
    "leak_pages",
)
"""Summary metric names; all higher-is-better except ``noise_residue`` and ``leak_pages``."""


@dataclass(frozen=True, slots=True)
class Reference:
    """What an extraction is compared with."""

    name: str
    """One of :data:`REFERENCES`."""
    title: str
    tokens: tuple[str, ...]
    headings: tuple[tuple[int, str], ...] | None = None
    """Truth headings ``(level, text)``; ``None`` when the reference has no heading truth."""
    code_blocks: tuple[str, ...] | None = None
    """Truth code block texts; ``None`` when the reference has no code truth."""
    chrome: tuple[str, ...] | None = None
    """Truth ``outside_text_samples``: page-chrome strings that must not appear in the text."""


@dataclass(frozen=True, slots=True)
class Score:
    """Metrics of one extraction against one reference (see :mod:`oracle.metrics`)."""

    title_match: bool
    token_similarity: float
    noise_residue: float
    precision: float
    recall: float
    f1: float
    heading_recall: float | None = None
    """Docs truth only; ``None`` otherwise or when the truth has no headings."""
    code_exact: float | None = None
    """Docs truth only; ``None`` otherwise or when the truth has no code blocks."""
    leaked: tuple[str, ...] | None = None
    """Docs truth only: the chrome strings found in our text (whitespace-normalised match)."""


@dataclass(frozen=True, slots=True)
class PageResult:
    """Everything measured on one page."""

    page: Page
    extractions: dict[str, Extraction]
    """Extractor name → its output."""
    scores: dict[str, dict[str, Score]] = field(default_factory=dict)
    """Extractor name → reference name → score (only the references the page has)."""


def reference_set(page: Page, oracle: OracleResult | None) -> dict[str, Reference]:
    """The references of one page: ``oracle`` (unless ``None``) plus ``expected`` or ``truth``."""
    refs: dict[str, Reference] = {}
    if oracle is not None:
        refs["oracle"] = Reference("oracle", oracle.title, tuple(tokens(view(oracle.content).text)))
    if page.expected_html is not None and page.expected_metadata is not None:
        meta = json.loads(page.expected_metadata.read_text(encoding="utf-8"))
        text = view(page.expected_html.read_text(encoding="utf-8")).text
        refs["expected"] = Reference("expected", meta.get("title") or "", tuple(tokens(text)))
    if page.truth is not None:
        t = page.truth
        refs["truth"] = Reference(
            "truth",
            t.get("title") or "",
            tuple(tokens(t["main_text"])),
            tuple((int(level), str(text)) for level, text in t.get("headings", [])),
            tuple(block["text"] for block in t.get("code_blocks", [])),
            tuple(str(sample) for sample in t.get("outside_text_samples", [])),
        )
    return refs


def score(extraction: Extraction, reference: Reference) -> Score:
    """Score one extraction against one reference."""
    seen = view(extraction.html)
    ours = tokens(seen.text)
    counts = prf(ours, reference.tokens)
    return Score(
        title_match=title_match(extraction.title, reference.title),
        token_similarity=token_similarity(ours, reference.tokens),
        noise_residue=noise_residue(ours, reference.tokens),
        precision=counts.precision,
        recall=counts.recall,
        f1=counts.f1,
        heading_recall=None
        if reference.headings is None
        else heading_recall(seen.headings, reference.headings),
        code_exact=None
        if reference.code_blocks is None
        else code_block_exact_share(seen.code_blocks, reference.code_blocks),
        leaked=None if reference.chrome is None else chrome_leaks(seen.text, reference.chrome),
    )


def score_pages(
    pages: Sequence[Page],
    oracle: Mapping[str, OracleResult] | None,
    *,
    extractors: Iterable[str] = EXTRACTORS,
    refresh: bool = False,
) -> list[PageResult]:
    """Run the extractors on every page and score each against the page's references.

    ``oracle`` maps page name → Readability.js result (from :func:`oracle.runner.run_oracle`),
    or is ``None`` to score against ``expected``/``truth`` only (no browser needed);
    ``refresh`` re-runs the cached peers. The oracle is never scored against itself.
    """
    wanted = tuple(extractors)
    out: list[PageResult] = []
    for page in pages:
        source = page.source()
        found = oracle[page.name] if oracle is not None else None
        refs = reference_set(page, found)
        result = PageResult(page, {})
        for name in wanted:
            if name == "oracle" and found is None:
                continue
            ex = (
                from_oracle(found)
                if name == "oracle" and found is not None
                else extract_with(name, source, refresh=refresh)
            )
            result.extractions[name] = ex
            result.scores[name] = {
                r: score(ex, ref) for r, ref in refs.items() if not (name == r == "oracle")
            }
        out.append(result)
    return out


@dataclass(frozen=True, slots=True)
class Summary:
    """Means over pages of one extractor against one reference."""

    pages: int
    title_accuracy: float
    """Share of pages whose title matches."""
    token_similarity: float
    noise_residue: float
    precision: float
    recall: float
    f1: float
    heading_recall: float | None
    """Mean over pages whose truth has headings (``None`` if none has)."""
    code_exact: float | None
    """Mean over pages whose truth has code blocks (``None`` if none has)."""
    ms_per_page: float
    """Mean extraction wall time, milliseconds."""
    errors: int
    """Pages where the extractor raised (scored as empty output)."""
    leak_pages: int | None = None
    """Pages whose text holds a chrome string of their truth (``None`` without chrome truth)."""

    def metric(self, name: str) -> float | None:
        """A metric by its :data:`METRICS` name."""
        value: float | None = getattr(self, name)
        return value

    def to_json(self) -> dict[str, float | int | None]:
        """JSON-ready dict of every field."""
        return asdict(self)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def summarize(results: Sequence[PageResult], extractor: str, reference: str) -> Summary | None:
    """Means over the pages that have ``reference`` (``None`` if none has it or it was not run)."""
    rows = [r for r in results if extractor in r.scores and reference in r.scores[extractor]]
    if not rows:
        return None
    scores = [r.scores[extractor][reference] for r in rows]
    return Summary(
        pages=len(rows),
        title_accuracy=statistics.fmean(float(s.title_match) for s in scores),
        token_similarity=statistics.fmean(s.token_similarity for s in scores),
        noise_residue=statistics.fmean(s.noise_residue for s in scores),
        precision=statistics.fmean(s.precision for s in scores),
        recall=statistics.fmean(s.recall for s in scores),
        f1=statistics.fmean(s.f1 for s in scores),
        heading_recall=_mean(s.heading_recall for s in scores),
        code_exact=_mean(s.code_exact for s in scores),
        leak_pages=None
        if all(s.leaked is None for s in scores)
        else sum(1 for s in scores if s.leaked),
        ms_per_page=statistics.fmean(r.extractions[extractor].ms for r in rows),
        errors=sum(1 for r in rows if r.extractions[extractor].error),
    )
