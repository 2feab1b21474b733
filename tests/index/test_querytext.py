"""Query normalisation before analysis (``docmunch/index/querytext.py``): surrogates, full-width
forms, invisible format characters; and that search, its notes and its empty-result reason all
see the normalised query."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docmunch.index import Index
from docmunch.index.querytext import FORMAT_CHARACTERS, query_text, unicode_text

CORPUS = Path(__file__).parent / "fixtures" / "search-corpus"


def test_full_width_ascii_and_the_ideographic_space_fold_to_ascii() -> None:
    assert query_text("ｋｕｂｅｃｔｌ　ｄｒａｉｎ －－ｆｏｒｃｅ") == "kubectl drain --force"
    assert query_text("Ｐｏｄ 的调度？") == "Pod 的调度?"
    assert query_text("ＡＢＣ０１９ｘｙｚ～！") == "ABC019xyz~!"


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


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    idx = Index.open(tmp_path_factory.mktemp("querytext-home"))
    assert idx.index_path(CORPUS, repo="spec").errors == ()
    yield idx
    idx.close()


def test_search_and_its_notes_see_the_folded_query(index: Index) -> None:
    plain = index.search("kubectl apply", repo="spec")
    assert plain
    for typed in ("ｋｕｂｅｃｔｌ ａｐｐｌｙ", "kube\u200bctl ap\u00adply"):
        assert index.search(typed, repo="spec") == plain
        assert index.unmatched_words(typed, repo="spec") == ()
    assert index.corrected_words("ｋｕｂｅｃｔｌ ａｐｐｌｙ", repo="spec") == {}
    assert index.corrected_words("ｒｅｃｅｖｉｅｒ", repo="spec") == {"recevier": "receiver"}
    assert index.explain_empty("ｔｈｅ", repo="spec").code == "stop_words"  # a stop word, folded
