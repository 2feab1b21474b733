"""Store guarantees: byte-identical cache, schema gate, crash safety, concurrent writers."""

from __future__ import annotations

import hashlib
import multiprocessing
import multiprocessing.queues
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docmunch.errors import IndexStoreError, RepoNotFound, SchemaVersionError, SectionNotFound
from docmunch.formats.base import Block, Rendition
from docmunch.index import SCHEMA_VERSION, Index

from .conftest import IndexedCorpora, write

MIXED = (
    b"\xef\xbb\xbf# Title\r\n\r\nIntro line.\r\n\r\n## Old Mac\rline one\rline two\r\n"
    b"## \xe4\xb8\xad\xe6\x96\x87\n\ntext\n"
)


def test_raw_cache_is_byte_identical_with_bom_crlf_and_cr(tmp_path: Path) -> None:
    root = write(tmp_path / "docs", {"mixed.md": MIXED})
    with Index.open(tmp_path / "home") as index:
        index.index_path(root)
        state = index.document_state("docs", "mixed.md")
        assert state is not None and state.raw_hash == hashlib.sha256(MIXED).hexdigest()
        cached = (tmp_path / "home" / "raw" / state.raw_hash[:2] / state.raw_hash).read_bytes()
        assert cached == MIXED
        sections = index.toc("docs", "mixed.md")
        assert [s.title for s in sections] == ["Title", "Old Mac", "中文"]
        for s in sections:
            read = index.get_section("docs", s.id, verify=True)
            assert read.verified is True
            assert read.content.encode() == MIXED[s.byte_start : s.byte_end]
        assert index.verify_repo("docs").ok


def test_schema_version_gate(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Index.open(home).close()
    with sqlite3.connect(home / "index.sqlite3") as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 41}")
    with pytest.raises(SchemaVersionError) as info:
        Index.open(home)
    message = str(info.value)
    assert f"schema {SCHEMA_VERSION + 41}" in message and f"needs {SCHEMA_VERSION}" in message
    assert str(home) in message and "\n" not in message


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "index.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(IndexStoreError, match="index database"):
        Index.open(home)


def test_put_document_with_converted_rendition_stores_locators(tmp_path: Path) -> None:
    md = b"# Report\n\nFirst paragraph.\n\n## Results\n\nSecond paragraph.\n"
    start = md.index(b"Second")
    rendition = Rendition(
        markdown=md,
        source_kind="docx",
        title="Quarterly report",
        blocks=(Block(start, len(md), "paragraph", "Second paragraph.", ({"type": "paraid", "id": "7A"},)),),
        source_ref="/somewhere/report.docx",
        meta={"etag": "abc"},
    )
    with Index.open(tmp_path / "home") as index:
        count = index.put_document(
            "reports", "report.docx", rendition, source_hash="f" * 64, source="/somewhere"
        )
        assert count == 2
        assert index.list_docs("reports")[0].title == "Quarterly report"
        state = index.document_state("reports", "report.docx")
        assert state is not None and state.meta == {"etag": "abc"} and state.source_hash == "f" * 64
        results = index.toc("reports")[1]
        expected = rendition.locator_for(results.byte_start, results.byte_end, anchor=results.anchor)
        assert results.locator == expected and "7A" in repr(expected)
        where = index.locate("reports", results.id)
        assert where["source_path"] == "/somewhere/report.docx" and where["locator"] == results.locator
        assert index.remove_document("reports", "report.docx") is True
        assert index.remove_document("reports", "report.docx") is False
        assert list((tmp_path / "home" / "raw").rglob("*")) == [] or all(
            p.is_dir() for p in (tmp_path / "home" / "raw").rglob("*")
        )


def test_errors_for_unknown_repo_and_section(tmp_path: Path) -> None:
    root = write(tmp_path / "docs", {"a.md": "# A\n"})
    with Index.open(tmp_path / "home") as index:
        index.index_path(root)
        with pytest.raises(RepoNotFound):
            index.toc("nope")
        with pytest.raises(RepoNotFound):
            index.get_section("nope", "x")
        with pytest.raises(SectionNotFound) as missing:
            index.get_section("docs", "docs::a.md::missing#1")
        assert "the id names" not in str(missing.value)
        with pytest.raises(SectionNotFound, match=r"in repo 'docs' \(the id names repo 'other'\)"):
            index.get_section("docs", "other::a.md::a#1")  # an id copied from another repo
        with pytest.raises(RepoNotFound):
            index.delete_repo("nope")
        index.delete_repo("docs")
        assert index.list_repos() == []
        assert not any(p.is_file() for p in (tmp_path / "home" / "raw").rglob("*"))


def test_an_unknown_section_id_names_the_ids_it_most_likely_meant(tmp_path: Path) -> None:
    text = "# Guide\n\n## Setup\n\n### Retries\n\nText.\n\n## Usage\n\nMore.\n"
    root = write(tmp_path / "docs", {"a.md": text})
    with Index.open(tmp_path / "home") as index:
        index.index_path(root)
        ids = [s.id for s in index.toc("docs")]
        retries = next(i for i in ids if i.endswith("/retries#3"))
        for wrong, meant in (
            (retries.rpartition("#")[0], retries),  # the level left out
            ("docs::a.md::retries#3", retries),  # the parent's slug left out
            ("docs::a.md::retries", retries),  # both
        ):
            with pytest.raises(SectionNotFound) as missing:
                index.get_section("docs", wrong)
            assert missing.value.suggestions == (meant,)
            assert f"did you mean {meant!r}?" in str(missing.value)
        with pytest.raises(SectionNotFound) as missing:
            index.get_section("docs", "docs::a.md::nothing-like-it#2")
        assert missing.value.suggestions == () and "did you mean" not in str(missing.value)


def test_tokens_saved_counter_persists(tmp_path: Path) -> None:
    with Index.open(tmp_path / "home") as index:
        assert index.record_tokens_saved(100) == 100
    with Index.open(tmp_path / "home") as index:
        assert index.record_tokens_saved(23) == 123


def _cli(home: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DOCMUNCH_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "docmunch.cli", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _children(pid: int) -> list[int]:
    """Child pids of ``pid`` (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found.extend(int(p) for p in text.split())
    return found


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_kill_9_mid_run_leaves_previous_index_readable(corpora: IndexedCorpora, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(corpora.home, home)
    k8s = corpora.root / "k8s-en"
    proc = _cli(home, "index", str(k8s), "--repo", "k8s-copy", "--exclude", "NOTICE.md", "--json")
    deadline = time.monotonic() + 120
    committed = 0
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            with sqlite3.connect(home / "index.sqlite3", timeout=30) as conn:
                committed = conn.execute(
                    "SELECT count(*) FROM docs d JOIN repos r ON r.id = d.repo_id WHERE r.name = 'k8s-copy'"
                ).fetchone()[0]
            if committed > 0:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the index run finished before it could be interrupted"
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert 0 < committed < corpora.reports["k8s-en"].docs_indexed
    # Parser worker processes notice their parent died and exit instead of lingering.
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]

    with sqlite3.connect(home / "index.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Index.open(home) as index:
        before = corpora.reports["k8s-en"]
        assert index.verify_repo("k8s-en").ok
        assert sum(d.sections for d in index.list_docs("k8s-en")) == before.sections
        assert index.search("kubectl drain", repo="k8s-en")[0].title == "kubectl drain"
        partial = index.verify_repo("k8s-copy")
        assert partial.ok and partial.sections_checked > 0
        resumed = index.index_path(k8s, repo="k8s-copy", exclude=["NOTICE.md"])
        assert resumed.docs_unchanged >= committed
        assert resumed.docs_indexed + resumed.docs_unchanged == before.docs_indexed
        assert resumed.sections == before.sections


def test_two_writers_on_one_repo(corpora: IndexedCorpora, tmp_path: Path) -> None:
    home = tmp_path / "home"
    book = corpora.root / "rust-book"
    procs = [_cli(home, "index", str(book), "--full", "--exclude", "NOTICE.md", "--json") for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
    with Index.open(home) as index:
        report = index.verify_repo("rust-book")
        assert report.ok
        assert report.sections_checked == corpora.reports["rust-book"].sections
        assert len(index.list_docs("rust-book")) == corpora.reports["rust-book"].docs_indexed


def test_commit_recreates_a_raw_file_removed_by_another_writers_cleanup(tmp_path: Path) -> None:
    from docmunch.index.store import Store

    old = Rendition(markdown=b"# Old\n\nold text\n", source_kind="markdown")
    new = Rendition(markdown=b"# New\n\nnew text\n", source_kind="markdown")
    writer_a, writer_b = Store(tmp_path / "home"), Store(tmp_path / "home")
    writer_a.put_document("r", "a.md", old, source_hash="1" * 64, source="s")
    # Writer B prepares the old bytes (the cache file exists, so nothing is written) ...
    prepared = writer_b.prepare_document("r", "b.md", old, source_hash="1" * 64, sync=False)
    assert prepared.pending is None
    # ... writer A replaces a.md and cleans up the now unreferenced old file ...
    writer_a.put_document("r", "a.md", new, source_hash="2" * 64, source="s")
    assert not writer_a.raw.path_for(prepared.raw_hash).exists()
    # ... and B's commit puts it back before referring to it.
    assert writer_b.commit_documents("r", "s", [prepared]) == []
    assert writer_b.raw.path_for(prepared.raw_hash).read_bytes() == old.markdown
    writer_a.close()
    writer_b.close()
    with Index.open(tmp_path / "home") as index:
        assert index.verify_repo("r").ok


def test_one_index_shared_by_threads_while_writing(corpora: IndexedCorpora, tmp_path: Path) -> None:
    import threading

    home = tmp_path / "home"
    shutil.copytree(corpora.home, home)
    errors: list[BaseException] = []
    reads = [0]
    stop = threading.Event()
    with Index.open(home) as index:
        ids = [s.id for s in index.toc("rust-book")[:50]]

        def reader() -> None:
            try:
                while not stop.is_set():
                    for sid in ids[:10]:
                        assert index.get_section("rust-book", sid, verify=True).verified is True
                    assert index.search("ownership", repo="rust-book")
                    reads[0] += 1
            except BaseException as exc:  # collected for the main thread
                errors.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads:
            t.start()
        try:
            report = index.index_path(corpora.root / "rust-book", repo="book-again", exclude=["NOTICE.md"])
        finally:
            stop.set()
            for t in threads:
                t.join()
        assert errors == []
        assert reads[0] > 0
        assert report.docs_indexed == corpora.reports["rust-book"].docs_indexed
        assert index.verify_repo("book-again").ok


def _open_new_home(home: str, out: multiprocessing.queues.Queue[str]) -> None:
    try:
        Index.open(Path(home)).close()
        out.put("ok")
    except Exception as exc:  # reported to the test, which names it
        out.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_a_new_home_together_all_succeed(tmp_path: Path) -> None:
    """Switching a new database to WAL answers "database is locked" at once, without the busy
    handler, when two connections race for it (seen as a failed two-writer run): connect
    retries. A race, so many rounds of four processes (about 1 in 60 rounds failed before)."""
    context = multiprocessing.get_context("fork")
    failures: list[str] = []
    for round_ in range(80):
        home = tmp_path / f"home-{round_}"
        out: multiprocessing.queues.Queue[str] = context.Queue()
        procs = [context.Process(target=_open_new_home, args=(str(home), out)) for _ in range(4)]
        for proc in procs:
            proc.start()
        results = [out.get(timeout=60) for _ in procs]
        for proc in procs:
            proc.join()
        failures.extend(r for r in results if r != "ok")
    assert failures == []
