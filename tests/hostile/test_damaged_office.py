"""Damaged DOCX files (real fixtures with bytes changed): one clear per-file error, and the
rest of the folder is indexed — never an internal error that ends the run.

A user trial found that a DOCX whose deflate stream is corrupt raised ``zlib.error`` out of
the zip reader, which no caller turned into a per-file error: ``docmunch index`` of the whole
folder stopped with "internal error", and every later run of that repo did the same.
"""

from __future__ import annotations

import contextlib
import io
import random
import zipfile
from pathlib import Path

import pytest

from docmunch.errors import DocmunchError
from docmunch.formats import render_file
from docmunch.index import Index
from docmunch.index import prepare as prepare_module

DOCX = "office/docx/word_sample.docx"


def _member_span(data: bytes, member: str) -> tuple[int, int]:
    """Where ``member``'s compressed bytes lie in the zip ``data`` (start, end)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo(member)
    header = info.header_offset
    name_len = int.from_bytes(data[header + 26 : header + 28], "little")
    extra_len = int.from_bytes(data[header + 28 : header + 30], "little")
    start = header + 30 + name_len + extra_len
    return start, start + info.compress_size


def _corrupt_member(data: bytes, member: str) -> bytes:
    """``data`` (a zip) with the middle of ``member``'s compressed bytes overwritten."""
    start, end = _member_span(data, member)
    middle = (start + end) // 2
    damaged = bytearray(data)
    damaged[middle : middle + 64] = b"A" * 64
    return bytes(damaged)


@pytest.fixture
def damaged_docx(fixtures_dir: Path) -> bytes:
    data = (fixtures_dir / DOCX).read_bytes()
    return _corrupt_member(data, "word/document.xml")


def test_a_corrupt_deflate_stream_is_a_clear_convert_error(tmp_path: Path, damaged_docx: bytes) -> None:
    path = tmp_path / "damaged.docx"
    path.write_bytes(damaged_docx)
    with pytest.raises(DocmunchError, match=r"not a valid DOCX file: word/document\.xml: "):
        render_file(path, damaged_docx)


def test_the_rest_of_the_folder_is_indexed_and_an_existing_repo_updated(
    tmp_path: Path, damaged_docx: bytes
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nThe first text.\n", encoding="utf-8")
    with Index.open(tmp_path / "home") as index:
        first = index.index_path(docs, repo="mixed")
        assert first.docs_indexed == 1 and not first.errors
        (docs / "good.md").write_text("# Good\n\nThe second text, about zebras.\n", encoding="utf-8")
        (docs / "damaged.docx").write_bytes(damaged_docx)
        again = index.index_path(docs, repo="mixed")
        assert again.docs_indexed == 1
        errors = [(e.path, e.message.split(":")[0]) for e in again.errors]
        assert errors == [("damaged.docx", "not a valid DOCX file")]
        assert [hit.doc_path for hit in index.search("zebras", repo="mixed")] == ["good.md"]


@pytest.mark.parametrize("seed", range(24))
def test_random_damage_never_escapes_as_another_exception(
    fixtures_dir: Path, tmp_path: Path, seed: int
) -> None:
    """Random bytes over the zip as a whole, or inside the main part's deflate stream."""
    data = bytearray((fixtures_dir / DOCX).read_bytes())
    rng = random.Random(seed)
    low, high = _member_span(bytes(data), "word/document.xml") if seed % 2 else (0, len(data))
    for _ in range(rng.randint(1, 4)):
        start = rng.randrange(low, high)
        data[start : start + rng.randint(1, 16)] = rng.randbytes(rng.randint(1, 16))
    path = tmp_path / "fuzzed.docx"
    path.write_bytes(data)
    with contextlib.suppress(DocmunchError):  # a clear error; anything else fails the test
        render_file(path, bytes(data))


def test_an_unexpected_renderer_failure_is_that_files_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence: whatever a renderer raises is the file's own error (fault
    injected, since every real cause found so far is fixed at its source)."""
    def failing(path: Path, data: bytes, **kwargs: object) -> object:
        if path.name == "trap.md":
            raise RuntimeError("a renderer bug")
        return render_file(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare_module, "render_file", failing)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nFine.\n", encoding="utf-8")
    (docs / "trap.md").write_text("# Trap\n", encoding="utf-8")
    with Index.open(tmp_path / "home") as index:
        report = index.index_path(docs, repo="t")
    assert report.docs_indexed == 1
    assert [(e.path, e.message) for e in report.errors] == [("trap.md", "RuntimeError: a renderer bug")]
