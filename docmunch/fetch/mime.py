"""Which responses docmunch indexes, and as what ``kind``.

``text/html`` and ``application/xhtml+xml`` → ``"html"``; ``text/markdown`` and
``text/x-markdown`` → ``"markdown"``; ``text/plain`` → ``"text"``; anything else is refused.
Without a ``Content-Type`` the body is sniffed with the WHATWG MIME Sniffing Standard's "rules
for identifying an unknown MIME type" (HTML patterns, binary bytes → octet-stream, else text).
"""

from __future__ import annotations

from typing import Literal

from docmunch.errors import UnsupportedContentType

__all__ = [
    "BINARY_BYTES_SHARE", "BINARY_SNIFF_BYTES", "Kind", "is_binary_text", "kind_for", "parse_content_type",
    "sniff_mime",
]  # fmt: skip

BINARY_SNIFF_BYTES = 8000
"""Leading bytes of a body labelled as text that :func:`is_binary_text` looks at (git's
heuristic; the same as a local file's, ``docmunch.index.walk.BINARY_SNIFF_BYTES``)."""

Kind = Literal["html", "markdown", "text"]

_KINDS: dict[str, Kind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
}
# MIME Sniffing Standard §7.1, the HTML patterns (each must be followed by space or '>').
_HTML_TAGS = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<script",
    b"<iframe",
    b"<h1",
    b"<div",
    b"<font",
    b"<table",
    b"<a",
    b"<style",
    b"<title",
    b"<b",
    b"<body",
    b"<br",
    b"<p",
    b"<!--",
)
_BINARY = frozenset([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])


def parse_content_type(value: str | None) -> tuple[str, str | None]:
    """``("type/subtype" lower-case, charset parameter or None)``; ``("", None)`` when absent."""
    if not value:
        return "", None
    mime, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset":
            charset = val.strip().strip('"').strip() or None
    return mime.strip().lower(), charset


def sniff_mime(data: bytes) -> str:
    """``text/html``, ``text/plain`` or ``application/octet-stream`` for an unlabelled body."""
    head = data[:1445]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xfe\xff", b"\xff\xfe")):
        return "text/plain"
    stripped = head.lstrip(b"\t\n\x0c\r ").lower()
    for tag in _HTML_TAGS:
        if stripped.startswith(tag) and stripped[len(tag) : len(tag) + 1] in (b" ", b">"):
            return "text/html"
    if any(b in _BINARY for b in head):
        return "application/octet-stream"
    return "text/plain"


BINARY_BYTES_SHARE = 0.01
"""Share of the sniffed bytes that may be the MIME Sniffing Standard's binary data bytes (C0
controls but TAB, LF, FF, CR and ESC) before a body labelled as text counts as binary. Text
holds none, or a stray one; random or compressed bytes hold about 11 %."""


def is_binary_text(data: bytes, charset: str | None) -> bool:
    """True when a body labelled HTML, Markdown or text is binary: a NUL byte in its first
    :data:`BINARY_SNIFF_BYTES` (what a local file of those types is skipped for), or more than
    :data:`BINARY_BYTES_SHARE` of them binary data bytes (MIME Sniffing Standard §4.6; the
    standard sniffs only unlabelled bodies, whose first such byte makes them binary). A UTF-16
    or UTF-32 body (a byte order mark, or that ``charset`` from the HTTP header) is text: its
    characters hold NUL bytes. Decoded, such a body was a section of U+FFFD characters."""
    if data.startswith((b"\xfe\xff", b"\xff\xfe", b"\x00\x00\xfe\xff")):
        return False
    if charset and charset.lower().replace("-", "").replace("_", "").startswith(("utf16", "utf32")):
        return False
    head = data[:BINARY_SNIFF_BYTES]
    if b"\x00" in head:
        return True
    return sum(1 for byte in head if byte in _BINARY) > BINARY_BYTES_SHARE * len(head)


def kind_for(mime: str, *, url: str | None = None) -> Kind:
    """The kind for a media type; raises :class:`UnsupportedContentType` for any other type."""
    kind = _KINDS.get(mime)
    if kind is None:
        raise UnsupportedContentType(
            f"unsupported content type {mime or '(none)'!r} at {url}: docmunch indexes HTML, XHTML, "
            "Markdown and plain text from URLs (download PDF/DOCX files and index them locally)",
            url=url,
            content_type=mime,
        )
    return kind
