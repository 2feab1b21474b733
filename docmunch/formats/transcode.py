"""UTF-16 and UTF-32 text files with a byte order mark: recognised as text, stored as UTF-8.

Every text format is read as UTF-8 (offsets are UTF-8 byte offsets, the sectioner parses UTF-8),
so a file whose first bytes are a UTF-16 or UTF-32 byte order mark (:data:`WIDE_BOMS`; Windows
tools such as PowerShell's ``Out-File`` and Notepad's "Unicode" write UTF-16 LE) is decoded by
the encoding its BOM names and re-encoded as UTF-8 before it is rendered. The BOM itself is
not kept (it is no text); line endings and every other character are. The stored bytes, the
section offsets and their hashes are those of the UTF-8 form; the rendition's meta records
``source_encoding`` and ``source_bytes`` so that verification can transcode the original the
same way (:mod:`docmunch.index.verify`). Without a BOM nothing is guessed: a NUL byte still
marks a text file as binary (:func:`docmunch.index.walk.looks_binary`).

This applies to every text format (:data:`docmunch.formats.TEXT_SUFFIXES`). An HTML file's
UTF-8 form is handed to its WHATWG decoder with a UTF-8 BOM, so the charset stays the one the
original BOM named (WHATWG knows no UTF-32, and a BOM outranks ``<meta charset>``).
"""

from __future__ import annotations

from docmunch.errors import ConvertError

__all__ = ["WIDE_BOMS", "transcode_to_utf8", "wide_bom"]

WIDE_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
"""Byte order marks and the Python codec each names, UTF-32 first: the UTF-32 LE mark begins
with the UTF-16 LE one (``FF FE``), and a UTF-16 text does not start with U+0000."""


def wide_bom(data: bytes) -> tuple[str, int] | None:
    """``(codec, BOM length in bytes)`` when ``data`` starts with a UTF-16 or UTF-32 BOM, else ``None``."""
    for bom, codec in WIDE_BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def transcode_to_utf8(data: bytes, *, path: str | None = None) -> tuple[bytes, str] | None:
    """The UTF-8 form of a UTF-16/32 text with a BOM, and the codec it was in; ``None`` for any
    other bytes (returned unchanged by the caller).

    Args:
        data: the file's bytes as read from disk.
        path: the file, for the error.

    Returns:
        ``(utf8_bytes, codec)``: the text after the BOM, decoded strictly and encoded as UTF-8
        (no BOM), and the codec named by the BOM (``"utf-16-le"``, ``"utf-16-be"``,
        ``"utf-32-le"``, ``"utf-32-be"``).

    Raises:
        ConvertError: the bytes after the BOM are not valid in that encoding (an odd length, a
            lone surrogate, a code point beyond U+10FFFF).
    """
    found = wide_bom(data)
    if found is None:
        return None
    codec, skip = found
    try:
        text = data[skip:].decode(codec)
    except UnicodeDecodeError as exc:
        where = f"at byte {exc.start + skip} ({exc.reason})"
        raise ConvertError(
            f"not valid {codec.upper()} {where}, after its byte order mark", path=path
        ) from None
    return text.encode("utf-8"), codec
