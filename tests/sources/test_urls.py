"""URL rules: normalisation, scope, default repo names, source kinds, llms.txt links."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.errors import SourceError
from docmunch.fetch import origin_of, same_origin
from docmunch.sources.discover import is_discovery_file, parse_llms_txt
from docmunch.sources.spec import parse_source
from docmunch.sources.urls import default_repo_name, in_scope, normalize_url, scope_prefix


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Ex.COM:80/a/./b/index.html?utm_source=x#top", "http://ex.com/a/b/"),
        ("https://ex.com:443/docs/", "https://ex.com/docs/"),
        ("https://ex.com:8443/docs", "https://ex.com:8443/docs"),
        ("https://ex.com/a/../b?z=1&a=2&gclid=9", "https://ex.com/b?a=2&z=1"),
        ("https://ex.com", "https://ex.com/"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
        ("mailto:a@b.c", None),
        ("javascript:alert(1)", None),
        ("ftp://ex.com/x", None),
        ("https:", None),
        ("http://[x", None),
        ("http://ex.com:99999/", None),
    ],
)
def test_normalize_url(url: str, expected: str | None) -> None:
    assert normalize_url(url) == expected


def test_relative_links_resolve_against_the_page() -> None:
    assert normalize_url("../api/#x", base="https://ex.com/docs/guide/page.html") == "https://ex.com/docs/api/"


def test_scope() -> None:
    scope = scope_prefix("https://ex.com/docs/intro.html")
    assert scope == "https://ex.com/docs/"
    assert in_scope("https://ex.com/docs/a/b", scope)
    assert in_scope("https://ex.com/docs", scope)
    assert not in_scope("https://ex.com/blog/a", scope)
    assert not in_scope("https://ex.com.evil.org/docs/a", scope)
    assert not in_scope("http://ex.com/docs/a", scope)
    assert not in_scope("https://ex.com:8443/docs/a", scope)  # another port is another origin


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://docs.example.com/guide/", "docs.example.com"),
        ("https://Docs.Example.com:443/", "docs.example.com"),
        ("http://127.0.0.1:8731/", "127.0.0.1:8731"),
        ("http://127.0.0.1:8732/docs/", "127.0.0.1:8732"),
        ("http://example.com:443/", "example.com:443"),  # 443 is not http's default
        ("http://[::1]:8000/", "0-0-0-0-0-0-0-1:8000"),
        ("https://[2001:db8::1]/", "2001-db8-0-0-0-0-0-1"),
    ],
)
def test_default_repo_name_keeps_a_non_default_port(url: str, name: str) -> None:
    assert default_repo_name(url) == name
    assert "::" not in name and "[" not in name and not name.startswith("-")


def test_origins() -> None:
    a = origin_of("HTTP://Example.COM./x")
    assert a is not None and a.key == "http://example.com:80" and str(a) == "http://example.com"
    assert str(origin_of("https://[::1]:8443/")) == "https://[::1]:8443"
    assert same_origin("http://127.0.0.1:8731/a", "http://127.0.0.1:8731/b?q")
    assert not same_origin("http://127.0.0.1:8731/", "http://127.0.0.1:8732/")
    assert not same_origin("http://ex.com/", "https://ex.com/")
    assert same_origin("http://ex.com/", "http://ex.com:80/")
    assert not same_origin(None, "http://ex.com/") and origin_of("mailto:x@y") is None


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("https://ex.com/docs/", "url", "https://ex.com/docs/"),
        ("HTTP://ex.com/", "url", "http://ex.com/"),
        ("HttpS://ex.com/A", "url", "https://ex.com/A"),
        ("github:encode/httpx@master", "github", "github:encode/httpx@master"),
        ("GitHub:encode/httpx", "github", "github:encode/httpx"),
        ("./docs", "path", "./docs"),
        ("C:/Users/docs", "path", "C:/Users/docs"),
    ],
)
def test_parse_source(text: str, kind: str, value: str) -> None:
    spec = parse_source(text)
    assert (spec.kind, spec.value) == (kind, value)


@pytest.mark.parametrize("text", ["ftp://ex.com/docs", "ftp:docs", "file:///etc/passwd", "s3://bucket/key"])
def test_unsupported_schemes_are_a_clear_error(text: str) -> None:
    with pytest.raises(SourceError, match=r"unsupported source scheme '(ftp|file|s3)'.*http\(s\) URLs"):
        parse_source(text)


def test_an_existing_path_with_a_colon_is_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes:draft.md").write_text("# N\n")
    assert parse_source("notes:draft.md").kind == "path"


def test_llms_txt_links_in_order_unique() -> None:
    text = """# Project

> Summary line with a [link](https://ex.com/docs/about.md).

## Docs

- [Quickstart](/docs/quickstart.md): start here
- [API [v2]](api/index.md "API")
- [Quickstart again](https://ex.com/docs/quickstart.md)
- [Mail](mailto:x@y.z)
"""
    assert parse_llms_txt(text, base="https://ex.com/docs/llms.txt") == [
        "https://ex.com/docs/about.md",
        "https://ex.com/docs/quickstart.md",
        "https://ex.com/docs/api/index.md",
    ]


def test_discovery_files_are_recognised() -> None:
    assert is_discovery_file("https://ex.com/robots.txt")
    assert is_discovery_file("https://ex.com/docs/llms-full.txt")
    assert is_discovery_file("https://ex.com/map", {"https://ex.com/map"})
    assert not is_discovery_file("https://ex.com/docs/notes.txt")
