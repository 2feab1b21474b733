"""Query normalisation before analysis (``docmunch/index/querytext.py``): surrogates, full-width
forms, invisible format characters; and that search, its notes and its empty-result reason all
see the normalised query."""

from __future__ import annotations

import pytest

from docmunch.errors import ConfigError
from docmunch.index import Index
from docmunch.index.querytext import FORMAT_CHARACTERS, QUERY_MAX_CHARS, query_cut, query_text, unicode_text


def test_full_width_letters_digits_and_the_ideographic_space_fold_to_ascii() -> None:
    assert query_text("ｋｕｂｅｃｔｌ　ｄｒａｉｎ ｎｏｄｅ０１") == "kubectl drain node01"
    assert query_text("ＡＢＣ０１９ｘｙｚ") == "ABC019xyz"


def test_full_width_punctuation_stays_chinese_punctuation() -> None:
    from docmunch.index.identifiers import identifiers

    sentences = (
        "Ｐｏｄ 的调度？",
        "readinessProbe 失败时，Pod 会被摘掉吗？",
        "Pod（容器组）",
        "kubectl：apply",
    )
    for sentence in sentences:
        folded = query_text(sentence)
        assert folded == sentence.replace("Ｐｏｄ", "Pod")
        assert identifiers(folded) == []  # not one code identifier across the comma


def test_connectors_between_latin_letters_fold_to_ascii() -> None:
    from docmunch.index.analyze import terms

    assert query_text("ｋｕｂｅ－ｓｙｓｔｅｍ") == "kube-system"
    assert query_text("kube\u2011system kube\u2010public") == "kube-system kube-public"
    assert query_text("app．kubernetes．io／name ｍｙ＿ｖａｒ") == "app.kubernetes.io/name my_var"
    folded = query_text("ｋｕｂｅ－ｓｙｓｔｅｍ 命名空间")
    assert "kube-system" in terms(folded, query=True)  # one identifier term
    for text in ("失败时－Pod", "Pod－失败", "a－ b", "－x", "（Pod）／"):  # beside CJK or alone: punctuation
        assert query_text(text) == text


def test_invisible_format_characters_are_removed() -> None:
    for char in FORMAT_CHARACTERS:
        assert query_text(f"dra{char}in node") == "drain node", hex(ord(char))


def test_other_text_is_unchanged() -> None:
    for text in ("plain ascii", "调度器挑选节点", "naïve café", "日本語のテキスト", "한국어", "emoji 🙂", ""):
        assert query_text(text) == text


def test_lone_surrogates_become_the_replacement_character() -> None:
    for text in (unicode_text("bad \udcff byte"), query_text("ｂａｄ \udcff byte")):
        assert text.startswith("bad \ufffd") and text.endswith(" byte")
        assert set(text[4:-5]) == {"\ufffd"}
        text.encode("utf-8")  # SQLite can bind it


def test_search_and_its_notes_see_the_folded_query(spec_index: Index) -> None:
    plain = spec_index.search("kubectl apply", repo="spec")
    assert plain
    for typed in ("ｋｕｂｅｃｔｌ ａｐｐｌｙ", "kube\u200bctl ap\u00adply"):
        assert spec_index.search(typed, repo="spec") == plain
        assert spec_index.unmatched_words(typed, repo="spec") == ()
    assert spec_index.corrected_words("ｋｕｂｅｃｔｌ ａｐｐｌｙ", repo="spec") == {}
    assert spec_index.corrected_words("ｒｅｃｅｖｉｅｒ", repo="spec") == {"recevier": "receiver"}
    assert spec_index.explain_empty("ｔｈｅ", repo="spec").code == "stop_words"  # a stop word, folded


def test_a_query_over_the_limit_is_cut_at_a_space(monkeypatch: pytest.MonkeyPatch) -> None:
    assert QUERY_MAX_CHARS.default == 65_536
    assert query_cut("pod " * 16_384) is None  # exactly the limit: searched whole
    log = "pod " * 16_384 + "drain"
    assert query_cut(log) == 65_535  # the last space before the limit
    assert query_text(log) == "pod " * 16_383 + "pod"
    assert query_cut("x" * 70_000) == 65_536  # no space: at the limit
    monkeypatch.setenv("DOCMUNCH_QUERY_MAX_CHARS", "10")
    assert query_cut("kubectl drain node") == 7 and query_text("kubectl drain node") == "kubectl"
    monkeypatch.setenv("DOCMUNCH_QUERY_MAX_CHARS", "many")
    with pytest.raises(ConfigError, match="DOCMUNCH_QUERY_MAX_CHARS"):
        query_text("kubectl")


def test_a_megabyte_query_costs_what_its_first_characters_cost(spec_index: Index) -> None:
    # 2 MB of one word was analysed whole (about 4 s); now only its first 65,536 characters
    whole = spec_index.search("apply " * 350_000, repo="spec")
    assert whole == spec_index.search("apply " * 10_922, repo="spec")
