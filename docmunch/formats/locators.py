"""Section locators for DOCX and PDF renditions, built from the blocks a section overlaps.

DOCX (blocks from :mod:`docmunch.formats.docx`)::

    {"source": "/abs/file.docx",
     "paraid_start": "1A2B3C4D" | null, "paraid_end": ... | null,   # w14:paraId, word/document.xml
     "ordinal_start": 12, "ordinal_end": 19,                       # //w:p[not(ancestor::mc:Fallback)]
     "text_fingerprint": "16 hex",                                  # sha256 of the joined block texts
     "blocks": [<block positions>, ...]}

PDF (blocks from :mod:`docmunch.formats.pdf`; points, origin bottom-left, y up)::

    {"source": "/abs/file.pdf",
     "pages": [{"page": 3, "page_label": "iii" | null, "bbox": [x0, y0, x1, y1],
                "furniture": [{"role": "header", "text": "...", "bbox": [...]}, ...]},  # if any
               ...],
     "blocks": [<block positions>, ...]}
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from docmunch.formats.blocks import Block
from docmunch.formats.markdown_writer import normalize_ws

__all__ = ["docx_locator", "fingerprint", "pdf_locator"]

_DOC_PART = "word/document.xml"


def fingerprint(text: str) -> str:
    """16 hex digits of SHA-256 over ``normalize_ws(text)`` encoded as UTF-8 (the DOCX
    ``text_fingerprint``: renderer block positions and section locators use the same one)."""
    return hashlib.sha256(normalize_ws(text).encode("utf-8")).hexdigest()[:16]


def docx_locator(blocks: Sequence[Block], source: str | None) -> dict[str, Any]:
    """Locator for DOCX ``blocks`` (already filtered to one section, in document order).

    ``paraid_*``/``ordinal_*`` come from the blocks of ``word/document.xml`` (footnote blocks
    keep their own part in ``blocks``); ``paraid_start`` is the first block's first paraId and
    ``paraid_end`` the last block's last (``null`` where the paragraph has none).
    ``text_fingerprint`` = 16 hex of SHA-256 over the blocks' texts joined by one space.
    """
    body = [
        pos
        for block in blocks
        for pos in block.positions
        if pos.get("type") == "paraid" and pos.get("part") == _DOC_PART
    ]
    texts = [block.text for block in blocks if any(p.get("part") == _DOC_PART for p in block.positions)]
    return {
        "source": source,
        "paraid_start": body[0]["range"][0] if body else None,
        "paraid_end": body[-1]["range"][1] if body else None,
        "ordinal_start": body[0]["ordinals"][0] if body else None,
        "ordinal_end": body[-1]["ordinals"][1] if body else None,
        "text_fingerprint": fingerprint(" ".join(texts)) if texts else None,
        "blocks": [list(block.positions) for block in blocks],
    }


def pdf_locator(
    blocks: Sequence[Block], source: str | None, *, furniture: Sequence[Block] = ()
) -> dict[str, Any]:
    """Locator for PDF ``blocks``: one merged bbox per page (in first-seen page order).

    ``furniture`` are the page-furniture blocks (running headers and footers, page numbers,
    watermarks: text kept out of the rendition, see :mod:`docmunch.formats.pdf_furniture`) of
    the pages the section touches; each page entry lists its own as ``"furniture": [{"role",
    "text", "bbox"}, ...]`` so a citation can still name the printed page number or header.
    """
    merged: dict[int, dict[str, Any]] = {}
    for block in blocks:
        for pos in block.positions:
            if pos.get("type") != "bbox":
                continue
            entry = merged.get(pos["page"])
            if entry is None:
                merged[pos["page"]] = {"page": pos["page"], "page_label": pos.get("page_label"),
                                       "bbox": list(pos["bbox"])}
            else:
                box = entry["bbox"]
                x0, y0, x1, y1 = pos["bbox"]
                entry["bbox"] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
    for block in furniture:
        for pos in block.positions:
            entry = merged.get(pos.get("page", -1))
            if entry is not None:
                entry.setdefault("furniture", []).append(
                    {"role": pos.get("role"), "text": block.text, "bbox": list(pos["bbox"])}
                )
    return {
        "source": source,
        "pages": list(merged.values()),
        "blocks": [pos for block in blocks for pos in block.positions],
    }
