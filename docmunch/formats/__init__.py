"""Source formats → :class:`Rendition` (Markdown bytes + blocks with source positions).

:func:`render_file` picks a renderer by file suffix. Markdown and plain text are kept as they
are (offsets then point at the user's own bytes); every other format is converted. Renderers
are imported lazily so that a missing optional piece never breaks Markdown indexing.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from docmunch.errors import ConvertError
from docmunch.formats.base import Block, Rendition

__all__ = ["Block", "Rendition", "render_file", "supported_suffixes"]

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
        password: for encrypted PDF/DOCX.

    Returns:
        The :class:`Rendition`.

    Raises:
        ConvertError: unsupported suffix, or the renderer failed (its own subclass, e.g.
            ``NoTextLayer``, ``PasswordRequired``).
    """
    suffix = path.suffix.lower()
    target = _RENDERERS.get(suffix)
    if target is None:
        raise ConvertError(f"unsupported file type {suffix or '(none)'!r}", path=str(path))
    module_name, func_name = target.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConvertError(f"{suffix} files are not supported yet", path=str(path)) from None
    renderer: Renderer = getattr(module, func_name)
    return renderer(path, data, password=password)
