"""Decode document bytes to text the way browsers choose an encoding.

Order (HTML Standard, "determining the character encoding", simplified to what a fetch can
know): byte-order mark → HTTP ``charset`` → ``<meta>`` prescan of the first 1024 bytes (HTML only)
→ a later ``<meta>`` in the head while the bytes are still ASCII (:func:`late_meta`) → valid
UTF-8 → a detector (charset-normalizer) → UTF-8 with U+FFFD replacement. A declared multi-byte
label that cannot decode bytes which are valid UTF-8 yields to UTF-8 (:func:`_unless_wrong`).
Labels are resolved with the WHATWG Encoding Standard table (:mod:`docmunch.fetch.encodings`).
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

from docmunch.fetch.encodings import (
    REPLACEMENT,
    USER_DEFINED,
    encoding_from_python,
    lookup_label,
    python_codec,
)

__all__ = ["decode_bytes", "decode_html", "decode_text", "late_meta", "prescan_meta", "sniff_bom"]

PRESCAN_BYTES = 1024
"""How much of the document the ``<meta>`` prescan reads (HTML Standard: 1024 bytes)."""
LATE_META_BYTES = 64 * 1024
"""How far (bytes) :func:`late_meta` looks for a ``<meta>`` charset after the first 1024."""
DETECTOR_BYTES = 64 * 1024
"""How much of the document the detector sees (bytes); bounds its cost on large pages."""

_WS = b"\t\n\x0c\r "
_WS_SLASH = _WS + b"/"
_WS_GT = _WS + b">"
_BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xfe\xff", "UTF-16BE"), (b"\xff\xfe", "UTF-16LE"))


def _keep_c1(exc: UnicodeError) -> tuple[str, int]:
    """windows-1252 per WHATWG maps the five bytes Python's cp1252 leaves undefined to U+0080–U+009F."""
    if isinstance(exc, UnicodeDecodeError):
        return chr(exc.object[exc.start]), exc.start + 1
    raise exc


codecs.register_error("docmunch-keep-c1", _keep_c1)


def sniff_bom(data: bytes) -> tuple[str, int] | None:
    """``(encoding, bom length in bytes)`` if ``data`` starts with a UTF-8/UTF-16 BOM, else ``None``."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    return None


def decode_bytes(data: bytes, encoding: str) -> str:
    """Decode with a WHATWG encoding name; never fails (invalid sequences become U+FFFD)."""
    if encoding == REPLACEMENT:
        return "\ufffd" if data else ""
    if encoding == USER_DEFINED:
        return "".join(chr(b) if b < 0x80 else chr(0xF780 + b - 0x80) for b in data)
    errors = "docmunch-keep-c1" if encoding == "windows-1252" else "replace"
    return data.decode(python_codec(encoding), errors=errors)


# --- the HTML Standard's "prescan a byte stream to determine its encoding" ---------------------


def _get_attribute(buf: bytes, pos: int) -> tuple[bytes, bytes, int] | None:
    """HTML Standard "get an attribute": ``(name, value, new position)``; ``None`` at ``>`` or end."""
    n = len(buf)
    while pos < n and buf[pos] in _WS_SLASH:
        pos += 1
    if pos >= n or buf[pos] == 0x3E:
        return None
    name = bytearray()
    while True:
        if pos >= n:
            return None
        b = buf[pos]
        if b == 0x3D and name:  # "="
            pos += 1
            break
        if b in _WS:
            while pos < n and buf[pos] in _WS:
                pos += 1
            if pos >= n or buf[pos] != 0x3D:
                return bytes(name), b"", pos
            pos += 1
            break
        if b in b"/>":
            return bytes(name), b"", pos
        name.append(b + 0x20 if 0x41 <= b <= 0x5A else b)
        pos += 1
    while pos < n and buf[pos] in _WS:
        pos += 1
    if pos >= n:
        return None
    value = bytearray()
    quote = buf[pos]
    if quote in b"\"'":
        end = buf.find(bytes([quote]), pos + 1)
        if end < 0:
            return None
        return bytes(name), buf[pos + 1 : end].lower(), end + 1
    if quote == 0x3E:
        return bytes(name), b"", pos
    while pos < n and buf[pos] not in _WS_GT:
        value.append(buf[pos])
        pos += 1
    if pos >= n:
        return None
    return bytes(name), bytes(value).lower(), pos


def _charset_from_content(value: str) -> str | None:
    """HTML Standard "extracting a character encoding from a meta element" (the raw label)."""
    pos = 0
    while True:
        found = value.find("charset", pos)
        if found < 0:
            return None
        pos = found + 7
        while pos < len(value) and value[pos] in "\t\n\f\r ":
            pos += 1
        if pos >= len(value) or value[pos] != "=":
            continue
        pos += 1
        while pos < len(value) and value[pos] in "\t\n\f\r ":
            pos += 1
        if pos >= len(value):
            return None
        if value[pos] in "\"'":
            end = value.find(value[pos], pos + 1)
            return value[pos + 1 : end] if end >= 0 else None
        end = pos
        while end < len(value) and value[end] not in "\t\n\f\r ;":
            end += 1
        return value[pos:end]


def _meta_charset(buf: bytes, pos: int) -> tuple[str | None, int]:
    """Process one ``<meta`` tag's attributes; ``(encoding or None, position after them)``."""
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    failed = False
    while (attr := _get_attribute(buf, pos)) is not None:
        name, value, pos = attr
        if name in seen:
            continue
        seen.add(name)
        text = value.decode("latin-1")
        if name == b"http-equiv":
            got_pragma = got_pragma or text == "content-type"
        elif name == b"content" and charset is None and not failed:
            label = _charset_from_content(text)
            if label is not None and (found := lookup_label(label)) is not None:
                charset, need_pragma = found, True
        elif name == b"charset":
            charset, need_pragma = lookup_label(text), False
            failed = charset is None
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return None, pos
    if charset in ("UTF-16BE", "UTF-16LE"):
        return "UTF-8", pos
    if charset == USER_DEFINED:
        return "windows-1252", pos
    return charset, pos


def prescan_meta(data: bytes) -> str | None:
    """The encoding a ``<meta charset>`` or ``<meta http-equiv=content-type content=...>`` in the
    first 1024 bytes declares (WHATWG name), or ``None``.

    Follows the HTML Standard's "prescan a byte stream to determine its encoding": comments,
    other tags' attributes (so ``<div title="<meta charset=x>">`` does not count), ``<!``/``</``/
    ``<?`` constructs are skipped; a ``content`` charset needs ``http-equiv="content-type"``.
    """
    return _prescan(data[:PRESCAN_BYTES])


_NON_ASCII = re.compile(rb"[\x80-\xff]")
_HEAD_END = re.compile(rb"</head[\s>]|<body[\s>]", re.IGNORECASE)


def late_meta(data: bytes) -> str | None:
    """The encoding a ``<meta>`` after the first 1024 bytes declares, when it is safe to honour.

    Browsers that meet a ``<meta charset>`` later in the head than the prescan reads re-decode the
    page with it (HTML Standard, "changing the encoding while parsing"). Honouring it here is
    safe while every byte before it is ASCII: then the text read so far is the same in the
    declared encoding (all encodings the prescan returns are ASCII-compatible). Scans, with the
    prescan's rules, up to the first non-ASCII byte, the end of the head (``</head>`` or
    ``<body>``) or :data:`LATE_META_BYTES`, whichever comes first; ``None`` when no declaration
    is found there.
    """
    end = min(len(data), LATE_META_BYTES)
    if (byte := _NON_ASCII.search(data, 0, end)) is not None:
        end = byte.start()
    if (head := _HEAD_END.search(data, 0, end)) is not None:
        end = head.start()
    if end <= PRESCAN_BYTES:
        return None  # the prescan has already read all of it
    return _prescan(data[:end])


def _prescan(buf: bytes) -> str | None:
    n, pos = len(buf), 0
    while pos < n:
        if buf.startswith(b"<!--", pos):
            end = buf.find(b"-->", pos + 2)
            if end < 0:
                return None
            pos = end + 3
            continue
        if buf[pos : pos + 5].lower() == b"<meta" and pos + 5 < n and buf[pos + 5] in _WS_SLASH:
            found, pos = _meta_charset(buf, pos + 6)
            if found is not None:
                return found
        elif buf[pos] == 0x3C and (
            buf[pos + 1 : pos + 2].isalpha()
            or (buf[pos + 1 : pos + 2] == b"/" and buf[pos + 2 : pos + 3].isalpha())
        ):
            while pos < n and buf[pos] not in _WS_GT:
                pos += 1
            while (attr := _get_attribute(buf, pos)) is not None:
                pos = attr[2]
        elif buf.startswith((b"<!", b"</", b"<?"), pos):
            end = buf.find(b">", pos + 1)
            if end < 0:
                return None
            pos = end
        # every branch above starts at a "<", any other byte is skipped: jump to the next one
        pos = buf.find(b"<", pos + 1)
        if pos < 0:
            return None
    return None


# --- the whole decision ---------------------------------------------------------------------------


# Encodings almost never served on the web (W3Techs character-encoding survey: well under
# 0.1 % of sites); the detector often scores them level with windows-1251/-1252 on the same bytes.
_RARE_ON_WEB = frozenset({"macintosh", "x-mac-cyrillic", "IBM866", "ISO-8859-8-I", "KOI8-U"})
_TIE_CHAOS = 0.02
_TIE_COHERENCE = 0.1


def _detect(data: bytes) -> str | None:
    """charset-normalizer's best guess as a WHATWG name (``None`` when it has none we support).

    Candidates the WHATWG standard lacks (``cp855``, ``mac_greek``, …) are dropped; when the
    winner is an encoding rare on the web and a common one nearly ties with it (mess ratio
    within 0.02, coherence within 0.1), the common one wins — a web-frequency prior, as
    browsers' detectors (Firefox's chardetng) apply.
    """
    candidates = [
        (match, name)
        for match in charset_normalizer.from_bytes(data[:DETECTOR_BYTES])
        if (name := encoding_from_python(match.encoding)) is not None
    ]
    if not candidates:
        return None
    best, best_name = candidates[0]
    if best_name in _RARE_ON_WEB:
        for match, name in candidates[1:]:
            near_tie = (
                match.chaos <= best.chaos + _TIE_CHAOS and match.coherence >= best.coherence - _TIE_COHERENCE
            )
            if name not in _RARE_ON_WEB and near_tie:
                return name
    return best_name


_MULTI_BYTE = frozenset(("GBK", "gb18030", "Big5", "EUC-JP", "ISO-2022-JP", "Shift_JIS", "EUC-KR"))
"""The WHATWG Encoding Standard's legacy multi-byte encodings (§10–§13): the labels whose
strict decode rejects most non-native bytes, so a failure is evidence."""


def _unless_wrong(data: bytes, declared: str) -> str:
    """``declared``, unless it cannot decode ``data`` while ``data`` is valid, non-ASCII UTF-8.

    A page saved as UTF-8 that still says ``<meta charset=gb2312>`` (or a server label copied
    from an old template) would otherwise come out as mojibake with U+FFFD. Multi-byte legacy
    text is almost never valid UTF-8 by chance, so a declaration that fails a strict decode
    where UTF-8 succeeds is the wrong one. Single-byte labels (windows-1252 …) decode any bytes
    and are never overridden; the HTML Standard's order is kept whenever the label can work.
    """
    if declared not in _MULTI_BYTE or data.isascii():
        return declared
    try:
        data.decode(python_codec(declared))
    except UnicodeDecodeError:
        pass
    else:
        return declared
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return declared
    return "UTF-8"


def _choose(data: bytes, http_charset: str | None, *, html: bool) -> tuple[str, int]:
    bom = sniff_bom(data)
    if bom is not None:
        return bom
    if http_charset and (named := lookup_label(http_charset)) is not None:
        return _unless_wrong(data, named), 0
    if html and ((meta := prescan_meta(data)) is not None or (meta := late_meta(data)) is not None):
        return _unless_wrong(data, meta), 0
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "UTF-8", 0
    return _detect(data) or "UTF-8", 0


def decode_html(data: bytes, *, http_charset: str | None = None) -> tuple[str, str]:
    """Decode an HTML document: ``(text, WHATWG encoding name)``.

    ``data`` is the whole body (bytes, already content-decoded); ``http_charset`` the raw
    ``charset`` parameter of the HTTP ``Content-Type`` (an unknown label is ignored). Order: BOM
    (stripped from the text) → HTTP charset → ``<meta>`` prescan → late ``<meta>`` in an ASCII
    head → strict UTF-8 → detector →
    UTF-8 with replacement. Never raises; works for local ``.html`` files (``http_charset=None``).
    """
    encoding, skip = _choose(data, http_charset, html=True)
    return decode_bytes(data[skip:], encoding), encoding


def decode_text(data: bytes, *, http_charset: str | None = None) -> tuple[str, str]:
    """Like :func:`decode_html` for Markdown and plain text: no ``<meta>`` prescan."""
    encoding, skip = _choose(data, http_charset, html=False)
    return decode_bytes(data[skip:], encoding), encoding
