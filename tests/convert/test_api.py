"""Public surface, input forms, base URLs, errors and deep nesting."""

from __future__ import annotations

import lxml.html
import lxml.html.html5parser
import pytest
from lxml import etree

import docmunch.convert as convert
from docmunch.convert import html_to_markdown
from docmunch.convert.state import MAX_NESTING
from docmunch.errors import ConvertError


def test_public_surface() -> None:
    assert convert.__all__ == ["html_to_markdown"]
    assert all(hasattr(convert, name) for name in convert.__all__)


def test_element_input_ignores_the_root_tail() -> None:
    root = lxml.html.fragment_fromstring("<div><p>inside</p></div>")
    root.tail = "outside"
    assert html_to_markdown(root) == "inside\n"


def test_string_input_document_and_fragment() -> None:
    page = "<!doctype html><html><head><title>T</title></head><body><h1>Doc</h1></body></html>"
    assert html_to_markdown(page) == "# Doc\n"
    assert html_to_markdown("plain <b>text</b>") == "plain **text**\n"
    assert html_to_markdown("") == ""


def test_namespaced_tags_are_understood() -> None:
    root = lxml.html.html5parser.fragment_fromstring("<div><h2>T</h2><pre>x</pre></div>")
    assert isinstance(root.tag, str) and root.tag.startswith("{")
    assert html_to_markdown(root) == "## T\n\n```\nx\n```\n"


def test_base_url_absolutises_links_and_images() -> None:
    markdown = html_to_markdown(
        '<p><a href="../api/#x">api</a> <img src="img/a.png" alt="a"> <a href="https://o.test/">o</a></p>',
        base_url="https://docs.test/guide/start/",
    )
    assert (
        markdown
        == "[api](https://docs.test/guide/api/#x) ![a](https://docs.test/guide/start/img/a.png) [o](https://o.test/)\n"
    )


def test_bad_input_type_is_a_convert_error() -> None:
    with pytest.raises(ConvertError):
        html_to_markdown(b"<p>bytes</p>")  # type: ignore[arg-type]


def _nested(tag: str, depth: int, leaf: str = "x") -> etree._Element:
    root = etree.Element("div")
    current = root
    for _ in range(depth):
        current = etree.SubElement(current, tag)
        if tag in {"ul", "ol"}:
            current = etree.SubElement(current, "li")
            current.text = "item"
    current.text = (current.text or "") + leaf
    return root


@pytest.mark.parametrize("tag", ["div", "span", "em", "a", "section", "blockquote", "ul", "table", "td", "p"])
def test_deep_nesting_does_not_recurse(tag: str) -> None:
    root = _nested(tag, 5000)
    if tag == "a":
        for element in root.iter("a"):
            element.set("href", "/x")
    markdown = html_to_markdown(root)
    assert "x" in markdown
    assert markdown.endswith("\n")


def test_deep_lists_are_capped_not_lost() -> None:
    markdown = html_to_markdown(_nested("ul", 5000, leaf=" last"))
    assert markdown.count("item") == 5000
    assert "last" in markdown
    widest = max(len(line) - len(line.lstrip(" ")) for line in markdown.split("\n"))
    assert widest <= 2 * MAX_NESTING


def test_deep_string_input() -> None:
    assert html_to_markdown("<div>" * 3000 + "deep" + "</div>" * 3000) == "deep\n"
