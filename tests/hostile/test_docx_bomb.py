"""DOCX (and PDF) expansion bombs: memory stays bounded, each bomb is one error line.

Before issue 12 the renderer let python-docx parse every XML part into one tree: a 100 KB
``.docx`` of one million short paragraphs peaked at 2.67 GB and took 242 s, and 3 million
empty paragraphs (27 KB) 2.4 GB / 92 s; a 20 KB PDF showing 5 million glyphs on one page
2.3 GB / 152 s. Every input here is generated in the test (deflate does the expanding)
and indexed beside a good file through the real CLI; one run goes through the MCP client.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import anyio
import pytest

from docmunch.formats.docx import render_docx
from tests.hostile.budget import peak_rss_of_children, run_cli
from tests.serve.conftest import connect, text_of

pytestmark = pytest.mark.timeout(900)

MAX_RSS_MB = 400
"""Peak RSS bound of a run over any DOCX bomb below (the process tree, parser included)."""
MAX_PDF_RSS_MB = 600
"""Peak RSS bound for the PDF bombs, worker process included: pdfium parses a page's whole
content stream and builds its text page before docmunch can count anything, so PDFs render
in a worker capped at ``PDF_MAX_MEMORY_BYTES`` (512 MiB of address space)."""

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CT = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_DOC_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/styles" Target="styles.xml"/></Relationships>'
)


def docx_bytes(body: Callable[[IO[bytes]], object], *, prolog: str = "", styles: bytes | None = None,
               extra_members: int = 0, wrap: str = "") -> bytes:
    """A minimal package whose ``word/document.xml`` body is streamed by ``body(out)``
    (inside one ``<wrap>`` element when given; its return value is ignored)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CT)
        z.writestr("_rels/.rels", _RELS)
        if styles is not None:
            z.writestr("word/_rels/document.xml.rels", _DOC_RELS)
            with z.open("word/styles.xml", "w", force_zip64=True) as out:
                out.write(styles)
        with z.open("word/document.xml", "w", force_zip64=True) as out:
            head = f'<?xml version="1.0" encoding="UTF-8"?>{prolog}<w:document xmlns:w="{W}"><w:body>'
            out.write(head.encode() + (f"<{wrap}>".encode() if wrap else b""))
            body(out)
            out.write((f"</{wrap}>".encode() if wrap else b"") + b"</w:body></w:document>")
        for i in range(extra_members):
            z.writestr(f"customXml/item{i}.xml", "")
    return buf.getvalue()


def repeat(unit: str, count: int) -> Callable[[IO[bytes]], None]:
    def write(out: IO[bytes]) -> None:
        chunk = (unit * 1000).encode()
        for _ in range(count // 1000):
            out.write(chunk)

    return write


def _para(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


ENTITY_BOMB_PROLOG = (
    '<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa">'
    + "".join(f'<!ENTITY {n} "{("&" + p + ";") * 10}">' for p, n in zip("abcdefgh", "bcdefghi", strict=True))
    + "]>"
)

DOCX_BOMBS: dict[str, tuple[Callable[[], bytes], str]] = {
    # name: (builder, what the error line says)
    "million-paragraphs.docx": (lambda: docx_bytes(repeat(_para("a"), 1_000_000)), "too many paragraphs"),
    "empty-paragraphs.docx": (lambda: docx_bytes(repeat("<w:p/>", 3_000_000)), "too many paragraphs"),
    "million-runs.docx": (
        lambda: docx_bytes(repeat("<w:r><w:t>a</w:t></w:r>", 1_000_000), prolog="", wrap="w:p"),
        "too many XML elements",
    ),
    "styles-bomb.docx": (
        lambda: docx_bytes(
            repeat(_para("ok"), 1000),
            styles=f'<w:styles xmlns:w="{W}">'.encode() + b"<w:style/>" * 2_000_000 + b"</w:styles>",
        ),
        "too many XML elements",
    ),
    "many-members.docx": (lambda: docx_bytes(repeat(_para("a"), 1000), extra_members=12_000), "zip members"),
    "entity-bomb.docx": (
        lambda: docx_bytes(lambda out: out.write(b"<w:p><w:r><w:t>&i;</w:t></w:r></w:p>"),
                           prolog=ENTITY_BOMB_PROLOG),
        "",  # entities are never expanded: an ordinary (empty) document, or refused as XML
    ),
    "deep-nesting.docx": (
        lambda: docx_bytes(lambda out: out.write(b"<w:sdt><w:sdtContent>" * 300 + _para("deep").encode()
                                                 + b"</w:sdtContent></w:sdt>" * 300)),
        "not a valid DOCX",  # libxml2 stops at 256 levels
    ),
}
CLAMPED = {
    # numbers that size the output are clamped, so these index normally and stay small
    "grid-span.docx": lambda: docx_bytes(lambda out: out.write(
        b'<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="999999999"/></w:tcPr>'
        + _para("cell").encode() + b"</w:tc></w:tr></w:tbl>")),
    "list-level.docx": lambda: docx_bytes(lambda out: out.write(
        b'<w:p><w:pPr><w:numPr><w:ilvl w:val="999999999"/><w:numId w:val="1"/></w:numPr></w:pPr>'
        b"<w:r><w:t>item</w:t></w:r></w:p>")),
}


def test_bombs_are_small_files() -> None:
    sizes = {name: len(build()) for name, (build, _) in DOCX_BOMBS.items()}
    assert sizes["million-paragraphs.docx"] < 150_000 and sizes["empty-paragraphs.docx"] < 50_000, sizes


def test_cli_bounds_memory_and_reports_each_docx_bomb(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nThe quokka paragraph.\n", encoding="utf-8")
    for name, (build, _) in DOCX_BOMBS.items():
        (root / name).write_bytes(build())
    for name, build_clamped in CLAMPED.items():
        (root / name).write_bytes(build_clamped())
    run = run_cli(["index", str(root), "--repo", "bombs", "--json"], tmp_path / "home", timeout=600)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    errors = {e["path"]: e["error"] for e in report["errors"]}
    for name, (_, reason) in DOCX_BOMBS.items():
        if reason:
            assert reason in errors[name], (name, errors.get(name))
    assert "entity-bomb.docx" not in errors or "not a valid DOCX" in errors["entity-bomb.docx"]
    assert not set(CLAMPED) & set(errors)
    assert run.peak_rss_mb < MAX_RSS_MB, run.peak_rss_mb
    print(f"docx bombs: {run.seconds:.1f} s, peak RSS {run.peak_rss_mb:.0f} MB")

    docs = run_cli(["toc", "bombs", "--json"], tmp_path / "home")
    paths = {s["doc_path"] for s in json.loads(docs.stdout)["sections"]}
    assert {"good.md", *CLAMPED} <= paths


def test_clamped_numbers_keep_the_markdown_small(tmp_path: Path) -> None:
    for name, build in CLAMPED.items():
        rendition = render_docx(tmp_path / name, build())
        assert len(rendition.markdown) < 1000, (name, len(rendition.markdown))


def test_limits_are_raised_by_environment(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "many.docx").write_bytes(docx_bytes(repeat(_para("a"), 3000)))
    low = run_cli(["index", str(root), "--json"], tmp_path / "home", DOCMUNCH_DOCX_MAX_PARAGRAPHS="2000")
    assert low.returncode == 1 and "DOCMUNCH_DOCX_MAX_PARAGRAPHS" in low.stdout
    ok = run_cli(["index", str(root), "--json"], tmp_path / "home", DOCMUNCH_DOCX_MAX_PARAGRAPHS="5000")
    assert ok.returncode == 0 and json.loads(ok.stdout)["errors"] == []


def _pdf(content: bytes, pages: int = 1) -> bytes:
    """A minimal PDF whose pages share one Flate-compressed content stream."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages))
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for _ in range(pages):
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {4 + pages} 0 R >>".encode()
        )
    packed = zlib.compress(content, 9)
    objs.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


PDF_BOMBS: dict[str, tuple[Callable[[], bytes], str]] = {
    "glyphs.pdf": (
        lambda: _pdf(b"BT /F1 1 Tf 10 780 Td\n" + (b"(" + b"a" * 100 + b") Tj 0 -1 Td\n") * 50_000 + b"ET\n"),
        "DOCMUNCH_PDF_MAX_(PAGE_CHARS|MEMORY_BYTES)",  # pdfium's text page alone needs ~560 MB
    ),
    "paths.pdf": (
        lambda: _pdf(b"0 0 1 1 re f\n" * 1_000_000), "DOCMUNCH_PDF_MAX_(PAGE_OBJECTS|MEMORY_BYTES)"
    ),
    "paths-big.pdf": (lambda: _pdf(b"0 0 1 1 re f\n" * 5_000_000), "DOCMUNCH_PDF_MAX_MEMORY_BYTES"),
    "pages.pdf": (  # not an expansion bomb: 12,000 tiny pages are 1.9 MB
        lambda: _pdf(b"BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n", pages=12_000), "DOCMUNCH_PDF_MAX_PAGES"
    ),
}


def test_cli_bounds_pdf_bombs(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nThe quokka paragraph.\n", encoding="utf-8")
    (root / "fine.pdf").write_bytes(_pdf(b"BT /F1 12 Tf 72 720 Td (A fine wallaby page) Tj ET\n"))
    for name, (build, _) in PDF_BOMBS.items():
        data = build()
        assert len(data) < (2 * 2**20 if name == "pages.pdf" else 200_000), (name, len(data))
        (root / name).write_bytes(data)
    run = run_cli(["index", str(root), "--repo", "pdf", "--json"], tmp_path / "home", timeout=600)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    errors = {e["path"]: e["error"] for e in report["errors"]}
    assert set(errors) == set(PDF_BOMBS)
    for name, (_, env) in PDF_BOMBS.items():
        assert re.search(env, errors[name]), (name, errors[name])
    assert report["docs_indexed"] == 2
    assert run.peak_rss_mb < MAX_PDF_RSS_MB, run.peak_rss_mb
    print(f"pdf bombs: {run.seconds:.1f} s, peak RSS {run.peak_rss_mb:.0f} MB")


def test_mcp_index_local_with_a_docx_bomb_keeps_serving(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.md").write_text("# Good\n\nThe quokka paragraph.\n", encoding="utf-8")
    (root / "bomb.docx").write_bytes(DOCX_BOMBS["empty-paragraphs.docx"][0]())

    async def scenario() -> tuple[dict[str, Any], str, float]:
        async with connect(tmp_path / "home") as client:
            result = await client.call_tool("index_local", {"path": str(root), "name": "mcp"})
            found = await client.call_tool("search_sections", {"repo": "mcp", "query": "quokka"})
            return json.loads(text_of(result)), text_of(found), peak_rss_of_children("serve")

    report, found, rss = anyio.run(scenario)
    assert report["docs_indexed"] == 1
    assert [e["path"] for e in report["errors"]] == ["bomb.docx"]
    assert "good.md" in found
    assert 0 < rss < MAX_RSS_MB, rss


def test_pdf_time_limit_kills_the_worker_and_the_next_pdf_renders(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a-slow.pdf").write_bytes(PDF_BOMBS["glyphs.pdf"][0]())  # ~150 s with room to grow
    (root / "b-fine.pdf").write_bytes(_pdf(b"BT /F1 12 Tf 72 720 Td (A fine wallaby page) Tj ET\n"))
    run = run_cli(
        ["index", str(root), "--repo", "slow", "--json"], tmp_path / "home",
        DOCMUNCH_PDF_MAX_SECONDS="2", DOCMUNCH_PDF_MAX_MEMORY_BYTES=str(3 * 2**30),
        DOCMUNCH_PDF_MAX_PAGE_CHARS="10000000", DOCMUNCH_PDF_MAX_CHARS="10000000",
    )
    report = json.loads(run.stdout)
    assert [e["path"] for e in report["errors"]] == ["a-slow.pdf"]
    assert "DOCMUNCH_PDF_MAX_SECONDS" in report["errors"][0]["error"]
    assert report["docs_indexed"] == 1
    assert run.seconds < 60, run.seconds


def test_renditions_cross_the_worker_boundary_unchanged() -> None:
    """JSON framing (never pickle) keeps every field, headings included, byte for byte."""
    from docmunch.formats.base import Block, Rendition
    from docmunch.formats.isolate import rendition_from_json, rendition_to_json
    from docmunch.section.model import HeadingSpec

    rendition = Rendition(
        markdown="# Été\r\n\x00bytes\n".encode(), source_kind="pdf", title="Été",
        blocks=(Block(0, 8, "heading", "Été", ({"type": "bbox", "page": 1, "bbox": [1.5, 2.0, 3.0, 4.0]},)),),
        source_ref="/x.pdf", headings=(HeadingSpec(line=0, level=1, title="Été", anchor="ete"),),
        meta={"pages": 1, "nested": {"a": [1, None]}},
    )
    assert rendition_from_json(json.loads(json.dumps(rendition_to_json(rendition)))) == rendition
