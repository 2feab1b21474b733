"""Metrics of design brief §8, checked against hand-computed values."""

from __future__ import annotations

import pytest

from oracle.htmltext import html_text, view
from oracle.metrics import (
    code_block_exact_share,
    heading_recall,
    noise_residue,
    normalize_title,
    prf,
    title_match,
    token_similarity,
    tokens,
)


def test_tokens_words_casefolded_and_cjk_per_character() -> None:
    assert tokens("Hello, WORLD! snake_case 42 Straße") == ["hello", "world", "snake_case", "42", "strasse"]
    assert tokens("中文abc 한국어 カナ") == ["中", "文", "abc", "한", "국", "어", "カ", "ナ"]
    assert tokens("  ... —  ") == []


def test_tokens_nfc_before_matching() -> None:
    assert tokens("Cafe\u0301") == tokens("Caf\u00e9") == ["caf\u00e9"]


def test_title_match_normalisation_is_exact_otherwise() -> None:
    assert normalize_title("  A\u00a0 title\n here ") == "A title here"
    assert title_match("Cafe\u0301  Menu", "Caf\u00e9 Menu")
    assert not title_match("Title", "title")
    assert title_match(None, "")


def test_token_similarity_hand_computed() -> None:
    # LCS(a b c d, a c d e) = 3 -> 2*3 / (4+4) = 0.75
    assert token_similarity(["a", "b", "c", "d"], ["a", "c", "d", "e"]) == pytest.approx(0.75)
    assert token_similarity([], []) == 1.0
    assert token_similarity(["a"], []) == 0.0


def test_token_similarity_is_order_sensitive_and_a_page_dump_scores_low() -> None:
    article = tokens("the quick brown fox jumps over the lazy dog " * 3)
    assert token_similarity(list(reversed(article)), article) < 0.5
    chrome = tokens("home news sport weather login subscribe menu search privacy cookies terms " * 20)
    dump = chrome[:110] + article + chrome[110:]
    assert token_similarity(dump, article) < 0.3
    assert noise_residue(dump, article) > 0.8


def test_noise_residue_is_a_multiset_share() -> None:
    # ours: a a a b x -> vs ref a b: excess a twice + x once = 3 of 5
    assert noise_residue(["a", "a", "a", "b", "x"], ["a", "b"]) == pytest.approx(3 / 5)
    assert noise_residue([], ["a"]) == 0.0


def test_prf_multiset() -> None:
    # overlap of {a:2,b:1,x:1} and {a:1,b:1,c:2} = a1 + b1 = 2; P = 2/4, R = 2/4, F1 = 0.5
    got = prf(["a", "a", "b", "x"], ["a", "b", "c", "c"])
    assert (got.precision, got.recall, got.f1) == pytest.approx((0.5, 0.5, 0.5))
    assert prf([], []).f1 == 1.0
    assert prf([], ["a"]).f1 == 0.0


def test_heading_recall_needs_the_right_level() -> None:
    truth = [(1, "Install"), (2, "From PyPI"), (2, "From source")]
    ours = [(1, "Install ¶"), (3, "From PyPI"), (2, "From  source")]
    assert heading_recall(ours, truth) == pytest.approx(2 / 3)
    assert heading_recall(ours, []) is None


def test_code_block_exact_share_allows_only_trailing_newlines() -> None:
    truth = ["x = 1\ny = 2", "print(x)"]
    assert code_block_exact_share(["x = 1\ny = 2\n", "print(x) "], truth) == 0.5
    assert code_block_exact_share([], truth) == 0.0
    assert code_block_exact_share(["a"], []) is None


def test_html_text_separates_blocks_but_not_inline_elements() -> None:
    assert tokens(html_text("<p>one</p><p>two<b>three</b></p><ul><li>a</li><li>b</li></ul>")) == [
        "one", "twothree", "a", "b",
    ]  # fmt: skip
    assert html_text("") == ""
    got = view("<h2>Title<a>¶</a></h2><pre>a\n  b\n</pre><script>x()</script>")
    assert got.headings == ((2, "Title¶"),)
    assert got.code_blocks == ("a\n  b\n",)
    assert "x()" not in got.text
