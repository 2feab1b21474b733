"""``docmunch extract`` and ``docmunch index URL`` against a real loopback server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html
import pytest

from docmunch.cli import main
from docmunch.formats.html import render_html
from docmunch.index import Index
from docmunch.sources import page, web
from tests.web.siteserver import Reply, SiteServer

JSON_KEYS = {
    "url",
    "title",
    "byline",
    "excerpt",
    "site_name",
    "lang",
    "dir",
    "published_time",
    "platform",
    "markdown",
    "text",
    "content_html",
    "length",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_extract_url_json_shape(httpx_site, capsys, docmunch_home):
    url = httpx_site.url("/advanced/authentication/")
    code, out, _ = run(capsys, "extract", url, "--format", "json", "--allow-private")
    assert code == 0
    data = json.loads(out)
    assert set(data) == JSON_KEYS
    assert data["url"] == url
    assert data["title"] == "Authentication - HTTPX"
    assert data["platform"] == "mkdocs-material"
    assert "## Digest authentication" in data["markdown"]
    assert "{#" not in data["markdown"]  # anchors only in the indexed rendition
    assert data["length"] == len(data["text"]) > 500
    assert data["content_html"].lstrip().startswith("<")


def test_extract_markdown_and_html_formats(httpx_site, capsys, docmunch_home):
    url = httpx_site.url("/advanced/authentication/")
    code, md, _ = run(capsys, "extract", url, "--allow-private")
    assert code == 0 and md.startswith("# Authentication")
    code, html, _ = run(capsys, "extract", url, "--format", "html", "--allow-private")
    assert code == 0 and "<h2" in html and "Digest authentication" in html


def test_extract_local_file(fixtures_dir, capsys, docmunch_home):
    page = fixtures_dir / "docs-sites" / "attrs-sphinx-furo" / "why.html"
    code, out, _ = run(capsys, "extract", str(page), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["url"] == page.resolve().as_uri()
    assert data["platform"] == "sphinx-furo"


LINKED_PAGE = """<html><head><title>Local page</title></head><body><article><h1>Local page</h1>
<p>See <a href="#usage">the usage section</a>, <a href="other.html#setup">the setup page</a>,
<a href="sub/deep.html">a deeper page</a> and <a href="https://example.org/x">an external site</a>;
this paragraph has enough words, and commas, to be the page's content for the extractor.</p>
<h2 id="usage">Usage</h2><p>Run the tool with a file name, and it prints the result, which is
what most people want, most of the time, when they try it for the first time.</p>
<p><img src="img/diagram.png" alt="diagram"></p></article></body></html>"""


def test_extract_local_file_keeps_links_relative(tmp_path: Path, capsys, docmunch_home):
    page = tmp_path / "page.html"
    page.write_text(LINKED_PAGE, encoding="utf-8")
    for fmt in ("markdown", "html", "json"):
        code, out, _ = run(capsys, "extract", str(page), "--format", fmt)
        assert code == 0
        text = json.loads(out)["markdown"] if fmt == "json" else out
        assert "file:" not in text, fmt
        if fmt == "html":
            assert 'href="#usage"' in text and 'href="other.html#setup"' in text
            assert 'src="img/diagram.png"' in text
        else:
            assert "(#usage)" in text and "(other.html#setup)" in text and "(sub/deep.html)" in text
            assert "![diagram](img/diagram.png)" in text
        assert "https://example.org/x" in text
    data = json.loads(run(capsys, "extract", str(page), "--format", "json")[1])
    assert data["url"] == page.resolve().as_uri()  # the page itself is still named absolutely


def test_extract_url_keeps_absolute_links(capsys, docmunch_home):
    site = SiteServer()
    site.routes["/docs/page.html"] = Reply(body=LINKED_PAGE.encode())
    try:
        url = site.url("/docs/page.html")
        code, out, _ = run(capsys, "extract", url, "--allow-private")
    finally:
        site.close()
    assert code == 0
    assert f"]({url}#usage)" in out
    assert f"]({site.url('/docs/other.html')}#setup)" in out
    assert f"![diagram]({site.url('/docs/img/diagram.png')})" in out


def test_loopback_is_refused_without_allow_private(httpx_site, capsys, docmunch_home, monkeypatch):
    monkeypatch.delenv("DOCMUNCH_ALLOW_PRIVATE", raising=False)
    url = httpx_site.url("/")
    for argv in (["index", url], ["extract", url]):
        code, out, err = run(capsys, *argv)
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and err.startswith("docmunch: ")
        assert "127.0.0.1" in err and "Traceback" not in err
    assert httpx_site.hits == []  # refused before any traffic


def test_index_url_locators_use_the_pages_real_anchors(sphinx_site, capsys, docmunch_home):
    url = sphinx_site.url("/why.html")
    code, out, _ = run(capsys, "index", url, "--allow-private", "--repo", "attrs", "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["docs_indexed"], report["errors"]) == (1, [])
    with Index.open() as index:
        sections = index.toc("attrs")
        assert {s.doc_path for s in sections} == {"why.md"}
        by_title = {s.title: s for s in sections}
        # Sphinx puts the id on <section id="data-classes">, not on the <h2>: that id is the anchor.
        assert by_title["… Data Classes?"].locator == {"url": url + "#data-classes"}
        assert by_title["Why not…"].locator == {"url": url + "#why-not"}
        located = index.locate("attrs", by_title["… Pydantic?"].id)
        assert located["locator"] == {"url": url + "#pydantic"}
        docs = index.list_docs("attrs")
        assert docs[0].source_kind == "url" and docs[0].source_ref == url
    html = (sphinx_site.root / "why.html").read_text()
    for section in sections:
        assert section.locator is not None  # a web page always has its URL
        fragment = section.locator["url"].partition("#")[2]
        if fragment:  # every fragment we hand out exists in the page
            assert re.search(rf'id="{re.escape(fragment)}"', html), fragment


def test_heading_without_real_anchor_gives_bare_url(httpx_site, docmunch_home):
    url = httpx_site.url("/advanced/authentication/")
    with Index.open() as index:
        report = web.index_url(index, url, allow_private=True)
        assert report.repo == f"127.0.0.1:{httpx_site.port}"  # the default name keeps the port
        sections = index.toc(report.repo)
    titles = {s.title: s.locator for s in sections}
    assert titles["Authentication"] == {"url": url}  # the page's <h1> has no id
    assert titles["Digest authentication"] == {"url": url + "#digest-authentication"}
    assert {s.doc_path for s in sections} == {"advanced/authentication/index.md"}


def test_reindex_of_unchanged_page_costs_no_extraction(httpx_site, docmunch_home, monkeypatch):
    calls: list[str | None] = []
    real = render_html  # what docmunch.sources.page calls, patched there below

    def counting(data: bytes, *, url: str | None, http_charset: str | None = None):
        calls.append(url)
        return real(data, url=url, http_charset=http_charset)

    monkeypatch.setattr(page, "render_html", counting)
    url = httpx_site.url("/advanced/ssl/")
    with Index.open() as index:
        first = web.index_url(index, url, allow_private=True, repo="httpx")
        state = index.document_state("httpx", "advanced/ssl/index.md")
        second = web.index_url(index, url, allow_private=True, repo="httpx")
    assert (first.docs_indexed, second.docs_indexed, second.docs_unchanged) == (1, 0, 1)
    assert len(calls) == 1
    assert state is not None and state.meta["etag"].startswith('"')
    assert [h.status for h in httpx_site.hits] == [200, 304]
    assert httpx_site.hits[1].headers["if-none-match"] == state.meta["etag"]

    # Without validators (no ETag / Last-Modified) the same body hash also skips extraction.
    body = (httpx_site.root / "advanced" / "ssl" / "index.html").read_bytes()
    httpx_site.routes["/advanced/ssl/"] = Reply(body=body)
    with Index.open() as index:
        third = web.index_url(index, url, allow_private=True, repo="httpx")
    assert third.docs_unchanged == 1 and len(calls) == 1
    assert httpx_site.hits[-1].status == 200


def test_markdown_and_text_pages_are_indexed_as_they_are(docmunch_home):
    server = SiteServer()
    md = "# Title\n\nIntro.\n\n## Part {#p}\n\nBody é.\n".encode()
    server.routes["/doc.md"] = Reply(headers={"Content-Type": "text/markdown; charset=utf-8"}, body=md)
    server.routes["/notes.txt"] = Reply(
        headers={"Content-Type": "text/plain; charset=utf-8"}, body=b"plain\n"
    )
    try:
        with Index.open() as index:
            web.index_url(index, server.url("/doc.md"), allow_private=True, repo="r")
            web.index_url(index, server.url("/notes.txt"), allow_private=True, repo="r")
            doc = index.toc("r", "doc.md")
            read = index.get_section("r", doc[1].id)
            notes = index.toc("r", "notes.md")
    finally:
        server.close()
    assert read.content.encode() == md[md.index(b"## Part") :]
    assert doc[1].locator == {"url": server.url("/doc.md")}
    assert len(notes) == 1


def test_local_html_file_through_index_path(tmp_path: Path, fixtures_dir, docmunch_home):
    folder = tmp_path / "site"
    folder.mkdir()
    source = fixtures_dir / "docs-sites" / "attrs-sphinx-furo" / "why.html"
    (folder / "why.html").write_bytes(source.read_bytes())
    with Index.open() as index:
        report = index.index_path(folder, repo="local")
        sections = index.toc("local")
    assert report.docs_indexed == 1 and not report.errors
    uri = (folder / "why.html").resolve().as_uri()
    by_title = {s.title: s for s in sections}
    assert by_title["… namedtuples?"].locator == {"url": uri + "#namedtuples"}
    assert all(s.doc_path == "why.html" for s in sections)


def test_doc_path_for():
    assert page.doc_path_for("https://h.org/") == "index.md"
    assert page.doc_path_for("https://h.org/a/b/") == "a/b/index.md"
    assert page.doc_path_for("https://h.org/a/b.html") == "a/b.md"
    assert page.doc_path_for("https://h.org/a/b.md") == "a/b.md"
    assert page.doc_path_for("https://h.org/a/b") == "a/b.md"
    assert page.doc_path_for("https://h.org/a?x=1") != page.doc_path_for("https://h.org/a?x=2")


def test_markdown_alternate_is_preferred_and_a_broken_one_ignored(docmunch_home):
    server = SiteServer()
    page = (
        '<html><head><title>P</title><link rel="alternate" type="text/markdown" href="{md}"></head>'
        "<body><article><h1 id='p'>P</h1><p>{text}</p></article></body></html>"
    )
    words = "Some words about the page, long enough to be the main content of it. " * 5
    server.routes["/good/"] = Reply(body=page.format(md="/good.md", text=words).encode())
    server.routes["/good.md"] = Reply(
        headers={"Content-Type": "text/markdown"}, body=b"# Good\n\nFrom Markdown.\n"
    )
    server.routes["/bad/"] = Reply(body=page.format(md="/bad.md", text=words).encode())
    try:
        with Index.open() as index:
            web.index_url(index, server.url("/good/"), allow_private=True, repo="r")
            web.index_url(index, server.url("/bad/"), allow_private=True, repo="r")
            good = index.get_section("r", index.toc("r", "good/index.md")[0].id).content
            bad = index.toc("r", "bad/index.md")
    finally:
        server.close()
    assert good == "# Good\n\nFrom Markdown.\n"
    # Extraction keeps the page's title <h1> (issue 11), so the section's locator is the
    # heading's real anchor on the page.
    assert bad[0].title == "P" and bad[0].level == 1
    assert bad[0].locator == {"url": server.url("/bad/") + "#p"}


def test_extract_renders_office_files_and_refuses_unknown_and_missing_ones(
    tmp_path, capsys, docmunch_home, fixtures_dir
):
    code, out, _ = run(capsys, "extract", str(fixtures_dir / "office" / "docx" / "word_sample.docx"))
    assert code == 0 and "# Swimming in the lake" in out
    pdf = fixtures_dir / "office" / "pdf" / "normal_4pages.pdf"
    code, out, _ = run(capsys, "extract", str(pdf), "--format", "json")
    page = json.loads(out)
    assert code == 0 and page["platform"] == "pdf" and page["title"] and "## " in page["markdown"]
    (tmp_path / "x.pdf").write_bytes(b"%PDF-1.7")
    code, _, err = run(capsys, "extract", str(tmp_path / "x.pdf"))
    assert code == 1 and err.startswith("docmunch: ") and len(err.splitlines()) == 1
    (tmp_path / "x.xyz").write_bytes(b"data")
    code, _, err = run(capsys, "extract", str(tmp_path / "x.xyz"))
    assert code == 1 and "is not a format docmunch reads" in err
    code, _, err = run(capsys, "extract", str(tmp_path / "missing.html"))
    assert code == 1 and "no such file" in err
    (tmp_path / "n.md").write_text("# N\n\nText.\n")
    code, out, _ = run(capsys, "extract", str(tmp_path / "n.md"))
    assert code == 0 and out == "# N\n\nText.\n"


RENDITION_HTML_CASES = [
    ("docx", "office/docx/footnotes.docx", '<li id="fn2" class="footnote-item"><p>Fin.'),
    ("pdf", "office/pdf/normal_4pages.pdf", "<h2>"),
    ("markdown", "note.md", "<h1>Note</h1>"),
    ("text", "note.txt", "<p>Plain words.</p>"),
    ("rst", "note.rst", "<h1>Title</h1>"),
]


@pytest.mark.parametrize(
    ("kind", "name", "expected"), RENDITION_HTML_CASES, ids=[c[0] for c in RENDITION_HTML_CASES]
)
def test_extract_html_of_a_rendition_is_html_and_json_content_html_the_same(
    kind, name, expected, tmp_path, capsys, docmunch_home, fixtures_dir
):
    (tmp_path / "note.md").write_text("# Note\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    (tmp_path / "note.txt").write_text("Plain words.\n")
    rst = "Title\n=====\n\nSome *text*.\n\n.. raw:: html\n\n   <script>x</script>\n"
    (tmp_path / "note.rst").write_text(rst)
    source = fixtures_dir / name if "/" in name else tmp_path / name
    code, markdown, _ = run(capsys, "extract", str(source))
    assert code == 0
    code, html, _ = run(capsys, "extract", str(source), "--format", "html")
    assert code == 0 and html != markdown and expected in html
    code, out, _ = run(capsys, "extract", str(source), "--format", "json")
    assert code == 0 and json.loads(out)["content_html"].rstrip("\n") == html.rstrip("\n")
    assert "<script" not in html
    if kind == "markdown":
        assert "<table>" in html and "<td>1</td>" in html  # GFM tables, as the sectioner reads them


def test_extract_html_escapes_raw_html_and_unsafe_links_of_markdown(tmp_path, capsys, docmunch_home):
    md = tmp_path / "x.md"
    md.write_text('# X\n\n<script>alert(1)</script>\n\n<b onclick="e()">bold</b> [a](javascript:alert(1))\n')
    code, html, _ = run(capsys, "extract", str(md), "--format", "html")
    assert code == 0
    assert "<script" not in html and "&lt;script&gt;" in html  # shown as text, never passed through
    assert "<b " not in html and 'href="javascript:' not in html


def test_extract_html_of_restructuredtext_neutralises_script_urls(tmp_path, capsys, docmunch_home):
    """docutils writes any link target as given; a second trial found ``javascript:`` links and
    an image source in ``extract --format html`` of a ``.rst`` file."""
    rst = tmp_path / "evil.rst"
    rst.write_text(
        "Title\n=====\n\nA `link <javascript:alert(1)>`_, `ok <https://example.com>`_ and js2_.\n\n"
        ".. _js2: JaVa\tScript:alert(4)\n\n.. image:: javascript:alert(5)\n\n"
        "`page <data:text/html,x>`_ and `vb <vbscript:x>`_.\n"
    )
    code, html, _ = run(capsys, "extract", str(rst), "--format", "html")
    assert code == 0
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    urls = [v for el in root.iter() for k, v in el.attrib.items() if k in ("href", "src")]
    assert urls == ["https://example.com"]
    assert "<span>link</span>" in html and "<span>js2</span>" in html and "<span>page</span>" in html


def test_extract_of_a_folder_says_it_is_a_folder(tmp_path, capsys, docmunch_home):
    (tmp_path / "docs").mkdir()
    code, out, err = run(capsys, "extract", str(tmp_path / "docs"))
    assert code == 1 and not out
    folder = tmp_path / "docs"
    assert err == (
        f"docmunch: {folder} is a folder; extract takes one file or URL (`docmunch index` takes folders)\n"
    )
