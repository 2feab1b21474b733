"""Incremental, output-bounded ``Content-Encoding`` decoders (gzip, deflate, br).

httpx's own decoders hand back everything one compressed chunk expands to: one 64 KiB chunk of
a gzip bomb is ~64 MiB, a brotli bomb far more. These decoders yield pieces of about
:data:`PIECE_BYTES` (zlib ``max_length``/``unconsumed_tail``: at most that; brotli
``output_buffer_limit`` is soft: up to ~1.5×), so a caller stops at its size cap having held
at most one piece more than the cap.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

import brotli

from docmunch.errors import DecodeError

__all__ = ["ACCEPT_ENCODING", "PIECE_BYTES", "BodyDecoder", "make_decoder"]

PIECE_BYTES = 64 * 1024
"""Largest piece of decoded output a decoder yields at once (bytes)."""
ACCEPT_ENCODING = "gzip, deflate, br"
"""What docmunch asks for: exactly the encodings it can decode with bounded output."""


class BodyDecoder(Protocol):
    """Turns compressed chunks into decoded pieces of at most :data:`PIECE_BYTES` bytes."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decode one chunk; pieces are yielded lazily (stop iterating to stop decoding)."""
        ...

    def flush(self) -> Iterator[bytes]:
        """Decode what is left at the end of the body."""
        ...


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), PIECE_BYTES):
            yield data[start : start + PIECE_BYTES]

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Zlib:
    """gzip (``wbits=31``, multi-member) or deflate (zlib-wrapped, falling back to raw deflate
    as browsers and httpx do for servers that send RFC 1951 data)."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._wbits = zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS
        self._obj = zlib.decompressobj(self._wbits)
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            if self._obj.eof:  # gzip allows several members back to back (RFC 1952 §2.2)
                if not self._gzip:
                    return
                self._obj = zlib.decompressobj(self._wbits)
            try:
                out = self._obj.decompress(data, PIECE_BYTES)
            except zlib.error as exc:
                if not self._gzip and not self._started:
                    self._wbits, self._started = -zlib.MAX_WBITS, True
                    self._obj = zlib.decompressobj(self._wbits)
                    continue
                raise DecodeError(f"invalid {'gzip' if self._gzip else 'deflate'} data: {exc}") from None
            self._started = True
            data = self._obj.unconsumed_tail or (self._obj.unused_data if self._obj.eof else b"")
            if out:
                yield out
            while not data and len(out) == PIECE_BYTES and not self._obj.eof:
                out = self._obj.decompress(b"", PIECE_BYTES)  # drain output zlib still holds
                data = self._obj.unconsumed_tail
                if out:
                    yield out

    def flush(self) -> Iterator[bytes]:
        try:
            out = self._obj.flush()
        except zlib.error as exc:
            raise DecodeError(f"invalid compressed data: {exc}") from None
        if out:
            yield out


class _Brotli:
    def __init__(self) -> None:
        self._obj = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            out = self._obj.process(data, output_buffer_limit=PIECE_BYTES)
            if out:
                yield out
            while not self._obj.can_accept_more_data():
                out = self._obj.process(b"", output_buffer_limit=PIECE_BYTES)
                if out:
                    yield out
        except brotli.error as exc:
            raise DecodeError(f"invalid brotli data: {exc}") from None

    def flush(self) -> Iterator[bytes]:
        try:
            while not self._obj.is_finished():
                out = self._obj.process(b"", output_buffer_limit=PIECE_BYTES)
                if not out:
                    raise DecodeError("truncated brotli data")
                yield out
        except brotli.error as exc:
            raise DecodeError(f"invalid brotli data: {exc}") from None


class _Chain:
    """Several codings (``Content-Encoding: gzip, br``), undone last-applied first."""

    def __init__(self, decoders: list[BodyDecoder]) -> None:
        self._decoders = decoders

    def _through(self, pieces: Iterator[bytes], index: int) -> Iterator[bytes]:
        if index == len(self._decoders):
            yield from pieces
            return
        decoder = self._decoders[index]
        for piece in pieces:
            yield from self._through(decoder.feed(piece), index + 1)

    def feed(self, data: bytes) -> Iterator[bytes]:
        return self._through(iter((data,)), 0)

    def flush(self) -> Iterator[bytes]:
        for index, decoder in enumerate(self._decoders):
            yield from self._through(decoder.flush(), index + 1)


def make_decoder(content_encoding: str | None) -> BodyDecoder:
    """A decoder for a ``Content-Encoding`` header value (``None``/``identity`` → pass-through).

    Raises :class:`DecodeError` for a coding docmunch did not ask for (e.g. ``zstd``).
    """
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    decoders: list[BodyDecoder] = []
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip"):
            decoders.append(_Zlib(gzip=True))
        elif coding == "deflate":
            decoders.append(_Zlib(gzip=False))
        elif coding == "br":
            decoders.append(_Brotli())
        elif coding != "identity":
            raise DecodeError(f"unsupported Content-Encoding {coding!r}")
    if not decoders:
        return _Identity()
    return decoders[0] if len(decoders) == 1 else _Chain(decoders)
