"""Per-process state shared by the tool handlers: the lazily opened Index, caches, counters."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BYTES_PER_TOKEN", "ProgressFn", "ToolContext", "ToolOutput"]

ProgressFn = Callable[[int, int, str], None]
"""``progress(done, total, message)`` as Index.index_path calls it."""

BYTES_PER_TOKEN = 4
"""Token estimate used for ``tokens_saved`` (same as ``Section.token_estimate``)."""

_DOC_SIZE_TTL_S = 30.0


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler returns; ``_server`` adds ``_meta`` and applies the response ceiling."""

    payload: dict[str, Any]
    """The structured result (a JSON object)."""
    sections_returned: int = 0
    """Sections (handles or bodies) in the payload."""
    tokens_saved: int = 0
    """Whole-document tokens not sent (bytes ÷ 4)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Extra ``_meta`` entries (``citation``, ``citations``)."""
    list_key: str | None = None
    """Key of the payload's list that the response ceiling may shorten."""
    text_key: str | None = None
    """Key of the payload's big string that the response ceiling may cut; a dotted path
    (``section.content``) names a string inside a nested object."""
    list_item_id: str | None = None
    """Key of each item of ``list_key`` that names it (``id``): when the ceiling cuts a list
    that has no ``offset`` paging, ``not_returned`` lists the names of the items left out."""
    resumable: bool = False
    """The text at ``text_key`` can be read on from a byte offset (``get_section``'s
    ``offset``): when the ceiling cuts it, the object holding it gains ``next_offset`` (bytes
    from the section's start: its ``offset``, if any, plus the UTF-8 bytes kept)."""


class ToolContext:
    """Shared state of one server process: the lazily opened Index and small caches."""

    def __init__(self, home: Path | None = None, *, allow_private: bool = False) -> None:
        """Args:
        home: index root (``None``: ``DOCMUNCH_HOME`` or the platform data folder).
        allow_private: let ``index_url``/``extract_url`` reach private and loopback addresses
            (``serve --allow-private``; ``DOCMUNCH_ALLOW_PRIVATE=1`` is honoured either way).
        """
        self._home = home
        self.allow_private = allow_private
        self._index: Any = None
        self._lock = threading.Lock()
        self._doc_sizes: dict[str, tuple[float, dict[str, int]]] = {}
        self._saved_base: int | None = None
        self._saved_pending = 0
        self._saved_lock = threading.Lock()

    @property
    def index(self) -> Any:
        """The :class:`docmunch.index.Index`, opened on first use (errors become tool errors)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    from docmunch.index import Index

                    self._index = Index.open(self._home)
        return self._index

    @property
    def warm(self) -> bool:
        """True once the index is open and the tokens counter is loaded (no first-use I/O left)."""
        return self._index is not None and self._saved_base is not None

    def peek_tokens_saved(self) -> int | None:
        """The running ``total_tokens_saved`` without any I/O, or ``None`` before the first read."""
        with self._saved_lock:
            return None if self._saved_base is None else self._saved_base + self._saved_pending

    def count_tokens_saved(self, tokens: int) -> int:
        """Add ``tokens`` to the running total and return the new ``total_tokens_saved``.

        The persisted counter (``Index.record_tokens_saved``, a write transaction) is read once
        and then updated by :meth:`flush_tokens_saved` every few seconds and at shutdown, so a
        read never waits on the index's write lock.
        """
        if self._saved_base is None:
            base = self.index.record_tokens_saved(0)
            with self._saved_lock:
                if self._saved_base is None:
                    self._saved_base = base
        with self._saved_lock:
            self._saved_pending += max(0, tokens)
            return (self._saved_base or 0) + self._saved_pending

    def flush_tokens_saved(self) -> None:
        """Persist the tokens counted since the last flush (no-op when there are none)."""
        with self._saved_lock:
            pending, self._saved_pending = self._saved_pending, 0
        if not pending or self._index is None:
            return
        try:
            total = self._index.record_tokens_saved(pending)
        except Exception:
            with self._saved_lock:
                self._saved_pending += pending
            raise
        with self._saved_lock:
            self._saved_base = total

    def close(self) -> None:
        """Persist pending counters and close the index if it was opened."""
        try:
            self.flush_tokens_saved()
        except Exception:
            logging.getLogger("docmunch.serve").exception("could not persist tokens_saved")
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    def forget_sizes(self, repo: str | None = None) -> None:
        """Drop cached document sizes (after a write)."""
        if repo is None:
            self._doc_sizes.clear()
        else:
            self._doc_sizes.pop(repo, None)

    def doc_sizes(self, repo: str) -> dict[str, int]:
        """``{doc_path: bytes}`` of a repo, cached for 30 s (only feeds the tokens_saved estimate)."""
        now = time.monotonic()
        cached = self._doc_sizes.get(repo)
        if cached is not None and now - cached[0] < _DOC_SIZE_TTL_S:
            return cached[1]
        sizes = {doc.doc_path: int(doc.bytes) for doc in self.index.list_docs(repo)}
        self._doc_sizes[repo] = (now, sizes)
        return sizes
