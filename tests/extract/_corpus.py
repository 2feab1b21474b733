"""Shared loaders and scoring for the extraction tests (real fixture pages, oracle metrics)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import lxml.html

from docmunch.extract import Article, extract
from oracle.metrics import noise_residue, title_match, token_similarity, tokens

GATE_PAGES = [
    "001",
    "aclu",
    "ars-1",
    "bbc-1",
    "breitbart",
    "guardian-1",
    "theverge",
    "videos-1",
    "webmd-1",
    "medium-1",
    "blogger",
    "daringfireball-1",
    "wikipedia",
    "wikipedia-2",
    "google-sre-book-1",
    "ietf-1",
    "aktualne",
    "heise",
    "qq",
    "hukumusume",
]
PAGE_URL = "http://fakehost/test/page.html"


@dataclass(frozen=True, slots=True)
class PageScore:
    """One readability test page scored against its expected.html / expected-metadata.json."""

    name: str
    similarity: float
    noise: float
    title_ok: bool
    title: str | None
    expected_title: str | None


def score_page(folder: Path) -> PageScore:
    source = (folder / "source.html").read_text(encoding="utf-8")
    expected = lxml.html.fromstring((folder / "expected.html").read_text(encoding="utf-8"))
    meta = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))
    article = extract(source, url=PAGE_URL)
    ours, ref = tokens(article.text), tokens(expected.text_content())
    return PageScore(
        folder.name,
        token_similarity(ours, ref),
        noise_residue(ours, ref),
        title_match(article.title, meta.get("title")),
        article.title,
        meta.get("title"),
    )


@cache
def readability_scores(root: Path) -> tuple[PageScore, ...]:
    folders = sorted(p for p in (root / "readability-test-pages").iterdir() if (p / "source.html").is_file())
    return tuple(score_page(folder) for folder in folders)


def table(scores: tuple[PageScore, ...] | list[PageScore]) -> str:
    lines = [f"{'page':40s} {'sim':>6s} {'noise':>6s} title"]
    for s in sorted(scores, key=lambda s: s.similarity):
        mark = "ok" if s.title_ok else f"ours={s.title!r} expected={s.expected_title!r}"
        lines.append(f"{s.name:40s} {s.similarity:6.3f} {s.noise:6.3f} {mark}")
    return "\n".join(lines)


def pre_text(pre: lxml.html.HtmlElement) -> str:
    """Text of a ``<pre>`` with each ``<br>`` as a newline (Docusaurus renders lines that way)."""
    clone = copy.deepcopy(pre)
    for br in clone.iter("br"):
        br.tail = "\n" + (br.tail or "")
    return clone.text_content()


@dataclass(frozen=True, slots=True)
class DocsScore:
    """One docs-site page scored against truth.json."""

    site: str
    path: str
    platform: str
    precision: float
    recall: float
    heading_recall: float | None
    code_exact: float | None
    leaked: tuple[str, ...]


@cache
def docs_pages(root: Path) -> tuple[tuple[str, dict, Path], ...]:
    out: list[tuple[str, dict, Path]] = []
    for site in sorted(p for p in (root / "docs-sites").iterdir() if (p / "truth.json").is_file()):
        truth = json.loads((site / "truth.json").read_text(encoding="utf-8"))
        out.extend((site.name, page, site / page["path"]) for page in truth["pages"])
    return tuple(out)


def heading_level(heading: lxml.html.HtmlElement) -> int:
    """The level of an ``<hN>`` element (its tag is a ``str``: the tree comes from parsing)."""
    assert isinstance(heading.tag, str), heading.tag
    return int(heading.tag[1])


def score_docs_page(site: str, page: dict, path: Path, article: Article | None = None) -> DocsScore:
    from oracle.metrics import code_block_exact_share, heading_recall, prf

    article = article or extract(path.read_bytes(), url="https://docs.example.org/" + page["path"])
    score = prf(tokens(article.text), tokens(page["main_text"]))
    headings = [
        (heading_level(h), h.text_content()) for h in article.content.iter("h1", "h2", "h3", "h4", "h5", "h6")
    ]
    codes = [pre_text(pre) for pre in article.content.iter("pre")]
    return DocsScore(
        site,
        page["path"],
        article.platform,
        score.precision,
        score.recall,
        heading_recall(headings, [tuple(h) for h in page["headings"]]),
        code_block_exact_share(codes, [c["text"] for c in page["code_blocks"]]),
        tuple(s for s in page["outside_text_samples"] if s in article.text),
    )


@cache
def docs_scores(root: Path) -> tuple[DocsScore, ...]:
    return tuple(score_docs_page(site, page, path) for site, page, path in docs_pages(root))
