"""Opening a DOCX package with bounded memory: zip guard, OPC relationships, streamed body.

Why not python-docx here (issue 12): it parses every XML part of the package into one lxml
tree up front, so memory follows the *expanded* XML, not the file. Deflate packs repeated
markup about 1,000:1 — a 100 KB ``.docx`` held 1.36 GB and a 393 KB one 5.2 GB, and 3
million empty paragraphs in a 27 KB file took 2.4 GB and 92 s — and the 256 MiB expansion
cap did not help, because 256 MiB of markup is some 10 million elements at ~200 bytes each.

What this module does instead (OPC = ECMA-376 Part 2, Open Packaging Conventions):

* **Zip guard** — before anything is decompressed, the central directory is checked: at most
  :data:`DOCX_MAX_MEMBERS` members declaring at most :data:`DOCX_MAX_EXPANDED_BYTES` in all.
  Python's ``zipfile`` never inflates a member past its declared size (and checks its
  CRC-32), so the declared sizes bound what is read.
* **Relationships** — ``_rels/.rels`` names the main document part (``officeDocument``), its
  own ``.rels`` the styles, numbering, footnotes and endnotes parts; ``[Content_Types].xml``
  must say the main part is WordprocessingML. Only the parts named there are ever read.
* **Bounded trees** — the small parts (styles, numbering, notes, core properties) are parsed
  into trees by an incremental parser that stops once the trees held at once pass
  :data:`DOCX_MAX_TREE_ELEMENTS` elements or :data:`DOCX_MAX_TREE_BYTES` bytes of XML.
* **Streamed body** — ``word/document.xml`` is read with ``lxml.etree.iterparse``: each
  top-level child of ``w:body`` (a paragraph, a table, a content control) is handed to the
  caller complete, then removed from the tree, so only one block is ever held; it counts
  against the same element/byte budget, and the document against
  :data:`DOCX_MAX_PARAGRAPHS`.

Every parser here resolves no entities, loads no DTD and opens no network connection (XXE
safe); libxml2's own defaults (``huge_tree`` off) cap nesting at 256 and a text node at
10 MB. Errors are :class:`~docmunch.errors.ConvertError` (not a DOCX) or
:class:`~docmunch.errors.LimitExceeded` (over a limit).
"""

from __future__ import annotations

import io
import lzma
import posixpath
import urllib.parse
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Literal

from lxml import etree

from docmunch.errors import ConvertError
from docmunch.formats.titles import title_property
from docmunch.limits import Limit

__all__ = [
    "DOCX_MAX_EXPANDED_BYTES",
    "DOCX_MAX_MEMBERS",
    "DOCX_MAX_PARAGRAPHS",
    "DOCX_MAX_TREE_BYTES",
    "DOCX_MAX_TREE_ELEMENTS",
    "DocxPackage",
]

DOCX_MAX_MEMBERS = Limit("DOCX_MAX_MEMBERS", 10_000, "zip members")
"""Most members (parts) a package may list; Word writes a few dozen, plus one per image."""
DOCX_MAX_EXPANDED_BYTES = Limit("DOCX_MAX_EXPANDED_BYTES", 256 * 2**20, "bytes")
"""Most bytes all members together may declare uncompressed (images included)."""
DOCX_MAX_TREE_ELEMENTS = Limit("DOCX_MAX_TREE_ELEMENTS", 1_000_000, "XML elements")
"""Most XML elements held as trees at once: the styles, numbering and notes parts plus the
body block being read. About 220 bytes each in lxml; a 1,000-row, 6-column table is ~150,000."""
DOCX_MAX_TREE_BYTES = Limit("DOCX_MAX_TREE_BYTES", 64 * 2**20, "bytes")
"""Most bytes of XML behind the trees held at once (the same parts as above)."""
DOCX_MAX_PARAGRAPHS = Limit("DOCX_MAX_PARAGRAPHS", 100_000, "paragraphs")
"""Most paragraphs (``w:p``, empty ones included) in the main document: ~2,000 pages."""

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT = "http://schemas.openxmlformats.org/package/2006/content-types"
_DC = "http://purl.org/dc/elements/1.1/"
_BODY = f"{{{W}}}body"
_P = f"{{{W}}}p"
_WORD_TYPES = ("wordprocessingml.document.main+xml", "wordprocessingml.template.main+xml",
               "ms-word.document.macroEnabled.main+xml", "ms-word.template.macroEnabledTemplate.main+xml")
_READ_CHUNK = 1 << 16


def _iterparse(
    reader: _CountingReader, event: Literal["start", "end"]
) -> Iterator[tuple[str, etree._Element]]:
    """``(event, element)`` pairs of one part, parsed without entities, DTDs, network or comments."""
    return etree.iterparse(
        reader, events=(event,), resolve_entities=False, no_network=True, load_dtd=False,
        remove_comments=True, huge_tree=False,
    )


_STREAM_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError
)  # fmt: skip
"""What reading a zip member's stream raises on damaged bytes: a bad CRC (``BadZipFile``), a
corrupt deflate or LZMA stream (``zlib.error``: "invalid distance too far back";
``LZMAError``; a bz2 stream raises ``OSError``), a member cut short (``EOFError``)."""


class _Budget:
    """Elements and XML bytes held as trees at once, against the two tree limits."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.max_elements = DOCX_MAX_TREE_ELEMENTS.value()
        self.max_bytes = DOCX_MAX_TREE_BYTES.value()
        self.elements = 0
        self.bytes = 0

    def check(self, elements: int, nbytes: int, where: str) -> None:
        if self.elements + elements > self.max_elements:
            raise DOCX_MAX_TREE_ELEMENTS.exceeded(
                f"DOCX {where} holds too many XML elements", path=self.source
            )
        if self.bytes + nbytes > self.max_bytes:
            raise DOCX_MAX_TREE_BYTES.exceeded(f"DOCX {where} is too much XML at once", path=self.source)

    def keep(self, elements: int, nbytes: int) -> None:
        self.elements += elements
        self.bytes += nbytes


class _CountingReader:
    """A read-only stream that counts the bytes handed to the XML parser."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size if size is not None and size >= 0 else _READ_CHUNK)
        self.count += len(data)
        return data


class DocxPackage:
    """An open ``.docx`` package: its main document part and the parts related to it.

    Args:
        data: the file's bytes.
        source: the file's path (for error messages).

    Raises:
        ConvertError: not a zip, not a WordprocessingML package, or its main part is missing.
        LimitExceeded: the zip guard refused the package.
    """

    def __init__(self, data: bytes, source: str) -> None:
        self.source = source
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise ConvertError(f"not a valid DOCX file: {exc}", path=source) from None
        infos = self._zip.infolist()
        limit = DOCX_MAX_MEMBERS.value()
        if len(infos) > limit:
            raise DOCX_MAX_MEMBERS.exceeded(f"DOCX package has {len(infos)} zip members", path=source)
        expanded = sum(info.file_size for info in infos)
        if expanded > DOCX_MAX_EXPANDED_BYTES.value():
            raise DOCX_MAX_EXPANDED_BYTES.exceeded(f"DOCX expands to {expanded} bytes", path=source)
        self._names = {info.filename.lower(): info.filename for info in infos}
        self.budget = _Budget(source)
        root_rels = self._relationships("", "_rels/.rels")
        main = root_rels.get("officeDocument")
        if main is None or self._member(main) is None:
            raise ConvertError("not a valid DOCX file: no main document part", path=source)
        self.main_part = main
        self._check_content_type(main)
        self._core = root_rels.get("core-properties")
        folder, name = posixpath.split(main)
        self._related = self._relationships(folder, posixpath.join(folder, "_rels", name + ".rels"))

    def close(self) -> None:
        """Close the zip (idempotent)."""
        self._zip.close()

    # --- parts ---------------------------------------------------------------------------
    def _member(self, part: str) -> str | None:
        """The zip member name of a part name (part names are case-insensitive, OPC §9.1.1)."""
        return self._names.get(part.lower())

    def _open(self, part: str) -> IO[bytes] | None:
        member = self._member(part)
        if member is None:
            return None
        try:
            return self._zip.open(member)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError) as exc:
            raise ConvertError(f"not a valid DOCX file: {part}: {exc}", path=self.source) from None

    def _relationships(self, folder: str, rels_part: str) -> dict[str, str]:
        """``{type suffix: part name}`` of the internal relationships in ``rels_part``."""
        root = self._small_tree(rels_part, count=False)
        out: dict[str, str] = {}
        if root is None:
            return out
        for rel in root.iter(f"{{{_RELS}}}Relationship"):
            target, kind = rel.get("Target"), rel.get("Type", "")
            if not target or rel.get("TargetMode") == "External":
                continue
            target = urllib.parse.unquote(target)
            path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            suffix = kind.rsplit("/", 1)[-1]
            out.setdefault(suffix, posixpath.normpath(path).lstrip("/"))
        return out

    def _check_content_type(self, main: str) -> None:
        root = self._small_tree("[Content_Types].xml", count=False)
        if root is None:
            return  # python-docx and Word tolerate a missing one; so do we
        wanted = "/" + main.lower()
        for override in root.iter(f"{{{_CT}}}Override"):
            if override.get("PartName", "").lower() == wanted:
                kind = override.get("ContentType", "")
                if not kind.endswith(_WORD_TYPES):
                    raise ConvertError(f"not a Word document (content type {kind!r})", path=self.source)
                return

    def _small_tree(self, part: str, *, count: bool = True, where: str = "") -> etree._Element | None:
        """Parse one part into a tree within the budget (``count=False``: package plumbing,
        checked against the budget but not kept in it). ``None`` when the part is missing."""
        stream = self._open(part)
        if stream is None:
            return None
        reader = _CountingReader(stream)
        elements = 0
        root: etree._Element | None = None
        try:
            for _event, element in _iterparse(reader, "start"):
                if root is None:
                    root = element
                elements += 1
                if elements % 1024 == 0:
                    self.budget.check(elements, reader.count, where or part)
        except etree.XMLSyntaxError as exc:
            raise ConvertError(f"not a valid DOCX file: {part}: {exc}", path=self.source) from None
        except _STREAM_ERRORS as exc:
            raise ConvertError(f"not a valid DOCX file: {part}: {exc}", path=self.source) from None
        finally:
            stream.close()
        self.budget.check(elements, reader.count, where or part)
        if count:
            self.budget.keep(elements, reader.count)
        return root

    def related_tree(self, kind: str) -> etree._Element | None:
        """The tree of the main part's related part of relationship type ``kind`` (the last
        segment of its type URI: ``"styles"``, ``"numbering"``, ``"footnotes"``, ``"endnotes"``),
        or ``None`` when the package has none or it is not well-formed XML (Word's own
        tolerance for optional parts).

        Raises:
            LimitExceeded: the part would take the trees past the budget.
        """
        part = self._related.get(kind)
        if part is None:
            return None
        try:
            return self._small_tree(part, where=f"{kind} part")
        except ConvertError:  # malformed optional part (LimitExceeded is not caught)
            return None

    def core_title(self) -> str | None:
        """``dc:title`` of the core properties part (``docProps/core.xml``), whitespace
        collapsed, else ``None`` (also for a placeholder: :func:`~docmunch.formats.titles.title_property`)."""
        if self._core is None:
            return None
        try:
            root = self._small_tree(self._core, count=False)
        except ConvertError:
            return None
        if root is None:
            return None
        title = root.find(f"{{{_DC}}}title")
        return title_property(title.text) if title is not None else None

    def body_blocks(self) -> Iterator[etree._Element]:
        """The top-level children of ``w:body`` in order, each complete and still attached
        to its (otherwise emptied) parent; it is removed from the tree once the caller asks
        for the next one, so only one block is held at a time.

        Raises:
            ConvertError: the main part is not well-formed XML or has no ``w:body``.
            LimitExceeded: a block is over the tree budget, or the document has more than
                :data:`DOCX_MAX_PARAGRAPHS` paragraphs.
        """
        stream = self._open(self.main_part)
        if stream is None:
            raise ConvertError("not a valid DOCX file: no main document part", path=self.source)
        reader = _CountingReader(stream)
        max_paragraphs = DOCX_MAX_PARAGRAPHS.value()
        paragraphs = 0
        elements = 0  # in the block being read
        block_start = 0  # reader.count when it began
        seen_body = False
        try:
            for _event, element in _iterparse(reader, "end"):
                parent = element.getparent()
                elements += 1
                if element.tag == _P:
                    paragraphs += 1
                    if paragraphs > max_paragraphs:
                        raise DOCX_MAX_PARAGRAPHS.exceeded("DOCX has too many paragraphs", path=self.source)
                if parent is not None and parent.tag == _BODY:
                    self.budget.check(elements, reader.count - block_start, "body block")
                    yield element
                    parent.remove(element)
                    elements, block_start = 0, reader.count
                elif element.tag == _BODY:
                    seen_body = True
                elif elements % 1024 == 0:
                    self.budget.check(elements, reader.count - block_start, "body block")
        except etree.XMLSyntaxError as exc:
            raise ConvertError(f"not a valid DOCX file: {self.main_part}: {exc}", path=self.source) from None
        except _STREAM_ERRORS as exc:
            raise ConvertError(f"not a valid DOCX file: {self.main_part}: {exc}", path=self.source) from None
        finally:
            stream.close()
        if not seen_body:
            raise ConvertError("not a valid DOCX file: the main document has no body", path=self.source)
