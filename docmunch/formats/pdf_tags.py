"""Tagged-PDF headings: structure elements ``H``/``H1``–``H6``/``Title`` (PDF 32000-1:2008
§14.8.4.3.2, standard structure types for headings) mapped to the marked-content ids (MCIDs,
§14.7.4) of the page content they enclose.

The walk over a page's structure tree is bounded (depth 64, 20 000 elements) so that a
malformed or cyclic tree cannot hang the renderer.
"""

from __future__ import annotations

import ctypes
import re

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

__all__ = ["heading_mcids"]

_HEADING = re.compile(r"^H([1-6])$")
_MAX_DEPTH = 64
_MAX_ELEMENTS = 20_000


def _type(element: object) -> str:
    size = pdfium_c.FPDF_StructElement_GetType(element, None, 0)
    if size <= 2:
        return ""
    buf = ctypes.create_string_buffer(size)
    pdfium_c.FPDF_StructElement_GetType(element, buf, size)
    return buf.raw[: size - 2].decode("utf-16-le", "replace")


def _mcids(element: object, out: set[int], budget: list[int], depth: int) -> None:
    """Every MCID under ``element`` (its own and its descendants')."""
    for i in range(pdfium_c.FPDF_StructElement_GetMarkedContentIdCount(element)):
        mcid = pdfium_c.FPDF_StructElement_GetMarkedContentIdAtIndex(element, i)
        if mcid >= 0:
            out.add(mcid)
    if depth >= _MAX_DEPTH:
        return
    for i in range(pdfium_c.FPDF_StructElement_CountChildren(element)):
        budget[0] -= 1
        if budget[0] <= 0:
            return
        child = pdfium_c.FPDF_StructElement_GetChildAtIndex(element, i)
        if child:
            _mcids(child, out, budget, depth + 1)


def heading_mcids(page: pdfium.PdfPage) -> dict[int, int]:
    """MCID → heading level (1–6) for one page; empty for untagged pages.

    ``H1``–``H6`` give their digit, ``Title`` and the unnumbered ``H`` give level 1.
    """
    tree = pdfium_c.FPDF_StructTree_GetForPage(page)
    if not tree:
        return {}
    out: dict[int, int] = {}
    budget = [_MAX_ELEMENTS]
    try:
        stack = [
            (pdfium_c.FPDF_StructTree_GetChildAtIndex(tree, i), 0)
            for i in range(pdfium_c.FPDF_StructTree_CountChildren(tree))
        ]
        while stack and budget[0] > 0:
            element, depth = stack.pop()
            budget[0] -= 1
            if not element:
                continue
            kind = _type(element)
            match = _HEADING.match(kind)
            if match or kind in ("H", "Title"):
                level = int(match.group(1)) if match else 1
                found: set[int] = set()
                _mcids(element, found, budget, depth)
                for mcid in found:
                    out[mcid] = min(level, out.get(mcid, 6))
                continue
            if depth < _MAX_DEPTH:
                for i in range(pdfium_c.FPDF_StructElement_CountChildren(element)):
                    stack.append((pdfium_c.FPDF_StructElement_GetChildAtIndex(element, i), depth + 1))
    finally:
        pdfium_c.FPDF_StructTree_Close(tree)
    return out
