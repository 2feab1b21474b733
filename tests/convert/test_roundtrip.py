"""Escaping is sufficient: Markdown rendered back by markdown-it-py has the HTML's text.

Hypothesis generates text full of Markdown-significant characters, wraps it in paragraphs,
emphasis, code, links and list items, converts it and renders the Markdown with markdown-it-py
(CommonMark + tables); the rendered text content must equal the input's (whitespace ignored:
block boundaries add newlines on one side only; whitespace has its own fixtures).
"""

from __future__ import annotations

import html

import lxml.html
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from docmunch.convert import html_to_markdown

MD = MarkdownIt("commonmark").enable("table")
ALPHABET = "ab1 *_`[]<>&#-+=!|\\~.)(:;\n\t"
TEXT = st.text(alphabet=ALPHABET, max_size=30) | st.sampled_from(
    ["&amp;", "&#123;", "<div>", "1. x", "# h", "---", "- a", "> q", "```", "a_b_c", "_x_", "**y**"]
)


def _text_of(markup: str) -> str:
    if not markup.strip():
        return ""
    root = lxml.html.fragment_fromstring(markup, create_parent="div")
    return "".join(root.text_content().split())  # blocks join with or without newlines


def _check(source_html: str) -> None:
    markdown = html_to_markdown(source_html)
    expected = _text_of(source_html)
    assert _text_of(MD.render(markdown)) == expected, markdown


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_paragraph_text_round_trips(texts: list[str]) -> None:
    _check("".join(f"<p>{html.escape(text)}</p>" for text in texts))


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, TEXT, TEXT, TEXT)
def test_inline_markup_round_trips(a: str, b: str, c: str, d: str, e: str) -> None:
    a, b, c, d, e = (html.escape(t) for t in (a, b, c, d, e))
    _check(f"<p>{a}<em>{b}</em>{c}<strong>{d}</strong><a href='/x'>{e}</a><code>{c}</code></p>")


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=3), TEXT)
def test_list_and_heading_text_round_trips(items: list[str], heading: str) -> None:
    body = "".join(f"<li>{html.escape(item)}</li>" for item in items)
    _check(f"<h2>{html.escape(heading)}</h2><ol>{body}</ol><blockquote>{html.escape(heading)}</blockquote>")


def test_round_trip_helper_catches_lost_text() -> None:
    assert _text_of(MD.render("*a*")) != _text_of("<p>*a*</p>")


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, TEXT, TEXT)
def test_table_cell_text_round_trips(a: str, b: str, c: str, d: str) -> None:
    a, b, c, d = (html.escape(t) for t in (a, b, c, d))
    _check(f"<table><tr><th>{a}</th><th>x{b}</th></tr><tr><td>{c}</td><td><code>{d}</code></td></tr></table>")
