"""The converter's Markdown parses back (markdown-it-py, CommonMark + tables) into the intended
structure: headings with their levels, code blocks with byte-exact content, real tables."""

from __future__ import annotations

import html

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from docmunch.convert import html_to_markdown

MD = MarkdownIt("commonmark").enable("table")

CODE_SAMPLES = [
    "def f():\n\treturn 1\n",
    "  leading spaces\n\n\n  blank lines above\n",
    "```\nfence inside\n```\n",
    "~~~\n```\n````\n",
    "*a* _b_ [c](d) <e> &amp; \\ # h\n- item\n> quote\n",
    "trailing spaces   \nnext\n",
    "\ttab first\n",
]


def _tokens(markdown: str) -> list[Token]:
    return MD.parse(markdown)


def _headings(markdown: str) -> list[tuple[int, str]]:
    tokens = _tokens(markdown)
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[index + 1]
            text = "".join(
                child.content for child in inline.children or [] if child.type in {"text", "code_inline"}
            )
            found.append((int(token.tag[1]), text))
    return found


def _fences(markdown: str) -> list[str]:
    return [token.content for token in _tokens(markdown) if token.type == "fence"]


@pytest.mark.parametrize("code", CODE_SAMPLES)
@pytest.mark.parametrize(
    "wrap",
    [
        "{}",
        "<ul><li><p>item</p>{}</li></ul>",
        "<ol start='10'><li>x{}</li></ol>",
        "<blockquote>{}</blockquote>",
        "<ul><li><ol><li>deep{}</li></ol></li></ul>",
    ],
    ids=["top", "bullet-item", "ordered-10", "quote", "nested"],
)
def test_code_blocks_parse_back_byte_exact(code: str, wrap: str) -> None:
    markdown = html_to_markdown(wrap.format(f"<pre>{html.escape(code)}</pre>"))
    assert _fences(markdown) == [code]


def test_headings_parse_with_levels() -> None:
    source = (
        "<h1>Title</h1><p>intro</p><a href='/x'><h2>Linked</h2></a><h3>Multi\nline <em>x</em></h3>"
        "<ul><li><h4>In list</h4></li></ul><h5>Ends #</h5><h6>1. Numbered</h6><p>text</p><hr><p>after</p>"
    )
    assert _headings(html_to_markdown(source)) == [
        (1, "Title"),
        (2, "Linked"),
        (3, "Multi line x"),
        (4, "In list"),
        (5, "Ends #"),
        (6, "1. Numbered"),
    ]


def test_rule_after_paragraph_is_not_a_setext_heading() -> None:
    markdown = html_to_markdown("<p>Text</p><hr><p>a<br>---</p><p>===</p>")
    assert _headings(markdown) == []
    assert [t.type for t in _tokens(markdown)].count("hr") == 1


def test_gfm_table_parses_as_table() -> None:
    source = (
        "<table><caption>Cap</caption><thead><tr><th>a|b</th><th colspan='2'>c</th></tr></thead>"
        "<tbody><tr><td>1<br>2</td><td><code>x|y</code></td><td><em>e</em></td></tr></tbody>"
        "<tfoot><tr><td>f</td></tr></tfoot></table>"
    )
    tokens = _tokens(html_to_markdown(source))
    types = [token.type for token in tokens]
    assert types.count("table_open") == 1
    assert types.count("th_open") == 3
    assert types.count("tr_open") == 3
    assert types.count("td_open") == 6
    cells = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type in {"th_open", "td_open"}]
    assert cells[0] == "a|b"
    rendered = MD.render(html_to_markdown(source))
    assert "<code>x|y</code>" in rendered and "<th>a|b</th>" in rendered


def test_table_with_code_cell_is_one_html_block() -> None:
    source = (
        "<table><tr><td><pre>a\n\nb</pre></td><td>x</td></tr>"
        "<tr><td>1</td><td>2</td></tr></table><p>after</p>"
    )
    tokens = _tokens(html_to_markdown(source))
    assert [token.type for token in tokens][:1] == ["html_block"]
    assert tokens[0].content.startswith("<table>")
    assert "&#10;&#10;" in tokens[0].content
    assert any(token.type == "paragraph_open" for token in tokens[1:])


def test_adjacent_lists_stay_separate() -> None:
    tokens = _tokens(
        html_to_markdown("<ul><li>a</li></ul><ul><li>b</li></ul><ol><li>c</li></ol><ol><li>d</li></ol>")
    )
    types = [token.type for token in tokens]
    assert types.count("bullet_list_open") == 2
    assert types.count("ordered_list_open") == 2


def test_nested_list_levels() -> None:
    markdown = html_to_markdown(
        "<ol start='9'><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li><li>d</li></ol>"
    )
    tokens = _tokens(markdown)
    depth = 0
    levels = []
    for token in tokens:
        if token.type.endswith("_list_open"):
            depth += 1
        elif token.type.endswith("_list_close"):
            depth -= 1
        elif token.type == "inline":
            levels.append((depth, token.content))
    assert levels == [(1, "a"), (2, "b"), (3, "c"), (1, "d")]
    assert tokens[0].attrGet("start") == 9
