"""Fixtures of the index tests: every corpus indexed once per session into its own home."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from docmunch.index import Index, IndexReport

CORPORA = ("rust-book", "k8s-en", "k8s-zh", "ms-virt-api")
EXCLUDE = ("NOTICE.md",)
"""The corpora's attribution files are not documentation (LICENSE files have no indexable suffix)."""


@dataclass(frozen=True, slots=True)
class IndexedCorpora:
    home: Path
    root: Path
    reports: dict[str, IndexReport]


@pytest.fixture(scope="session")
def corpora(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> IndexedCorpora:
    """All corpora indexed (cold) into one session home; tests must not write to it."""
    home = tmp_path_factory.mktemp("corpora-home")
    root = fixtures_dir / "corpora"
    reports = {}
    with Index.open(home) as index:
        for name in CORPORA:
            reports[name] = index.index_path(root / name, exclude=EXCLUDE)
    return IndexedCorpora(home, root, reports)


@pytest.fixture
def corpus_index(corpora: IndexedCorpora) -> Iterator[Index]:
    """A read-only handle on the session index."""
    index = Index.open(corpora.home)
    yield index
    index.close()


SPEC_CORPUS = Path(__file__).parent / "fixtures" / "search-corpus"
"""The spec corpus written for the search tests (``fixtures/search.txt``)."""


@pytest.fixture(scope="module")
def spec_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """The spec corpus indexed as repo ``spec`` into a home of the test module's own."""
    index = Index.open(tmp_path_factory.mktemp("spec-home"))
    assert index.index_path(SPEC_CORPUS, repo="spec").errors == ()
    yield index
    index.close()


def write(root: Path, files: Mapping[str, bytes | str]) -> Path:
    """Create ``files`` (doc_path → content) under ``root``; returns root."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    return root
