"""HTML → CommonMark + GFM-table Markdown.

Public surface: :func:`html_to_markdown`. The converter is written for docmunch (no third-party
converter met every rule: exact code text, ATX headings inside links, GFM tables with a valid
fallback, recursion-free walking); see the package modules for each concern's decisions.
"""

from docmunch.convert.render import html_to_markdown

__all__ = ["html_to_markdown"]
