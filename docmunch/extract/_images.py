"""Images and links: lazy-loaded images, ``<noscript>`` copies, absolute URLs.

Rules after Mozilla Readability.js 0.6 (Apache-2.0): ``_unwrapNoscriptImages`` (a
``<noscript>`` holding one image replaces the placeholder image before it, merging the
placeholder's attributes so nothing is shown twice), ``_fixLazyImages`` (``data-src``,
``data-srcset`` and any attribute whose value looks like an image URL become ``src`` /
``srcset``; tiny base64 placeholders are dropped), ``_fixRelativeUris`` (``href``, ``src``,
``poster``, ``srcset`` resolved against ``<base href>`` and the page URL; ``javascript:``
links become their text — and so do ``vbscript:`` and non-image ``data:`` links, however their
scheme is spelled, :func:`script_url`).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml.html import HtmlElement

from docmunch.extract import _dom as dom

__all__ = ["absolutize", "base_url", "fix_lazy_images", "script_url", "unwrap_noscript_images"]

_IMAGE_EXT = re.compile(r"\.(jpg|jpeg|png|webp)", re.IGNORECASE)
_SRCSET_VALUE = re.compile(r"\.(jpg|jpeg|png|webp)\s+\d", re.IGNORECASE)
_SRC_VALUE = re.compile(r"^\s*\S+\.(jpg|jpeg|png|webp)\S*\s*$", re.IGNORECASE)
_B64 = re.compile(r"^data:\s*([^\s;,]+)\s*;\s*base64\s*,", re.IGNORECASE)
_SRCSET_URL = re.compile(r"(\S+)(\s+[\d.]+[xw])?(\s*(?:,|$))")
_LAZY_SRC_ATTRS = ("data-src", "data-original", "data-lazy-src", "data-srcset", "data-lazy-srcset")


def _is_single_image(node: HtmlElement) -> bool:
    while node is not None:
        if node.tag == "img":
            return True
        if len(node) != 1 or dom.text_of(node).strip():
            return False
        node = node[0]
    return False


def unwrap_noscript_images(root: HtmlElement) -> None:
    """Drop attribute-less placeholder ``<img>``s; let a ``<noscript>`` image replace its twin."""
    for img in list(root.iter("img")):
        keep = any(
            name in ("src", "srcset", "data-src", "data-srcset") or _IMAGE_EXT.search(value)
            for name, value in img.attrib.items()
        )
        if not keep:
            dom.remove(img)
    for noscript in list(root.iter("noscript")):
        if not _is_single_image(noscript):
            continue
        prev = noscript.getprevious()
        if prev is None or not _is_single_image(prev):
            continue
        prev_img = prev if prev.tag == "img" else next(prev.iter("img"))
        new_img = next(noscript.iter("img"))
        for name, value in prev_img.attrib.items():
            if not value:
                continue
            if name in ("src", "srcset") or _IMAGE_EXT.search(value):
                if new_img.get(name) == value:
                    continue
                new_img.set(f"data-old-{name}" if name in new_img.attrib else name, value)
        replacement = noscript[0]
        dom.remove(replacement)
        dom.replace(prev, replacement)


def fix_lazy_images(root: HtmlElement) -> None:
    """Turn lazy-loading attributes into ``src``/``srcset`` on img/picture/figure."""
    for el in list(root.iter("img", "picture", "figure")):
        src = el.get("src")
        if src and (match := _B64.match(src)):
            if match.group(1) == "image/svg+xml":
                continue
            removable = any(name != "src" and _IMAGE_EXT.search(v) for name, v in el.attrib.items())
            if removable and len(src) - match.end() < 133:
                del el.attrib["src"]
                src = None
        srcset = el.get("srcset")
        if (src or (srcset and srcset != "null")) and "lazy" not in (el.get("class") or "").lower():
            continue
        for name, value in list(el.attrib.items()):
            if name in ("src", "srcset", "alt"):
                continue
            copy_to = "srcset" if _SRCSET_VALUE.search(value) else "src" if _SRC_VALUE.match(value) else None
            if (
                copy_to is None
                and name in _LAZY_SRC_ATTRS
                and value.strip()
                and not value.startswith("data:")
            ):
                copy_to = "srcset" if "srcset" in name else "src"
            if copy_to is None:
                continue
            if el.tag in ("img", "picture"):
                el.set(copy_to, value)
            elif el.tag == "figure" and next(el.iter("img", "picture"), None) is None:
                img = el.makeelement("img", {copy_to: value})
                el.append(img)


def base_url(root: HtmlElement, url: str | None) -> str | None:
    """The document base URL: first ``<base href>`` resolved against ``url`` (or ``url``)."""
    for base in root.iter("base"):
        href = base.get("href")
        if href is not None:
            href = href.strip()
            return (
                urljoin(url, href)
                if url
                else (href if re.match(r"^[a-z][a-z0-9+.\-]*:", href, re.I) else url)
            )
    return url


def join_url(base: str, uri: str) -> str:
    """``uri`` resolved against ``base`` (``urllib.parse.urljoin``), or ``uri`` as written.

    A root-relative (``/tag/x``) or scheme-relative (``//host/x``) URI in a local file
    (``file:`` base) is kept as written: the file has no origin those were meant against, and
    ``file:///tag/x`` names a file that does not exist. An unparsable URI is kept as well.
    """
    uri = uri.strip()
    if uri.startswith("/") and base[:5].lower() == "file:":
        return uri
    try:
        return urljoin(base, uri)
    except ValueError:
        return uri


def _absolute(uri: str, base: str, same_document: bool) -> str:
    uri = uri.strip()
    if same_document and uri.startswith("#"):
        return uri
    return join_url(base, uri)


_URL_EDGES = "".join(chr(c) for c in range(0x21))
"""C0 controls and space, which the URL parser strips from both ends of a URL (WHATWG URL)."""
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
"""Removed from anywhere in a URL by the URL parser (``java&#9;script:`` is ``javascript:``)."""
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def script_url(value: str) -> bool:
    """True when ``value`` is a URL a browser runs as script or as a document of its own:
    ``javascript:``, ``vbscript:``, or ``data:`` of any type but an image — read as the WHATWG URL
    parser reads it (C0 controls and spaces stripped from its ends, tabs and newlines removed
    anywhere, the scheme case-insensitive), so ``" JaVa&#9;Script:alert(1)"`` is one.
    """
    cleaned = _TAB_OR_NEWLINE.sub("", value.strip(_URL_EDGES))
    found = _SCHEME.match(cleaned)
    if found is None:
        return False
    scheme = found.group(1).lower()
    if scheme == "data":
        return not cleaned[5:].lstrip().lower().startswith("image/")
    return scheme in ("javascript", "vbscript")


def absolutize(root: HtmlElement, *, base: str | None, url: str | None) -> None:
    """Resolve every link/media URL under ``root`` against ``base``; unwrap ``javascript:`` links."""
    resolved: dict[str, str] = {}  # pages repeat their links; urljoin is slow Python
    same_document = base == url
    for link in list(root.iter("a")):
        href = link.get("href")
        if not href:
            continue
        if script_url(href):
            link.tag = "span"
            link.attrib.clear()
            continue
        if base:
            absolute = resolved.get(href)
            if absolute is None:
                absolute = resolved[href] = _absolute(href, base, same_document)
            link.set("href", absolute)
    if not base:
        return
    media_urls: dict[str, str] = {}
    for media in root.iter("img", "picture", "figure", "video", "audio", "source"):
        for name in ("src", "poster"):
            value = media.get(name)
            if value:
                absolute = media_urls.get(value)
                if absolute is None:
                    absolute = media_urls[value] = _absolute(value, base, False)
                media.set(name, absolute)
        srcset = media.get("srcset")
        if srcset:
            media.set(
                "srcset",
                _SRCSET_URL.sub(
                    lambda m: _absolute(m.group(1), base, False) + (m.group(2) or "") + m.group(3), srcset
                ),
            )
