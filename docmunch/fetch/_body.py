"""Where a response body goes: memory (``FetchResult.body``) or a caller's file (``sink=``).

Internal to :mod:`docmunch.fetch.client`; a streamed body lets a large download (a repository
tarball) be capped and written to disk without ever being held in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

__all__ = ["Body", "Want"]


@dataclass(frozen=True, slots=True)
class Want:
    """How the caller wants the body: ``raw`` (any type/status), ``sink`` (stream to a file),
    ``limit`` (bytes, after decompression) and ``truncate`` (keep the first ``limit`` bytes instead
    of failing with ``TooLarge``)."""

    raw: bool = False
    sink: IO[bytes] | None = None
    limit: int = 0
    truncate: bool = False


class Body:
    """Collects a body in memory, or writes it to ``sink`` while counting its size (bytes)."""

    __slots__ = ("buffer", "sink", "size")

    def __init__(self, sink: IO[bytes] | None) -> None:
        self.sink = sink
        self.buffer = bytearray()
        self.size = 0

    def add(self, piece: bytes, limit: int | None = None) -> None:
        """Append ``piece``; with ``limit`` (bytes) only what fits under it."""
        if limit is not None and self.size + len(piece) > limit:
            piece = piece[: max(0, limit - self.size)]
        self.size += len(piece)
        if self.sink is not None:
            self.sink.write(piece)
        else:
            self.buffer += piece
