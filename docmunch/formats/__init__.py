"""Source formats → :class:`Rendition` (Markdown bytes + blocks with source positions).

:func:`render_file` picks a renderer by file suffix. Markdown and plain text are kept as they
are (offsets then point at the user's own bytes); every other format is converted. A text file
in UTF-16 or UTF-32 with a byte order mark is first transcoded to UTF-8
(:mod:`docmunch.formats.transcode`); its offsets then point at that UTF-8 form. Renderers are
imported lazily so that a missing optional piece never breaks Markdown indexing.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from docmunch.errors import ConvertError
from docmunch.formats.base import Block, Rendition
from docmunch.formats.transcode import transcode_to_utf8

__all__ = ["TEXT_SUFFIXES", "Block", "Rendition", "render_file", "renderer_bytes", "supported_suffixes"]

Renderer = Callable[..., Rendition]
"""``renderer(path: Path, data: bytes, *, password: str | None) -> Rendition``."""

# suffix -> "module:function"; each renderer takes (path, data, *, password) keyword-only extras.
_RENDERERS: dict[str, str] = {
    ".md": "docmunch.formats:render_markdown",
    ".markdown": "docmunch.formats:render_markdown",
    ".txt": "docmunch.formats:render_text",
    ".docx": "docmunch.formats.docx:render_docx",
    ".pdf": "docmunch.formats.pdf:render_pdf",
    ".html": "docmunch.formats.html:render_html_file",
    ".htm": "docmunch.formats.html:render_html_file",
    ".rst": "docmunch.formats.rst:render_rst",
    ".ipynb": "docmunch.formats.ipynb:render_ipynb",
    ".mdx": "docmunch.formats.mdx:render_mdx",
}

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".mdx", ".ipynb"})
"""Suffixes of text formats: a NUL byte marks such a file as binary
(:func:`docmunch.index.walk.looks_binary`), unless it starts with a UTF-16/32 byte order mark;
such a file is transcoded to UTF-8 before its renderer reads it (:func:`render_file`)."""

_WHATWG_SUFFIXES = frozenset({".html", ".htm"})
"""Text formats whose decoder sniffs the charset (WHATWG: BOM, ``<meta>``, detector): their
UTF-8 form is handed over with a UTF-8 BOM, which settles the charset as the original BOM did."""

UTF8_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark."""


def supported_suffixes() -> frozenset[str]:
    """Lower-case file suffixes (with the dot) for which a renderer module is installed."""
    found = set()
    for suffix, target in _RENDERERS.items():
        module = target.split(":", 1)[0]
        if module == __name__ or importlib.util.find_spec(module) is not None:
            found.add(suffix)
    return frozenset(found)


def render_markdown(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Markdown is its own rendition: the bytes are stored and sectioned unchanged."""
    return Rendition(markdown=data, source_kind="markdown", source_ref=str(path))


def render_text(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Plain text is one level-0 section over the unchanged bytes."""
    return Rendition(markdown=data, source_kind="text", source_ref=str(path))


def render_file(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Render one file's bytes by its suffix.

    Args:
        path: the file's path (its suffix picks the renderer; also the rendition's source_ref).
        data: the file's bytes as read from disk.
        password: for encrypted PDF (encrypted DOCX is refused whatever the password).

    Returns:
        The :class:`Rendition`. For a text file (:data:`TEXT_SUFFIXES`) in UTF-16 or UTF-32 with
        a byte order mark, that of its UTF-8 form, with ``meta["source_encoding"]`` (the codec,
        e.g. ``"utf-16-le"``) and ``meta["source_bytes"]`` (the file's size in bytes).

    Raises:
        ConvertError: unsupported suffix, a UTF-16/32 file that does not decode, or the
            renderer failed (its own subclass, e.g. ``NoTextLayer``, ``PasswordRequired``).
    """
    suffix = path.suffix.lower()
    target = _RENDERERS.get(suffix)
    if target is None:
        raise ConvertError(f"unsupported file type {suffix or '(none)'!r}", path=str(path))
    readable, codec = renderer_bytes(path, data)
    rendition = _render(path, readable, suffix, target, password)
    if codec is None:
        return rendition
    meta = {**rendition.meta, "source_encoding": codec, "source_bytes": len(data)}
    return dataclasses.replace(rendition, meta=meta)


def renderer_bytes(path: Path, data: bytes) -> tuple[bytes, str | None]:
    """The bytes the renderer of ``path``'s suffix reads, and the codec they were transcoded from.

    ``(data, None)`` unless ``path`` is a text format (:data:`TEXT_SUFFIXES`) whose ``data``
    starts with a UTF-16/32 byte order mark: then its UTF-8 form (preceded by a UTF-8 BOM for
    HTML, :data:`_WHATWG_SUFFIXES`) and the codec, e.g. ``"utf-16-le"``.

    Raises:
        ConvertError: the bytes after the BOM do not decode in its encoding.
    """
    suffix = path.suffix.lower()
    wide = transcode_to_utf8(data, path=str(path)) if suffix in TEXT_SUFFIXES else None
    if wide is None:
        return data, None
    utf8, codec = wide
    return (UTF8_BOM + utf8 if suffix in _WHATWG_SUFFIXES else utf8), codec


def _render(path: Path, data: bytes, suffix: str, target: str, password: str | None) -> Rendition:
    """Import the renderer ``target`` (``"module:function"``) and run it on ``data``."""
    module_name, func_name = target.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConvertError(f"{suffix} files are not supported yet", path=str(path)) from None
    renderer: Renderer = getattr(module, func_name)
    return renderer(path, data, password=password)
