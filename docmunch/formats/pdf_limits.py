"""Resource limits of the PDF renderer: pages, page objects and characters (issue 12).

What expands in a PDF: a Flate-compressed content stream packs repeated drawing operators
about 1,000:1. Measured here on pdfium (pypdfium2 5): a 20 KB file whose one page shows
5 million glyphs took 89 MB to load the page, 557 MB for pdfium's text page and then about
1.7 GB and 140 s for docmunch's per-character layout objects (2.3 GB peak, 152 s in all);
a 51 KB page of 2 million tiny paths took 676 MB inside pdfium's page loader alone. (pdfium
itself caps one text object at 32,767 characters.)

The checks, in the order the renderer meets them (each raises
:class:`~docmunch.errors.LimitExceeded`, naming the page):

* :data:`PDF_MAX_PAGES` — before any page is loaded;
* :data:`PDF_MAX_PAGE_OBJECTS` — after a page is loaded, before its text page is built;
* :data:`PDF_MAX_PAGE_CHARS` and :data:`PDF_MAX_CHARS` — from the text page's character
  count, before any per-character Python object exists (the layout code holds one page's
  characters at a time and keeps only lines).

What they cannot bound: pdfium parses a page's whole content stream when the page is
loaded, and builds the text page before its characters can be counted, so that memory
(about 340 bytes per path object, 110 bytes per glyph) is spent before a check can refuse
the page. That is why PDFs are rendered in a separate worker process
(:mod:`docmunch.formats.isolate`) whose address space is capped at
:data:`PDF_MAX_MEMORY_BYTES` and whose run time at :data:`PDF_MAX_SECONDS`: whatever pdfium
does, the indexing process does not grow. See ``docs/decisions.md`` ("Limits").
"""

from __future__ import annotations

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docmunch.limits import Limit

__all__ = [
    "PDF_MAX_CHARS",
    "PDF_MAX_MEMORY_BYTES",
    "PDF_MAX_PAGES",
    "PDF_MAX_PAGE_CHARS",
    "PDF_MAX_PAGE_OBJECTS",
    "PDF_MAX_SECONDS",
    "PageBudget",
]

PDF_MAX_PAGES = Limit("PDF_MAX_PAGES", 10_000, "pages")
"""Most pages a PDF may have."""
PDF_MAX_PAGE_OBJECTS = Limit("PDF_MAX_PAGE_OBJECTS", 200_000, "page objects")
"""Most page objects (text runs, paths, images) on one page; a dense text page has a few
thousand, a detailed map or chart some tens of thousands."""
PDF_MAX_PAGE_CHARS = Limit("PDF_MAX_PAGE_CHARS", 100_000, "characters")
"""Most characters on one page; a dense page of small print has about 6,000."""
PDF_MAX_CHARS = Limit("PDF_MAX_CHARS", 5_000_000, "characters")
"""Most characters in the whole document (some 1,500 dense pages)."""
PDF_MAX_MEMORY_BYTES = Limit("PDF_MAX_MEMORY_BYTES", 512 * 2**20, "bytes")
"""Address space (``RLIMIT_AS``) of the PDF worker process: 512 MiB. The worker starts at
42 MB of address space; rendering any of the 14 office fixtures peaks below 50 MB."""
PDF_MAX_SECONDS = Limit("PDF_MAX_SECONDS", 300, "seconds")
"""Wall-clock time one PDF may take in the worker."""


class PageBudget:
    """Counts one document's pages and characters against the PDF limits.

    Args:
        pages: the document's page count.
        source: the file's path (for the error).

    Raises:
        LimitExceeded: more than :data:`PDF_MAX_PAGES` pages.
    """

    def __init__(self, pages: int, source: str) -> None:
        self.source = source
        if pages > PDF_MAX_PAGES.value():
            raise PDF_MAX_PAGES.exceeded(f"PDF has {pages} pages", path=source)
        self.max_objects = PDF_MAX_PAGE_OBJECTS.value()
        self.max_page_chars = PDF_MAX_PAGE_CHARS.value()
        self.max_chars = PDF_MAX_CHARS.value()
        self.chars = 0

    def check_page(self, page: pdfium.PdfPage, index: int) -> None:
        """Before the text page of page ``index`` (0-based) is built.

        Raises:
            LimitExceeded: the page has more than :data:`PDF_MAX_PAGE_OBJECTS` objects.
        """
        objects = int(pdfium_c.FPDFPage_CountObjects(page.raw))
        if objects > self.max_objects:
            raise PDF_MAX_PAGE_OBJECTS.exceeded(
                f"PDF page {index + 1} has {objects} page objects", path=self.source
            )

    def check_text(self, textpage: pdfium.PdfTextPage, index: int) -> None:
        """Before the characters of page ``index`` are read.

        Raises:
            LimitExceeded: over :data:`PDF_MAX_PAGE_CHARS` on this page, or over
                :data:`PDF_MAX_CHARS` in the document so far.
        """
        count = textpage.count_chars()
        if count > self.max_page_chars:
            raise PDF_MAX_PAGE_CHARS.exceeded(
                f"PDF page {index + 1} has {count} characters", path=self.source
            )
        self.chars += count
        if self.chars > self.max_chars:
            raise PDF_MAX_CHARS.exceeded(
                f"PDF has more than {self.chars} characters by page {index + 1}", path=self.source
            )
