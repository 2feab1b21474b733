"""Extract + convert: inline line-number gutters never become code text (Pygments, Prism)."""

from __future__ import annotations

from docmunch.convert import html_to_markdown
from docmunch.extract import extract

PROSE = "<p>Some text here that is long enough, with commas, and more words, to be the content.</p>"


def _markdown(code_html: str) -> str:
    body = f"<article><h1>Code</h1>{PROSE}{code_html}{PROSE}</article>"
    page = f"<html><head><title>T</title></head><body>{body}</body></html>"
    return html_to_markdown(extract(page, url="http://docs.example/").content)


def test_pygments_inline_linenos_are_not_code() -> None:
    md = _markdown(
        '<div class="highlight"><pre><span></span><span class="linenos">1</span>'
        '<span class="n">x</span> = 1\n<span class="linenos">2</span><span class="n">y</span> = 2\n'
        "</pre></div>"
    )
    assert "```\nx = 1\ny = 2\n```" in md


def test_prism_line_numbers_rows_are_not_code() -> None:
    md = _markdown(
        '<pre class="language-python line-numbers"><code class="language-python">print(1)\nprint(2)\n'
        '<span aria-hidden="true" class="line-numbers-rows"><span></span><span></span></span></code></pre>'
    )
    assert "```python\nprint(1)\nprint(2)\n```" in md
