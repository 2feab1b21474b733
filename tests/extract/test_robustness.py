"""Any input yields an Article or an ExtractError — never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.errors import ExtractError
from docmunch.extract import extract

_PIECES = st.sampled_from(
    [
        "<div>",
        "</div>",
        "<p>",
        "</p>",
        "<br>",
        "<table><tr><td>",
        "</td></tr></table>",
        "<pre><code>",
        "</code></pre>",
        "<a href='#x'>",
        "<a href='javascript:x()'>",
        "</a>",
        "<img data-src='a.jpg'>",
        "<noscript><img src='b.png'></noscript>",
        "<h1>",
        "</h1>",
        "<h2 class='comment'>",
        "</h2>",
        "<script>var a = '</div>';</script>",
        "<style>p{}</style>",
        "<math><annotation>x</annotation></math>",
        "<base href='::bad'>",
        "<fb:like x:y='1' \"q\"=2>",
        "\x00",
        "\x0b",
        "\ud800",
        "&amp;",
        "&#0;",
        "<!-- c -->",
        "<title>T | S</title>",
        "<meta property='og:title' content='&quot;x&quot;'>",
        '<script type=\'application/ld+json\'>{"@context": "https://schema.org", "@type": [1]}</script>',
        "Some words, with commas, and sentences. ",
        "更多中文内容，逗号。",
        "<svg><title>s</title></svg>",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=20)), max_size=40), st.booleans())
def test_extract_returns_article_or_extract_error(pieces: list[str], as_bytes: bool) -> None:
    html = "".join(pieces)
    data: str | bytes = html.encode("utf-8", errors="surrogatepass") if as_bytes else html
    try:
        article = extract(data, url="https://example.org/a/b.html")
    except ExtractError:
        return
    assert article.text.strip()
    assert article.length == len(article.text)
    assert article.content_html.startswith("<")


def test_parser_drops_xml_forbidden_characters_from_text_tails_and_attributes() -> None:
    from docmunch.extract import parse_html

    body = parse_html(
        "<p>a\x0bb<i>c\x01</i>d\x0c<b>e</b>\x1f</p><a title='x\x0by' href='/z' data-e>z\x02</a>"
    ).find("body")
    assert body is not None
    p, a = body[0], body[1]
    assert (p.text, p[0].text, p[0].tail, p[1].text, p[1].tail) == ("ab", "c", "d", "e", "")
    assert dict(a.attrib) == {"title": "xy", "href": "/z", "data-e": ""}
    assert a.text == "z"
