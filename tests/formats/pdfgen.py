"""A tiny PDF writer for tests: pages of text in given fonts, with optional ``/ToUnicode``.

Written from PDF 32000-1:2008 §7.5 (file structure: objects, cross-reference table, trailer)
and §9.10.3 (ToUnicode CMaps), so a test can hold exactly the glyph situation it is about
(a ligature glyph mapped to U+FB01, a glyph with no Unicode at all) in a few lines.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Font:
    """A simple (single-byte) Type 1 font resource."""

    base: str = "Helvetica"
    differences: str = ""
    """``/Differences`` array body, e.g. ``"1 /fi 2 /g17"`` (empty: standard encoding)."""
    to_unicode: dict[int, str] | None = None
    """Code → Unicode text for a ``/ToUnicode`` CMap (``None``: no CMap)."""


def _cmap(mapping: dict[int, str]) -> str:
    lines = [
        "/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
        "/CMapName /Test def", "1 begincodespacerange <00> <FF> endcodespacerange",
        f"{len(mapping)} beginbfchar",
    ]
    for code, text in sorted(mapping.items()):
        hex_text = "".join(f"{ord(ch):04X}" for ch in text)
        lines.append(f"<{code:02X}> <{hex_text}>")
    lines += ["endbfchar", "endcmap", "CMapName currentdict /CMap defineresource pop", "end end"]
    return "\n".join(lines)


def text_op(font: str, size: float, x: float, y: float, text: bytes) -> str:
    """A ``BT … ET`` object showing ``text`` (raw codes, escaped as a PDF string) at ``(x, y)``."""
    escaped = "".join(
        f"\\{b:03o}" if b < 0x20 or b > 0x7E or chr(b) in "()\\" else chr(b) for b in text
    )
    return f"BT /{font} {size} Tf {x} {y} Td ({escaped}) Tj ET"


def build_pdf(pages: list[list[str]], fonts: dict[str, Font], *, size: tuple[int, int] = (612, 792)) -> bytes:
    """PDF bytes: one page per list of content operators (see :func:`text_op`)."""
    objects: list[str] = []

    def add(source: str) -> int:
        objects.append(source)
        return len(objects)

    def stream(data: str) -> int:
        return add(f"<< /Length {len(data.encode('latin-1'))} >>\nstream\n{data}\nendstream")

    font_refs = []
    for name, font in fonts.items():
        extra = ""
        if font.differences:
            extra += f" /Encoding << /Type /Encoding /Differences [{font.differences}] >>"
        if font.to_unicode:
            extra += f" /ToUnicode {stream(_cmap(font.to_unicode))} 0 R"
        ref = add(f"<< /Type /Font /Subtype /Type1 /BaseFont /{font.base}{extra} >>")
        font_refs.append(f"/{name} {ref} 0 R")
    resources = f"<< /Font << {' '.join(font_refs)} >> >>"
    contents = [stream("\n".join(ops)) for ops in pages]
    pages_id = add("")
    kids = [
        add(f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {size[0]} {size[1]}] "
            f"/Resources {resources} /Contents {c} 0 R >>")
        for c in contents
    ]
    refs = " ".join(f"{k} 0 R" for k in kids)
    objects[pages_id - 1] = f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>"
    catalog = add(f"<< /Type /Catalog /Pages {pages_id} 0 R >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, source in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{source}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
