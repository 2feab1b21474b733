"""reStructuredText and MDX: section starts found on the user's unchanged bytes.

Expected lines and levels were read off the fixture files by hand (0-based lines).
"""

from __future__ import annotations

from pathlib import Path

from docmunch.formats import render_file
from docmunch.formats.mdx import mask_mdx
from docmunch.section import ParsedDocument

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "local-formats"


def _specs(name: str) -> list[tuple[int, int, str]]:
    path = HERE / name
    rendition = render_file(path, path.read_bytes())
    assert rendition.markdown == path.read_bytes()  # stored as the user's own bytes
    assert rendition.headings is not None
    return [(h.line, h.level, h.title) for h in rendition.headings]


def test_rst_titles_with_overline_underline_and_directives() -> None:
    assert _specs("configuration.rst") == [
        (0, 0, ""),  # the `.. _configuration:` label line precedes the first title
        (2, 1, "Configuration"),  # overline on line 2, title text on 3
        (11, 2, "Loading order"),
        (25, 3, "Environment variables"),
        (34, 2, "Reference"),
    ]
    path = HERE / "configuration.rst"
    rendition = render_file(path, path.read_bytes())
    assert rendition.title == "Configuration"
    assert rendition.headings is not None
    assert rendition.headings[2].anchor == "loading-order"
    assert rendition.headings[1].summary.startswith("Settings are read from settings.toml")


def test_rst_crlf_lines() -> None:
    assert _specs("crlf.rst") == [(0, 0, ""), (2, 1, "Title A"), (7, 2, "Title B")]


def test_mdx_masks_esm_and_jsx_but_keeps_markdown_inside_jsx() -> None:
    assert _specs("tabs.mdx") == [
        (11, 1, "Installing {#install}"),
        (20, 2, "macOS"),
        (27, 2, "Linux"),
        (45, 2, "Next steps"),
    ]


def test_mdx_front_matter_title() -> None:
    path = HERE / "tabs.mdx"
    assert render_file(path, path.read_bytes()).title == "Installing"
    assert render_file(Path("x.mdx"), b"# Only heading\n").title is None


def test_mdx_mask_keeps_line_count_and_code() -> None:
    text = (HERE / "tabs.mdx").read_text(encoding="utf-8")
    view = mask_mdx(text)
    assert view.count("\n") == text.count("\n")
    assert "import prettier from 'prettier';" in view  # inside a fence: untouched
    assert "import Tabs" not in view and "<TabItem" not in view and "Hidden comment" not in view
    assert "Prettier has no options by design." in view


def test_mdx_preamble_only_for_visible_text() -> None:
    path = Path("x.mdx")
    with_text = render_file(path, b"import A from 'a';\n\nSome intro.\n\n# T\n")
    assert [(h.line, h.level) for h in with_text.headings or ()] == [(2, 0), (4, 1)]
    only_imports = render_file(path, b"import A from 'a';\n\n<A />\n\n# T\n")
    assert [(h.line, h.level) for h in only_imports.headings or ()] == [(4, 1)]


def _split(name: str) -> tuple[bytes, ParsedDocument]:
    from docmunch.section import split_at_headings

    path = HERE / name
    data = path.read_bytes()
    rendition = render_file(path, data)
    return data, split_at_headings(data, rendition.headings or (), repo="r", doc_path=name,
                                   title=rendition.title)


def test_rst_sections_hash_and_tile_on_the_original_bytes() -> None:
    import hashlib

    for name in ("configuration.rst", "crlf.rst", "tabs.mdx"):
        data, doc = _split(name)
        assert doc.sections, name
        pos = doc.body_start
        for section in doc.sections:
            assert section.byte_start == pos, (name, section.id)
            own = data[section.byte_start:section.byte_end]
            assert hashlib.sha256(own).hexdigest() == section.content_hash
            pos = section.byte_end
        assert pos == len(data)
    data, doc = _split("configuration.rst")
    assert [s.id for s in doc.sections] == [
        "r::configuration.rst::_preamble#0",
        "r::configuration.rst::configuration#1",
        "r::configuration.rst::configuration/loading-order#2",
        "r::configuration.rst::configuration/loading-order/environment-variables#3",
        "r::configuration.rst::configuration/reference#2",
    ]
    assert data[doc.sections[1].byte_start:].startswith(b"=============\nConfiguration\n")
    assert doc.sections[2].anchor == "loading-order"
    data, doc = _split("crlf.rst")
    assert data[doc.sections[2].byte_start:].startswith(b"Title B\r\n-------")
    data, doc = _split("tabs.mdx")
    assert [(s.title, s.anchor) for s in doc.sections] == [
        ("Installing", "install"), ("macOS", "macos"), ("Linux", "linux"),
        ("Next steps", "next-steps")]
