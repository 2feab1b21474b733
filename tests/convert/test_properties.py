"""Hypothesis properties over random HTML trees: the Markdown parses back (markdown-it-py,
CommonMark + tables) with the same text, every ``<pre>`` as a byte-exact fenced block and every
heading as a heading of its level."""

from __future__ import annotations

import html

import lxml.html
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from markdown_it import MarkdownIt

from docmunch.convert import html_to_markdown
from docmunch.convert.render import parse_fragment

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
WORDS = st.text(alphabet="ab1 *_`[]<>&#-+=!|\\~.)(:", min_size=1, max_size=12)
CODE = st.text(alphabet="ab \t\n`~*#<>&-", min_size=1, max_size=40).filter(lambda t: t.strip())


def _inline() -> st.SearchStrategy[str]:
    leaf = WORDS.map(html.escape)

    def wrap(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        tags = st.sampled_from(["em", "strong", "del", "b", "i", "span", "code", "sup", "kbd"])
        plain = st.tuples(tags, children).map(lambda pair: f"<{pair[0]}>{pair[1]}</{pair[0]}>")
        link = children.map(lambda inner: f'<a href="/x y">{inner}</a>')
        pair = st.tuples(children, children).map(lambda two: two[0] + two[1])
        brk = st.tuples(children, children).map(lambda two: f"{two[0]}<br>{two[1]}")
        return plain | link | pair | brk

    return st.recursive(leaf, wrap, max_leaves=6)


INLINE = _inline()


def _table(rows: list[list[str]]) -> str:
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table>{body}</table>"


def _blocks() -> st.SearchStrategy[str]:
    paragraph = INLINE.map(lambda inner: f"<p>{inner}</p>")
    heading = st.tuples(st.integers(1, 6), INLINE).map(lambda pair: f"<h{pair[0]}>{pair[1]}</h{pair[0]}>")
    pre = CODE.map(lambda code: f"<pre>{html.escape(code)}</pre>")
    table = st.lists(st.lists(INLINE, min_size=2, max_size=2), min_size=1, max_size=3).map(_table)
    linked_heading = heading.map(lambda h: f'<a href="/h">{h}</a>')
    raw_table = st.tuples(CODE, INLINE).map(
        lambda pair: f"<table><tr><td><pre>{html.escape(pair[0])}</pre></td><td>{pair[1]}</td></tr></table>"
    )
    leaf = paragraph | heading | pre | table | st.just("<hr>") | linked_heading | raw_table

    def nest(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        many = st.lists(children, min_size=1, max_size=3).map("".join)
        items = st.lists(many, min_size=1, max_size=3)
        ul = items.map(lambda xs: "<ul>" + "".join(f"<li>{x}</li>" for x in xs) + "</ul>")
        ol = st.tuples(st.integers(0, 12), items).map(
            lambda pair: f"<ol start='{pair[0]}'>" + "".join(f"<li>{x}</li>" for x in pair[1]) + "</ol>"
        )
        quote = many.map(lambda inner: f"<blockquote>{inner}</blockquote>")
        div = many.map(lambda inner: f"<div>{inner}</div>")
        note = many.map(lambda inner: f'<aside><p class="admonition-title">N</p>{inner}</aside>')
        dl = st.tuples(INLINE, many).map(lambda pair: f"<dl><dt>{pair[0]}</dt><dd>{pair[1]}</dd></dl>")
        simple_list = st.tuples(st.sampled_from(["ul", "ol"]), st.lists(INLINE, min_size=1, max_size=3)).map(
            lambda pair: f"<{pair[0]}>" + "".join(f"<li>{x}</li>" for x in pair[1]) + f"</{pair[0]}>"
        )
        cell = st.lists(children | simple_list, min_size=1, max_size=2).map("".join)
        block_table = st.lists(st.lists(cell, min_size=2, max_size=2), min_size=1, max_size=2).map(_table)
        return ul | ol | quote | div | note | dl | block_table | many

    return st.recursive(leaf, nest, max_leaves=8)


def _text(markup: str) -> str:
    if not markup.strip():
        return ""
    root = lxml.html.fragment_fromstring(markup, create_parent="div")
    return "".join(root.text_content().split())


def _expected_text(source: str) -> str:
    """Text content of ``source`` plus the item markers that (flat) lists inside GFM table cells
    get: they are written inline as ``- item`` / ``N. item`` lines; empty items vanish."""
    tree = parse_fragment(source)
    for item in tree.iter("li"):
        tables = [a for a in item.iterancestors() if a.tag == "table"]
        if not tables or any(node is not table for table in tables for node in table.iter("pre", "table")):
            continue  # not in a table, or in a raw-HTML table (which keeps <li>)
        if not "".join(item.itertext()).strip():
            continue
        parent = item.getparent()
        if parent is not None and parent.tag == "ol":
            number = max(int(parent.get("start", "1")), 0) + parent.index(item)
            item.text = f"{number}. " + (item.text or "")
        else:
            item.text = "- " + (item.text or "")
    return "".join("".join(tree.itertext()).split())


def _heading_level(heading: etree._Element) -> int:
    """The level of an ``<hN>`` element (its tag is a ``str``: the tree comes from parsing)."""
    assert isinstance(heading.tag, str), heading.tag
    return int(heading.tag[1])


@settings(max_examples=300, deadline=None)
@given(_blocks())
def test_random_trees_parse_back(source: str) -> None:
    markdown = html_to_markdown(source)
    assert markdown == "" or (markdown.endswith("\n") and not markdown.endswith("\n\n"))
    tokens = MD.parse(markdown)
    assert _text(MD.render(markdown)) == _expected_text(source), markdown

    tree = parse_fragment(source)  # the same WHATWG parse (a newline right after <pre> is dropped)
    codes = [
        "".join(pre.itertext())
        for pre in tree.iter("pre")
        if "".join(pre.itertext()).strip() and not any(a.tag == "table" for a in pre.iterancestors())
    ]
    fences = [token.content for token in tokens if token.type == "fence"]
    assert [f.rstrip("\n") for f in fences] == [c.rstrip("\n") for c in codes], markdown

    levels = [
        _heading_level(h)
        for h in tree.iter("h1", "h2", "h3", "h4", "h5", "h6")
        if "".join(h.itertext()).strip() and not any(a.tag in {"td", "th"} for a in h.iterancestors())
    ]
    found = [int(token.tag[1]) for token in tokens if token.type == "heading_open"]
    assert found == levels, markdown
