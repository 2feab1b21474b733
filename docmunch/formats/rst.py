"""reStructuredText (``.rst``) → headings on the user's own bytes.

docutils parses the file (its reference parser; Sphinx-only roles and directives are
reported and ignored, their text kept); every ``section`` node gives a title, its nesting
depth (the level) and its source line. reStructuredText titles are one text line with an
underline and an optional overline (docutils "Sections" spec), and docutils reports a
title's line as the underline's 1-based line, so the title text is on 0-based line
``line - 2`` and the section starts one line earlier when an overline of the same
adornment character is there.

Unlike converted formats, an ``.rst`` file is stored and sectioned **as it is**: the
rendition's bytes are the user's file and :attr:`Rendition.headings` tells the sectioner
where sections start, so ``sha256(file[byte_start:byte_end]) == content_hash`` holds on the
original, as for Markdown. Directive bodies (code, notes) stay in the byte ranges as text.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import lxml.html
from docutils import nodes
from docutils.core import publish_doctree, publish_parts
from docutils.utils import SystemMessage

from docmunch.errors import ConvertError
from docmunch.extract import drop_active_content
from docmunch.formats.base import Rendition
from docmunch.section.model import HeadingSpec

__all__ = ["render_rst", "rst_html"]

# docutils "Sections": adornment characters are any non-alphanumeric printable 7-bit ASCII.
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_SETTINGS = {
    "report_level": 5,  # silence: unknown Sphinx roles/directives are fine here
    "halt_level": 5,
    "file_insertion_enabled": False,  # never read other files (.. include::)
    "raw_enabled": False,
    "doctitle_xform": False,  # keep the top title as a level-1 section
    "sectsubtitle_xform": False,
    "warning_stream": None,
}


def _first_paragraph(section: nodes.section) -> str:
    for child in section.children[1:]:
        if isinstance(child, nodes.section):
            break
        if isinstance(child, nodes.paragraph):
            text = " ".join(child.astext().split())
            if text:
                return text
    return ""


def rst_html(text: str, *, path: str | None = None) -> str:
    """The body of ``text`` rendered as HTML by docutils' ``html5`` writer, with the settings the
    headings are read with (no ``raw`` directive, no file insertion; unknown Sphinx roles and
    directives left out silently), titles from ``<h1>``: ``docmunch extract --format html``.

    Raises:
        ConvertError: docutils could not parse or write it.
    """
    settings = dict(_SETTINGS, warning_stream=io.StringIO(), initial_header_level=1)
    try:
        parts = publish_parts(text, source_path=path, writer="html5", settings_overrides=settings)
    except (SystemMessage, ValueError, AttributeError, TypeError) as exc:
        raise ConvertError(f"reStructuredText could not be parsed: {exc}", path=path) from None
    return _without_script_urls(str(parts["body"]))


def _without_script_urls(body: str) -> str:
    """``body`` with what would run script removed (:func:`docmunch.extract.drop_active_content`,
    the extractor's own last step: a ``javascript:`` link becomes its text, an image loses its
    source). docutils writes any target as given (`` `x <javascript:alert(1)>`_ ``, a named
    target, an ``image`` directive); the Markdown renditions' HTML has markdown-it-py's
    ``validateLink`` for that. An untouched body is returned as docutils wrote it."""
    holder = lxml.html.fragment_fromstring(body, create_parent="div")
    if not drop_active_content(holder):
        return body
    return (holder.text or "") + "".join(lxml.html.tostring(child, encoding="unicode") for child in holder)


def render_rst(path: Path, data: bytes, *, password: str | None = None) -> Rendition:
    """Find the section titles of a reStructuredText file.

    Args:
        path: the file's path (``source_ref``).
        data: the file's bytes (UTF-8, BOM allowed).
        password: unused.

    Returns:
        A :class:`Rendition` whose ``markdown`` is ``data`` unchanged, ``source_kind="rst"``
        and ``headings`` in document order (0-based start lines, levels 1–6 — deeper
        sections are clamped to 6), with a level-0 spec first when text precedes the first
        title.

    Raises:
        ConvertError: not UTF-8, or docutils could not parse the file.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from None
    settings = dict(_SETTINGS, warning_stream=io.StringIO())
    try:
        doctree = publish_doctree(text, source_path=str(path), settings_overrides=settings)
    except (SystemMessage, ValueError, AttributeError, TypeError) as exc:
        raise ConvertError(f"reStructuredText could not be parsed: {exc}", path=str(path)) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    headings: list[HeadingSpec] = []
    for section in doctree.findall(nodes.section):
        title = section.children[0] if section.children else None
        if not isinstance(title, nodes.title) or title.line is None:
            continue
        depth = 0
        parent: nodes.Node | None = section
        while parent is not None:
            depth += isinstance(parent, nodes.section)
            parent = parent.parent
        text_line = title.line - 2
        if not 0 <= text_line < len(lines):
            continue
        start = text_line
        if text_line > 0 and _ADORNMENT.match(lines[text_line - 1]) and lines[text_line + 1:text_line + 2]:
            under = _ADORNMENT.match(lines[text_line + 1])
            over = _ADORNMENT.match(lines[text_line - 1])
            if under and over and under.group(1) == over.group(1):
                start = text_line - 1
        ids = section.get("ids") or []
        headings.append(HeadingSpec(
            line=start, level=min(depth, 6), title=" ".join(title.astext().split()),
            anchor=ids[0] if ids else None, summary=_first_paragraph(section)[:200],
        ))
    first = headings[0].line if headings else len(lines)
    lead = next((n for n, line in enumerate(lines[:first]) if line.strip()), None)
    if lead is not None:  # text before the first title: a level-0 preamble
        headings.insert(0, HeadingSpec(line=lead, level=0, title=""))
    title_text = next((h.title for h in headings if h.level == 1), None)
    return Rendition(markdown=data, source_kind="rst", title=title_text, source_ref=str(path),
                     headings=tuple(headings))
