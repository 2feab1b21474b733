"""Pack benchmark: size of a k8s-en pack and export/import time, beside copying the data folder.

k8s-en is indexed cold into a fresh home, exported with ``Index.export_pack``, imported into a
second fresh home with ``Index.import_pack`` (every hash verified, search data derived again)
and verified. The peer is what users did before packs: a ``tar.gz`` of the whole data folder
(database with its FTS index + raw cache), timed with the standard library's ``tarfile``;
and, for the import side, indexing the source files again.
"""

from __future__ import annotations

import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.table import Table

EXCLUDE = ("NOTICE.md",)
CORPUS = "k8s-en"


def _folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def run(fixtures: Path) -> dict[str, Any]:
    from docmunch.index import Index

    corpus = fixtures / "corpora" / CORPUS
    result: dict[str, Any] = {"corpus": CORPUS}
    with tempfile.TemporaryDirectory(prefix="bench-pack-") as tmp:
        root = Path(tmp)
        with Index.open(root / "src") as index:
            started = time.perf_counter()
            report = index.index_path(corpus, exclude=EXCLUDE)
            result["index_from_source_s"] = round(time.perf_counter() - started, 3)
            result["docs"], result["sections"] = report.docs_indexed, report.sections
            started = time.perf_counter()
            exported = index.export_pack(CORPUS, root / "k8s.dmpack")
            result["export_s"] = round(time.perf_counter() - started, 3)
        result["source_bytes"] = _folder_bytes(corpus)
        result["raw_bytes"] = exported.raw_bytes
        result["pack_bytes"] = exported.pack_bytes
        result["home_bytes"] = _folder_bytes(root / "src")
        started = time.perf_counter()
        with tarfile.open(root / "home.tar.gz", "w:gz") as tar:
            tar.add(root / "src", arcname="home")
        result["tar_home_s"] = round(time.perf_counter() - started, 3)
        result["tar_home_bytes"] = (root / "home.tar.gz").stat().st_size
        with Index.open(root / "dst") as index:
            started = time.perf_counter()
            imported = index.import_pack(root / "k8s.dmpack")
            result["import_s"] = round(time.perf_counter() - started, 3)
            started = time.perf_counter()
            verify = index.verify_repo(CORPUS)
            result["verify_after_import_s"] = round(time.perf_counter() - started, 3)
            assert verify.ok and imported.sections == result["sections"], (verify.mismatches[:3], imported)
            result["search_hits_after_import"] = len(index.search("pod scheduling", repo=CORPUS))
    result["pack_vs_source"] = round(result["pack_bytes"] / result["source_bytes"], 3)
    result["pack_vs_tar_home"] = round(result["pack_bytes"] / result["tar_home_bytes"], 3)
    return result


def table(result: dict[str, Any]) -> Table:
    t = Table(title=f"pack: {result['corpus']} ({result['docs']} docs, {result['sections']} sections)")
    t.add_column("what")
    t.add_column("docmunch pack", justify="right")
    t.add_column("tar.gz of the data folder", justify="right")
    mb = 2**20
    t.add_row("size", f"{result['pack_bytes'] / mb:.1f} MB", f"{result['tar_home_bytes'] / mb:.1f} MB")
    t.add_row("write (export / tar)", f"{result['export_s']:.2f} s", f"{result['tar_home_s']:.2f} s")
    t.add_row(
        "import (verified, search data rebuilt)",
        f"{result['import_s']:.2f} s",
        f"— (index the sources again: {result['index_from_source_s']:.2f} s)",
    )
    t.add_row(
        "source files / data folder",
        f"{result['source_bytes'] / mb:.1f} MB",
        f"{result['home_bytes'] / mb:.1f} MB",
    )
    return t
