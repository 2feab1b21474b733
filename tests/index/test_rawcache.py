"""The raw cache's section reads: the exact byte range, short at the file's end, with and without pread."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.errors import IndexStoreError
from docmunch.index import rawcache
from docmunch.index.rawcache import RawCache

DATA = "héllo, 调度器\n".encode() * 500


@pytest.mark.parametrize("pread", [True, False], ids=["pread", "seek-and-read"])
def test_read_range_returns_the_exact_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pread: bool
) -> None:
    if not pread:
        monkeypatch.setattr(rawcache, "_PREAD", None)  # the path Windows takes
    cache = RawCache(tmp_path / "raw")
    digest, _ = cache.put(DATA)
    for start, end in ((0, 0), (0, 1), (3, 17), (1000, 4096), (len(DATA) - 5, len(DATA)), (0, len(DATA))):
        assert cache.read_range(digest, start, end) == DATA[start:end]
    assert cache.read_range(digest, len(DATA) - 5, len(DATA) + 100) == DATA[-5:]  # short at the end
    assert cache.read_range(digest, len(DATA) + 10, len(DATA) + 20) == b""
    with pytest.raises(IndexStoreError, match="unreadable"):
        cache.read_range("0" * 64, 0, 10)
