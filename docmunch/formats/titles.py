"""Title properties: the title a file declares in its metadata, unless it is a placeholder.

DOCX core properties (``dc:title``) and the PDF Info dictionary (``/Title``) often hold
something no author chose: an empty or ``Untitled`` field, the name of the file the document
was made from (Word's ``Microsoft Word - report.doc``, ``scan.pdf``), or a template field
that was never filled in (``{{title}}``, ``[Title]``, ``<title>``, ``${title}``). Those name
nothing; :func:`title_property` drops them, so a preamble falls back to the file name.
"""

from __future__ import annotations

import re

__all__ = ["PLACEHOLDER_TITLES", "title_property"]

PLACEHOLDER_TITLES = frozenset({"untitled", "title", "no title", "document", "untitled document"})
"""Whole titles (case-folded) that editors and templates put in an empty title field."""

_FILE_SUFFIXES = (".doc", ".docx", ".odt", ".rtf", ".pdf", ".tex", ".dvi", ".indd")
"""A title ending like a file name is the name of the file the document was made from."""

_TEMPLATE_FIELD = re.compile(r"^(?:\{\{.*\}\}|\{%.*%\}|\$\{.*\}|\[.*\]|<.*>|«.*»)$", re.DOTALL)
"""A title that is one unfilled template field (Mustache/Jinja, ``${…}``, ``[…]``, ``<…>``,
Word merge-field ``«…»``)."""


def title_property(value: str | None) -> str | None:
    """``value`` with whitespace collapsed, or ``None`` when it is empty or a placeholder:
    a :data:`PLACEHOLDER_TITLES` entry, ``Microsoft Word - …``, a file name, or one template
    field (``{{title}}``)."""
    title = " ".join((value or "").split())
    lowered = title.casefold()
    if not title or lowered in PLACEHOLDER_TITLES or lowered.startswith("microsoft word - "):
        return None
    if lowered.endswith(_FILE_SUFFIXES) or _TEMPLATE_FIELD.match(title):
        return None
    return title
