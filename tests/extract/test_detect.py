"""Platform detection and docs-aware extraction, one hand-written page per platform.

The pages in ``fixtures/`` are hand-written imitations of each generator's markup (see
``fixtures/README.md``); real pages of Sphinx/MkDocs-Material/Docusaurus/VitePress are
covered by ``test_docs_sites.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.detect import _SIGNATURES, GENERIC, detect_platform
from docmunch.extract import extract, parse_html

HERE = Path(__file__).parent / "fixtures"

# fixture file, platform, text that must be kept, chrome text that must be gone
CASES = [
    (
        "mdbook.html",
        "mdbook",
        ["Defining an Enum", "enum IpAddrKind {\n    V4,", "namespaced under"],
        ["Keyboard shortcuts", "Getting Started", "Previous chapter", "Print this book", "Previous wide"],
    ),
    (
        "gitbook.html",
        "gitbook",
        ["Install the Acme command line", "npm install -g acme-cli", "Node.js 18"],
        ["Previous: Introduction", "Last updated", "Introduction to Acme", "#"],
    ),
    (
        "docsy.html",
        "docsy",
        ["smallest deployable units", "apiVersion: v1\nkind: Pod", "should not be confused"],
        [
            "Edit this page",
            "Using Pods toc",
            "Docs crumb",
            "Was this page helpful",
            "Last modified",
            "Versions",
        ],
    ),
    (
        "antora.html",
        "antora",
        ["Install the Antora command line", "$ npm i -g @antora/cli@3.1", "local installation"],
        [
            "Overview nav",
            "3.1 picker",
            "Antora crumb",
            "Edit this Page",
            "Contents aside",
            "Previous page link",
        ],
    ),
    (
        "github.html",
        "github",
        ["A tiny widget library", "# comment stays", "10 MB are rejected"],
        ["Product header", "Issues 12", "Copy to clipboard", "footer"],
    ),
    (
        "pdoc.html",
        "pdoc",
        ["Circles and the arithmetic", "# radius in metres", "computed on demand"],
        ["shapes module list", "Circle nav", "View Source", "Edit on GitHub"],
    ),
    (
        "pydoc.html",
        "pydoc",
        ["Conversion functions between RGB", "hls_to_rgb", "Convert HLS coordinates"],
        ["/usr/lib/python3.11/colorsys.py"],
    ),
    (
        "javadoc.html",
        "javadoc",
        ["Resizable-array implementation", "// a comment span", "Inserts the specified"],
        ["Module nav", "Nested sub-nav", "legal footer"],
    ),
    (
        "mkdocs.html",
        "mkdocs",
        ["named mkdocs.yml", "site_name: Marshmallow Generator", "required setting"],
        ["Previous navbar", "Edit on GitHub navbar", "Sidebar toc entry", "built with MkDocs", "¶"],
    ),
    (
        "sphinx-basic.html",
        "sphinx",
        ["frobnicating your first widget", "# comment is code", "E = mc^2", "idempotent"],
        ["index related", "next related", "Table of Contents sidebar", "Frob footer", "¶"],
    ),
]


@pytest.mark.parametrize(("name", "platform", "keep", "gone"), CASES, ids=[c[0] for c in CASES])
def test_platform_detected_and_chrome_removed(
    name: str, platform: str, keep: list[str], gone: list[str]
) -> None:
    html = (HERE / name).read_text(encoding="utf-8")
    detected = detect_platform(parse_html(html))
    assert detected.name == platform, detected.evidence
    assert detected.evidence and detected.content_selectors
    article = extract(html, url="https://docs.example.org/section/page.html")
    assert article.platform == platform
    text = article.text.replace("\u00a0", " ")
    for snippet in keep:
        assert snippet in text, (snippet, text)
    for snippet in gone:
        assert snippet not in text, (snippet, text)


def test_headings_keep_levels_on_platform_pages() -> None:
    article = extract((HERE / "mdbook.html").read_text(encoding="utf-8"))
    assert [(h.tag, h.text_content()) for h in article.content.iter("h2", "h3")] == [
        ("h2", "Defining an Enum"),
        ("h3", "Enum Values"),
    ]


def test_code_language_class_survives() -> None:
    article = extract((HERE / "mkdocs.html").read_text(encoding="utf-8"))
    code = next(article.content.iter("pre"))[0]
    assert "language-yaml" in code.get("class", "")
    sphinx = extract((HERE / "sphinx-basic.html").read_text(encoding="utf-8"))
    assert any("highlight-python" in (el.get("class") or "") for el in sphinx.content.iter("div"))


def test_missing_container_falls_back_to_scoring() -> None:
    html = (
        '<html><head><meta name="generator" content="mkdocs-1.6.1"><title>x</title></head><body>'
        + "".join(
            f"<p>Paragraph number {i}, with enough words, commas, and text to be scored.</p>"
            for i in range(20)
        )
        + "</body></html>"
    )
    article = extract(html)
    assert article.platform == "mkdocs"
    assert "Paragraph number 19" in article.text


def test_unknown_page_is_generic() -> None:
    root = parse_html("<html><body><p>Just a page.</p></body></html>")
    assert detect_platform(root) is GENERIC
    assert detect_platform(root, url="https://example.com/a").name == "generic"


def test_host_evidence() -> None:
    root = parse_html("<html><body><p>Just a page.</p></body></html>")
    platform = detect_platform(root, url="https://foo.readthedocs.io/en/latest/")
    assert platform.name == "sphinx"
    assert "readthedocs" in platform.evidence


def test_class_signatures_are_single_tokens() -> None:
    """The class evidence is a set of class tokens: a needle with whitespace could never match."""
    needles = [needle for _name, kind, needle in _SIGNATURES if kind == "class"]
    assert needles
    assert all(needle and needle.split() == [needle] for needle in needles)


def test_class_evidence_matches_whole_tokens_only() -> None:
    def page(classes: str) -> str:
        return f'<html><body><div class="{classes}"><p>text</p></div><nav class="md-sidebar"></nav>'

    assert detect_platform(parse_html(page("md-container"))).name == "mkdocs-material"
    assert detect_platform(parse_html(page("x md-container\u2003y"))).name == "mkdocs-material"
    assert detect_platform(parse_html(page("md-containers"))).name == "generic"
    assert detect_platform(parse_html(page("my-md-container"))).name == "generic"
