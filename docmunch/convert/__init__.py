"""HTML → CommonMark + GFM-table Markdown.

Public surface: :func:`html_to_markdown`. Written for docmunch: markdownify and html2text were
studied and fail several rules (exact code text with tabs and languages, ATX headings nested in
links, GFM tables with a valid fallback, escaping verified by round trip, recursion-free walking).

One module per concern:

* :mod:`.render` — parsing string input (the extractor's WHATWG parser), the ``iterwalk`` walk,
  element dispatch;
* :mod:`.state` — block / inline frame stacks, whitespace collapsing, paragraph finishing;
* :mod:`.blocks` — headings, block quotes, admonitions, rules, definition lists;
* :mod:`.inline` — emphasis, links, images, breaks, inline code, ``<sup>``/``<sub>``/``<kbd>``;
* :mod:`.code` — fenced code blocks and their language; :mod:`.lists`; :mod:`.tables`;
  :mod:`.math`; :mod:`.escaping`; :mod:`.emphasis` (delimiter-run flanking checks).

Main decisions (details in each module):

* admonitions → a block quote opening with the bold title (``> **Note**``), not GitHub's
  ``> [!NOTE]``, which plain CommonMark shows as literal text;
* a table that cannot be a GFM table (code block, list or table in a cell) → a raw HTML block
  with only structural tags and escaped text, no blank line inside;
* list items and block quotes nest at most :data:`.state.MAX_NESTING` (32) levels deep (deeper
  ones continue at that level), which bounds output size; any other nesting depth is free.
"""

from docmunch.convert.render import html_to_markdown

__all__ = ["html_to_markdown"]
