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
    """How the caller wants the body: ``raw`` (any type/status), ``sink`` (stream to a file)."""

    raw: bool = False
    sink: IO[bytes] | None = None


class Body:
    """Collects a body in memory, or writes it to ``sink`` while counting its size (bytes)."""

    __slots__ = ("buffer", "sink", "size")

    def __init__(self, sink: IO[bytes] | None) -> None:
        self.sink = sink
        self.buffer = bytearray()
        self.size = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.sink is not None:
            self.sink.write(piece)
        else:
            self.buffer += piece
