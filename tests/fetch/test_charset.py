"""Charset decisions: WHATWG labels, the <meta> prescan, the full order, and over real HTTP."""

from __future__ import annotations

import pytest

from docmunch.fetch import decode_html, decode_text
from docmunch.fetch.charset import late_meta, prescan_meta
from docmunch.fetch.encodings import encoding_from_python, lookup_label

RUSSIAN = (
    "Документация описывает установку, настройку и использование программы. "
    "Перед началом работы убедитесь, что на компьютере установлена последняя версия. "
    "Каждый раздел содержит примеры команд и пояснения к параметрам конфигурации. "
) * 4
CHINESE = (
    "朱镕基曾任国务院总理。本文档介绍安装、配置与使用方法，并给出常见问题的解答。" * 4
)  # 镕: GBK, not GB2312


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("gb2312", "GBK"),
        ("GBK", "GBK"),
        ("x-gbk", "GBK"),
        ("gb18030", "gb18030"),
        ("iso-8859-1", "windows-1252"),
        ("latin1", "windows-1252"),
        ("ascii", "windows-1252"),
        ("US-ASCII", "windows-1252"),
        (" utf8 ", "UTF-8"),
        ("shift_jis", "Shift_JIS"),
        ("sjis", "Shift_JIS"),
        ("euc-jp", "EUC-JP"),
        ("euc-kr", "EUC-KR"),
        ("ks_c_5601-1987", "EUC-KR"),
        ("big5", "Big5"),
        ("koi8-r", "KOI8-R"),
        ("windows-1251", "windows-1251"),
        ("cp1250", "windows-1250"),
        ("iso-8859-9", "windows-1254"),
        ("tis-620", "windows-874"),
        ("utf-16", "UTF-16LE"),
        ("utf-16be", "UTF-16BE"),
        ("iso-2022-kr", "replacement"),
        ("utf-7", None),
        ("bogus", None),
    ],
)
def test_whatwg_labels(label, name):
    assert lookup_label(label) == name


@pytest.mark.parametrize(
    ("codec", "name"),
    [
        ("cp1251", "windows-1251"),
        ("utf_8", "UTF-8"),
        ("euc_jp", "EUC-JP"),
        ("cp932", "Shift_JIS"),
        ("gb18030", "gb18030"),
        ("big5", "Big5"),
        ("cp949", "EUC-KR"),
        ("koi8_r", "KOI8-R"),
        ("cp037", None),
    ],
)
def test_detector_names_map_to_whatwg(codec, name):
    assert encoding_from_python(codec) == name


# Spec-style cases for the HTML Standard's prescan: (document head, expected encoding or None).
PRESCAN = [
    (b'<meta charset="windows-1251">', "windows-1251"),
    (b"<META CHARSET=KOI8-R>", "KOI8-R"),
    (b"<meta charset='gb2312'/>", "GBK"),
    (b'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">', "Shift_JIS"),
    (b'<meta content="text/html; charset=euc-jp" http-equiv="content-type">', "EUC-JP"),
    (b"<meta content=\"text/html; charset='big5'\" http-equiv=content-type>", "Big5"),
    (b'<meta content="text/html; charset=utf-8">', None),  # content needs http-equiv
    (b'<meta http-equiv="refresh" content="0; charset=utf-8">', None),
    (b"<!-- <meta charset=koi8-r> --><meta charset=latin1>", "windows-1252"),
    (b"<!--><meta charset=koi8-r>", "KOI8-R"),  # "<!-->" is a whole comment
    (b'<div title="<meta charset=koi8-r>"><meta charset=big5>', "Big5"),
    (b"<meta charset=bogus><meta charset=euc-kr>", "EUC-KR"),
    (b"<meta charset=utf-16le>", "UTF-8"),
    (b"<meta charset=x-user-defined>", "windows-1252"),
    (b'<meta charset="utf-8" charset="koi8-r">', "UTF-8"),
    (b"<metacharset=koi8-r>", None),
    (b"<?xml version='1.0' encoding='koi8-r'?><p>", None),
    (b"<!DOCTYPE html><html lang=ru><head><title>t</title><meta charset=cp1251>", "windows-1251"),
    (b" " * 1020 + b"<meta charset=koi8-r>", None),  # beyond the first 1024 bytes
    (b"text, no tag <meta charset=koi8-r>", "KOI8-R"),  # bytes outside tags are skipped
    (b"x < y <meta charset=euc-kr>", "EUC-KR"),  # "< " opens no tag
    (b"a<b<meta charset=big5>", None),  # one tag named "b<meta" whose attribute is charset
    (b"<p>-->--<meta charset=koi8-r>", "KOI8-R"),
]


@pytest.mark.parametrize(("head", "expected"), PRESCAN, ids=[h[:40].decode("latin-1") for h, _ in PRESCAN])
def test_prescan(head, expected):
    assert prescan_meta(head) == expected


def test_bom_beats_http_charset_and_meta():
    data = "\ufeff<meta charset=windows-1251><p>Привет".encode()
    assert decode_html(data, http_charset="windows-1251") == ("<meta charset=windows-1251><p>Привет", "UTF-8")
    data16 = "\ufeff<p>Ω".encode("utf-16-le")
    assert decode_html(data16, http_charset="iso-8859-1") == ("<p>Ω", "UTF-16LE")


def test_http_charset_beats_meta_and_unknown_label_is_ignored():
    data = "<meta charset=utf-8><p>Привет".encode("koi8-r")
    assert decode_html(data, http_charset="koi8-r")[1] == "KOI8-R"
    assert decode_html(data, http_charset="no-such-charset")[1] == "UTF-8"  # the meta tag


def test_meta_then_utf8_then_detector_then_replacement():
    meta = b"<meta charset=windows-1251>" + RUSSIAN.encode("cp1251")
    assert decode_html(meta) == ("<meta charset=windows-1251>" + RUSSIAN, "windows-1251")
    assert decode_html(("<p>" + CHINESE).encode()) == ("<p>" + CHINESE, "UTF-8")
    text, name = decode_html(("<p>" + RUSSIAN).encode("cp1251"))
    assert (text, name) == ("<p>" + RUSSIAN, "windows-1251")
    assert decode_html(b"")[1] == "UTF-8"


def test_multibyte_label_that_cannot_decode_valid_utf8_yields_to_utf8():
    # a UTF-8 page still declaring gb2312 (the readability qq page) or served as Shift_JIS
    page = ("<meta charset=gb2312><p>" + CHINESE).encode()
    assert decode_html(page) == ("<meta charset=gb2312><p>" + CHINESE, "UTF-8")
    assert decode_html(("<p>" + CHINESE).encode(), http_charset="shift_jis")[1] == "UTF-8"
    # the label wins whenever it can decode the bytes: real GBK, and UTF-8 that is also valid GBK
    assert decode_html(("<meta charset=gb2312><p>" + CHINESE).encode("gbk"))[1] == "GBK"
    assert decode_html("<meta charset=gbk><p>中文</p>".encode())[1] == "GBK"
    # single-byte labels decode any bytes and are never overridden (browsers' mojibake kept)
    assert decode_html(("<meta charset=windows-1251><p>" + CHINESE).encode())[1] == "windows-1251"


def _late_page(meta: str, body: str, *, scripts: int = 40) -> bytes:
    """A page whose head holds ``scripts`` KB of ASCII script before ``meta``, then ``body`` (Latin-1)."""
    filler = "".join(f"<script>var x{i} = '{'a' * 1000}';</script>\n" for i in range(scripts))
    return f"<html><head><title>t</title>{filler}{meta}</head><body>{body}</body></html>".encode("latin-1")


def test_late_meta_in_an_ascii_head_is_honoured():
    body = "<p>Überwachung der somatischen Zellen, Köllitsch</p>"
    page = _late_page('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">', body)
    assert prescan_meta(page) is None  # past the 1024 bytes of the standard prescan
    assert late_meta(page) == "windows-1252"
    text, name = decode_html(page)
    assert name == "windows-1252" and body in text
    assert decode_html(_late_page("<meta charset=koi8-r>", "<p>ok</p>"))[1] == "KOI8-R"


def test_late_meta_is_ignored_after_non_ascii_bytes_or_outside_the_head():
    # a non-ASCII byte before the declaration: the text read so far could change, so not honoured
    early = _late_page("<meta charset=koi8-r>", "<p>x</p>").replace(b"<title>t", "<title>é".encode("latin-1"))
    assert late_meta(early) is None
    in_body = _late_page("", "<meta charset=koi8-r><p>x</p>")
    assert late_meta(in_body) is None
    too_far = _late_page("<meta charset=koi8-r>", "<p>x</p>", scripts=70)  # past LATE_META_BYTES
    assert late_meta(too_far) is None
    commented = _late_page("<!-- <meta charset=koi8-r> -->", "<p>x</p>")
    assert late_meta(commented) is None
    # a valid UTF-8 page without any declaration is still UTF-8
    assert decode_html(_late_page("", "<p>plain</p>"))[1] == "UTF-8"


def test_detector_prefers_common_web_encodings_on_a_near_tie():
    # charset-normalizer alone ranks x-mac-cyrillic first for this repetitive windows-1251 text.
    data = ("<p>" + "Текст документации. " * 4000).encode("cp1251")
    assert decode_html(data)[1] == "windows-1251"


def test_windows_1252_keeps_c1_bytes_like_browsers():
    assert (
        decode_html(b"\x80\x81\x8d\x8f\x90\x9d\x9f", http_charset="iso-8859-1")[0] == "€\x81\x8d\x8f\x90\x9dŸ"
    )


def test_replacement_encoding_hides_the_document():
    assert decode_html(b"<p>anything", http_charset="iso-2022-kr") == ("\ufffd", "replacement")


def test_text_skips_meta_prescan():
    data = b"<meta charset=koi8-r> is how you declare it\n"
    assert decode_text(data) == (data.decode(), "UTF-8")
    assert decode_text("# Заголовок\n".encode("koi8-r"), http_charset="koi8-r") == ("# Заголовок\n", "KOI8-R")


# --- over real HTTP ---------------------------------------------------------------------------------


def test_gbk_page_labelled_gb2312(server, fetcher):
    body = f"<html><head><title>文档</title></head><body><p>{CHINESE}</p></body></html>".encode("gbk")
    url = server.route("/zh", server.Reply(headers={"Content-Type": "text/html; charset=gb2312"}, body=body))
    result = fetcher.fetch(url)
    assert result.charset == "GBK" and CHINESE in result.text and "朱镕基" in result.text
    assert result.body == body  # raw bytes kept, never pre-decoded


def test_windows_1251_page_with_meta_and_no_http_charset(server, fetcher):
    body = (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
        f"</head><body><p>{RUSSIAN}</p></body></html>".encode("cp1251")
    )
    url = server.route("/ru", server.Reply(headers={"Content-Type": "text/html"}, body=body))
    result = fetcher.fetch(url)
    assert result.charset == "windows-1251" and RUSSIAN in result.text


def test_unlabelled_windows_1251_page_is_detected(server, fetcher):
    body = f"<html><body><h1>Руководство</h1><p>{RUSSIAN}</p></body></html>".encode("cp1251")
    url = server.route("/ru-bare", server.Reply(headers={"Content-Type": "text/html"}, body=body))
    result = fetcher.fetch(url)
    assert result.charset == "windows-1251" and RUSSIAN in result.text


def test_bom_beats_conflicting_meta_over_http(server, fetcher):
    body = "\ufeff<html><head><meta charset=windows-1251></head><body>Привет, мир</body></html>".encode()
    url = server.route("/bom", server.Reply(headers={"Content-Type": "text/html"}, body=body))
    result = fetcher.fetch(url)
    assert result.charset == "UTF-8" and result.text.startswith("<html>") and "Привет, мир" in result.text


def test_markdown_and_plain_text_decode(server, fetcher):
    url = server.route(
        "/readme.md",
        server.Reply(
            headers={"Content-Type": "text/markdown; charset=koi8-r"}, body="# Заголовок\n".encode("koi8-r")
        ),
    )
    result = fetcher.fetch(url)
    assert (result.kind, result.charset, result.text) == ("markdown", "KOI8-R", "# Заголовок\n")
