"""Spec-style tests of extraction rules (generic Readability path unless stated)."""

from __future__ import annotations

import pytest

from docmunch.errors import ExtractError
from docmunch.extract import Article, extract, parse_html

FILLER = "".join(
    f"<p>Paragraph {i} of the story, with commas, clauses, and enough words to score as content here.</p>"
    for i in range(8)
)


def page(body: str, head: str = "<title>A reasonably long test page title</title>") -> str:
    return f"<!DOCTYPE html><html lang='en'><head>{head}</head><body>{body}</body></html>"


def article_of(
    inner: str, *, url: str | None = "https://example.org/news/story.html", head: str = ""
) -> Article:
    return extract(
        page(f"<div class='article-body'>{FILLER}{inner}</div>", head + "<title>Story title here</title>"),
        url=url,
    )


def test_lazy_image_data_src_becomes_src() -> None:
    art = article_of(
        '<p><img data-src="/img/photo.jpg" class="lazyload" alt="photo"> A caption paragraph.</p>'
    )
    imgs = [img.get("src") for img in art.content.iter("img")]
    assert imgs == ["https://example.org/img/photo.jpg"]


def test_lazy_image_data_srcset_becomes_srcset() -> None:
    art = article_of(
        '<p><img data-srcset="a.png 1x, b.png 2x" src="data:image/gif;base64,R0lGOD" class="lazy"> x.</p>'
    )
    img = next(art.content.iter("img"))
    assert img.get("srcset") == "https://example.org/news/a.png 1x, https://example.org/news/b.png 2x"


def test_noscript_copy_replaces_placeholder_without_duplicate() -> None:
    art = article_of(
        '<figure><img class="lazy" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="p.jpg">'
        '<noscript><img src="https://cdn.example.org/p.jpg" alt="real"></noscript>'
        "<figcaption>The caption of the figure.</figcaption></figure>"
    )
    imgs = list(art.content.iter("img"))
    assert len(imgs) == 1
    assert imgs[0].get("src") == "https://cdn.example.org/p.jpg"
    assert "The caption of the figure." not in art.text  # photo captions are boilerplate (_boilerplate)


def test_links_resolve_against_base_href() -> None:
    art = article_of(
        '<p>See <a href="guide/intro.html">the guide</a> and <a href="#s2">below</a>.</p>',
        head='<base href="https://docs.example.net/v2/">',
    )
    hrefs = [a.get("href") for a in art.content.iter("a")]
    assert hrefs == ["https://docs.example.net/v2/guide/intro.html", "https://docs.example.net/v2/#s2"]


def test_links_resolve_against_page_url_without_base() -> None:
    art = article_of('<p>See <a href="../about/">about</a> and <img src="//cdn.example.org/x.png">.</p>')
    assert [a.get("href") for a in art.content.iter("a")] == ["https://example.org/about/"]
    assert [i.get("src") for i in art.content.iter("img")] == ["https://cdn.example.org/x.png"]


def test_javascript_links_become_text() -> None:
    art = article_of('<p>Click <a href="javascript:void(0)">here please</a> now.</p>')
    assert "here please" in art.text
    assert all(not (a.get("href") or "").startswith("javascript:") for a in art.content.iter("a"))


def test_code_with_comment_spans_is_kept() -> None:
    code = (
        '<pre><code class="language-python"><span class="c1"># setup comment</span>\n'
        '<span class="k">import</span> os  <span class="comment">// not a comment section</span>\n'
        '<div class="comments"><span class="cm">/* block */</span></div></code></pre>'
    )
    art = article_of(code)
    pre = next(art.content.iter("pre"))
    assert pre.text_content() == "# setup comment\nimport os  // not a comment section\n/* block */"
    classes = pre[0].get("class")
    assert classes is not None and "language-python" in classes


def test_mathml_keeps_tex_annotation() -> None:
    math = (
        "<p>Energy: <math><semantics><mrow><mi>E</mi></mrow>"
        '<annotation encoding="application/x-tex">E = mc^2</annotation></semantics></math> holds.</p>'
    )
    art = article_of(math)
    annotations = [a.text for a in art.content.iter("annotation")]
    assert annotations == ["E = mc^2"]


def test_deep_nesting_does_not_recurse() -> None:
    depth = 5000
    html = page("<div>" * depth + FILLER + "</div>" * depth)
    art = extract(html)
    assert "Paragraph 7 of the story" in art.text
    assert art.length == len(art.text)


def test_parse_html_builds_whatwg_tree() -> None:
    root = parse_html("<table><tr><td>a<p>b</table><p>c")
    assert root.tag == "html"
    assert [el.tag for el in root.iter("tbody", "tr", "td")] == ["tbody", "tr", "td"]
    assert root.find("head") is not None


def test_bytes_input_uses_declared_charset() -> None:
    html = page(
        "<div>" + FILLER + "<p>Größe und Übermaß, überall Umlaute, sehr viele.</p></div>",
        '<meta charset="windows-1252"><title>Ümlaut title for the page</title>',
    )
    art = extract(html.encode("cp1252"))
    assert "Größe und Übermaß" in art.text
    assert art.title == "Ümlaut title for the page"


def test_metadata_from_meta_tags_and_json_ld() -> None:
    head = (
        '<meta property="og:site_name" content="Example News">'
        '<meta name="author" content="Ada Lovelace">'
        '<meta property="article:published_time" content="2026-01-02T03:04:05Z">'
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "NewsArticle",'
        ' "headline": "Engines of the future", "description": "All about engines."}</script>'
    )
    art = extract(page(f"<div dir='rtl'>{FILLER}</div>", head))
    assert art.title == "Engines of the future"
    assert art.byline == "Ada Lovelace"
    assert art.excerpt == "All about engines."
    assert art.site_name == "Example News"
    assert art.published_time == "2026-01-02T03:04:05Z"
    assert art.lang == "en"
    assert art.dir == "rtl"
    assert art.platform == "generic"


@pytest.mark.parametrize(
    ("title", "h1", "expected"),
    [
        ("Engines of the distant future | Example News", "", "Engines of the distant future"),
        ("Example News | Short", "", "Example News | Short"),
        ("Example News: Engines of the future roaring", "", "Engines of the future roaring"),
        ("Tiny", "<h1>The one and only big heading</h1>", "The one and only big heading"),
    ],
)
def test_title_rules(title: str, h1: str, expected: str) -> None:
    art = extract(page(f"{h1}<div>{FILLER}</div>", f"<title>{title}</title>"))
    assert art.title == expected


@pytest.mark.parametrize(
    "html", ["", "<html><body></body></html>", "<html><body><script>x()</script></body></html>"]
)
def test_empty_page_raises_extract_error(html: str) -> None:
    with pytest.raises(ExtractError):
        extract(html, url="https://example.org/empty")


def test_byline_element_removed_and_reported() -> None:
    art = extract(page(f"<div><p class='byline'>By Grace Hopper</p>{FILLER}</div>"))
    assert art.byline == "By Grace Hopper"
    assert "Grace Hopper" not in art.text


def test_heading_permalinks_removed_on_generic_pages() -> None:
    art = article_of(
        '<h2 id="s2">Second part<a href="#s2" class="anchor">¶</a></h2><p>Text of the part, long.</p>'
    )
    heading = next(art.content.iter("h2"))
    assert heading.text_content() == "Second part"
    assert "¶" not in art.text
