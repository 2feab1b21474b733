"""README's k8s-en counts are what indexing the fixture gives, and say how they were indexed.

The bench indexes every corpus without the fixture's ``NOTICE.md`` (provenance and licence,
not documentation); README's table gives those counts and names the exclusion, and the counts
of a plain ``docmunch index`` of the folder, which indexes the notice too.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench import bench_index, bench_pack, bench_search
from docmunch.index import Index

from .conftest import EXCLUDE, IndexedCorpora

README = Path(__file__).resolve().parents[2] / "README.md"


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_bench_and_these_tests_leave_out_the_same_notice() -> None:
    assert bench_index.EXCLUDE == bench_pack.EXCLUDE == bench_search.EXCLUDE == EXCLUDE == ("NOTICE.md",)


def test_readme_k8s_counts_are_those_of_the_indexed_fixture(corpora: IndexedCorpora, tmp_path: Path) -> None:
    readme = README.read_text(encoding="utf-8")
    row = re.search(
        r"\| k8s docs \(([\d,]+) files, ([\d,]+) sections; the fixture's `NOTICE\.md` excluded\)", readme
    )
    assert row is not None, "README's k8s row must give its counts and say NOTICE.md is excluded"
    report = corpora.reports["k8s-en"]
    assert (_number(row[1]), _number(row[2])) == (report.docs_indexed, report.sections)

    plain = re.search(
        r"a plain `docmunch index` of that folder\s+indexes the notice too, "
        r"([\d,]+) files and ([\d,]+) sections",
        readme,
    )
    assert plain is not None, "README must give the counts of a plain `docmunch index` too"
    with Index.open(tmp_path / "home") as index:
        notice = index.index_path(corpora.root / "k8s-en" / "NOTICE.md", repo="notice")
    assert (notice.docs_indexed, notice.errors) == (1, ())
    assert (_number(plain[1]), _number(plain[2])) == (
        report.docs_indexed + 1,
        report.sections + notice.sections,
    )
