"""Markdown → section tree with byte offsets, slugs, ids and hashes (design brief §3).

Public surface::

    split_markdown(data, *, repo, doc_path) -> ParsedDocument
    split_text(data, *, repo, doc_path) -> ParsedDocument
    split_at_headings(data, headings, *, repo, doc_path, title=None) -> ParsedDocument
    slugify(text) -> str
    section_id(repo, doc_path, slug_path, level) -> str
    Section, ParsedDocument, HeadingSpec

The rules (lead-in, preamble, nested headings, slugs, summaries) are documented in
:mod:`docmunch.section.split` and :mod:`docmunch.section.slug`.
"""

from docmunch.section.model import HeadingSpec, ParsedDocument, Section
from docmunch.section.slug import slugify
from docmunch.section.split import section_id, split_at_headings, split_markdown, split_text

__all__ = [
    "HeadingSpec",
    "ParsedDocument",
    "Section",
    "section_id",
    "slugify",
    "split_at_headings",
    "split_markdown",
    "split_text",
]
