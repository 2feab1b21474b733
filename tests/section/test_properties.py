"""Hypothesis properties of the sectioner: tiling, UTF-8 ranges, unique ids, determinism,
and independence from the line-ending style."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.section import split_markdown
from docmunch.section.dialects import parse_view
from docmunch.section.split import _line_starts

from .checks import check_invariants

# Inline text: Markdown punctuation, letters from several scripts, emoji, a few odd spaces.
_TEXT = st.text(
    alphabet=st.sampled_from([*"ab Z#-=*_`~>{}<!|[]()\\.:\t", "中", "é", "🚀", "\u2028", "\x0c", "\xa0"]),
    max_size=12,
)
_LINE = st.one_of(
    _TEXT,
    st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 7), _TEXT),
    st.builds(lambda n, t: " " * n + "# " + t, st.integers(1, 4), _TEXT),
    st.builds(lambda t: t + " {#id-" + t.strip()[:3] + "}", _TEXT),
    st.sampled_from(
        ["", "", "===", "---", "- item", "> quote", "> # q", "```", "```python title=\"x\" {1,3}",
         "````", "~~~ {.shell}", "    # code", "<!--", "-->", "<div>", "</div>", "***", "+++",
         "1. # listed", "| a | b |", "|---|---|", "{{< note >}}", "---\ntitle: t\n---"]
    ),
    st.sampled_from(  # documentation dialects (templates, admonitions, directives, HTML headings)
        ['{{< tab name="a" codelang="yaml" >}}', "{{< /tab >}}", "{{< tabs >}}", "{{< /tabs >}}",
         '## {{% heading "whatsnext" %}}', "{{% heading %}}", "{{</* x */>}}", "{{</* x", "*/>}}",
         "{% highlight ruby %}", "{% endhighlight %}", "{% raw %}", "{% endraw %}", "{{#include a.rs}}",
         "{{ page.title }}", "!!! note", '??? tip "t"', "    ## in admonition", "\t# tab body",
         ":::tip", ":::", "::: {.x}", '<h2 id="a">H</h2>', "<H1>T", "</H1>", "<pre>", "</pre>",
         "<h3><img alt=i></h3>", "<div><h1>a</h1><h2>b</h2></div>"]
    ),
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[str], bool]:
    lines = draw(st.lists(_LINE, max_size=30))
    flat = [part for line in lines for part in line.split("\n")]
    return flat, draw(st.booleans())


@st.composite
def endings(draw: st.DrawFn, lines: list[str]) -> list[str]:
    """A line ending per line; a lone CR is never followed by an empty line ended by LF
    (that would fuse into one CRLF and change the line structure)."""
    style = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    if style != "mixed":
        return [style] * len(lines)
    out: list[str] = []
    for i in range(len(lines)):
        options = ["\n", "\r\n", "\r"]
        if out and out[-1] == "\r" and lines[i] == "":
            options = ["\r\n", "\r"]
        out.append(draw(st.sampled_from(options)))
    return out


def _join(lines: list[str], ends: list[str], bom: bool) -> bytes:
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    return (("\ufeff" if bom else "") + text).encode("utf-8")


def _outline(data: bytes) -> list[tuple[int, str, str]]:
    return [(s.level, s.title, s.slug) for s in split_markdown(data, repo="r", doc_path="d.md").sections]


@settings(max_examples=300, deadline=None)
@given(documents())
def test_ranges_tile_and_ids_unique(doc: tuple[list[str], bool]) -> None:
    lines, bom = doc
    data = _join(lines, ["\n"] * len(lines), bom)
    parsed = split_markdown(data, repo="r", doc_path="d.md")
    check_invariants(parsed, data)
    assert parsed == split_markdown(data, repo="r", doc_path="d.md")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_line_endings_do_not_change_the_outline(data: st.DataObject) -> None:
    lines, bom = data.draw(documents())
    lf = _join(lines, ["\n"] * len(lines), bom)
    other = _join(lines, data.draw(endings(lines)), bom)
    parsed = split_markdown(other, repo="r", doc_path="d.md")
    check_invariants(parsed, other)
    assert _outline(other) == _outline(lf)
    # same lines: every heading's line number is the same too
    assert [s.line for s in parsed.sections] == [
        s.line for s in split_markdown(lf, repo="r", doc_path="d.md").sections
    ]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_split_or_raise_convert_error(raw: bytes) -> None:
    from docmunch.errors import ConvertError

    try:
        parsed = split_markdown(raw, repo="r", doc_path="d.md")
    except ConvertError:
        return
    check_invariants(parsed, raw)


@settings(max_examples=300, deadline=None)
@given(documents())
def test_parse_view_keeps_every_line_and_its_length(doc: tuple[list[str], bool]) -> None:
    """Masking never moves a line: same count, and each line keeps its length (an admonition's
    blank body line is the one that grows, to ``>``)."""
    lines = doc[0] or [""]
    text = "\n".join(lines)
    view = parse_view(text)
    got = view.text.split("\n")
    assert len(got) == len(lines)
    for before, after in zip(lines, got, strict=True):
        assert len(after) == len(before) or (not before.strip() and after.strip() == ">")
    for first, last in view.containers:
        assert first >= 0 and last < len(lines)



_LINE_ENDS = st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"\n").replace(b"\x01", b"\r"))


@given(_LINE_ENDS, st.integers(0, 45))
@settings(max_examples=300, deadline=None)
def test_line_starts_follow_the_line_end_rule(data: bytes, start: int) -> None:
    # \r\n, \r and \n each end a line (the rule markdown-it normalises with); the fast path
    # for text without \r must find the same starts.
    start = min(start, len(data))
    expected = [start, *(m.end() for m in re.compile(rb"\r\n?|\n").finditer(data, start))]
    assert _line_starts(data, start) == expected
