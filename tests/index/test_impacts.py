"""Index-time analysis: tokens analysed once give the same terms, and the impacts of a document
(each distinct token counted once per piece of text) are the bytes of the BM25F formula computed
term by term."""

from __future__ import annotations

import re
import threading
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.index.analyze import CHAR_PREFIX, terms, token_terms, tokens
from docmunch.index.impacts import (
    AVG_FIELD_TERMS,
    DOC_AVG_FIELD_TERMS,
    DOC_B,
    DOC_FIELD_WEIGHTS,
    DOC_K1,
    FIELD_WEIGHTS,
    IMPACT_LEVELS,
    K1,
    B,
    SectionText,
    document_terms,
)
from docmunch.index.priors import PAGE_TITLE_PRIOR, content_prior

_ALPHABET = "abcXYZ019 _-./:<>(){}[]!\n\tÉéßПр的调度器节点配置卷里容器组日本語カナ한국"
_TEXT = st.text(alphabet=_ALPHABET, max_size=60)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _field(text: str) -> tuple[Counter[str], int]:
    counter = Counter(terms(text))
    return counter, sum(n for t, n in counter.items() if not t.startswith(CHAR_PREFIX))


def _impacts(fields: list[tuple[Counter[str], int]], w: tuple[float, ...], b: tuple[float, ...],
             avg: tuple[float, ...], k1: float) -> tuple[list[str], bytes]:
    tf: dict[str, float] = {}
    for f, (counter, length) in enumerate(fields):
        norm = w[f] / (1 - b[f] + b[f] * length / avg[f])
        for term, n in counter.items():
            tf[term] = tf.get(term, 0.0) + n * norm
    return list(tf), bytes(max(1, int(IMPACT_LEVELS * t / (k1 + t) + 0.5)) for t in tf.values())


def _reference(document: str, sections: list[SectionText]) -> tuple[list[tuple[float, list[str], bytes]],
                                                                   tuple[list[str], bytes]]:
    """The module docstring's formula, one term at a time (terms by name instead of index)."""
    doc = _field(document)
    headings, bodies = Counter[str](), Counter[str]()
    heading_length = body_length = 0
    rows = []
    for s in sections:
        title, body = _field(s.title), _field(_COMMENT.sub(" ", s.body))
        headings.update(title[0])
        bodies.update(body[0])
        heading_length += title[1]
        body_length += body[1]
        fields = [title, _field(s.heading_path), doc, body]
        words, impacts = _impacts(fields, FIELD_WEIGHTS, B, AVG_FIELD_TERMS, K1)
        prior = content_prior(s.body) * (PAGE_TITLE_PRIOR if s.page_title else 1.0)
        rows.append((prior, words, impacts))
    vocabulary = _impacts([doc, (headings, heading_length), (bodies, body_length)], DOC_FIELD_WEIGHTS, DOC_B,
                          DOC_AVG_FIELD_TERMS, DOC_K1)
    return rows, vocabulary


def _named(document: str, sections: list[SectionText]) -> tuple[list[tuple[float, list[str], bytes]],
                                                               tuple[list[str], bytes]]:
    rows, (vocabulary, impacts) = document_terms(document, sections)
    named = []
    for prior, local, section_impacts in rows:
        indices = [int.from_bytes(local[i : i + 4], "little") for i in range(0, len(local), 4)]
        named.append((prior, [vocabulary[i] for i in indices], section_impacts))
    return named, (vocabulary, impacts)


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_terms_of_each_token_are_the_terms_of_the_text(text: str) -> None:
    assert [t for token in tokens(text) for t in token_terms(token)] == terms(text)


def test_ascii_and_unicode_tokens_agree() -> None:
    text = "kubectl drain --dry-run app.kubernetes.io/name std::env::var a_b x.. y-"
    expected = ["kubectl", "drain", "dry-run", "app.kubernetes.io/name", "std::env::var", "a_b", "x", "y"]
    assert tokens(text) == tokens(text + " é")[:-1] == expected


def test_document_terms_follow_the_formula() -> None:
    sections = [
        SectionText("Pods", "", "Pods run containers. Pods! <!-- hidden words --> pods", True),
        SectionText("配置 Pod 的持久卷", "Pods", "如何给 Pod 配置持久卷？在容器组里挂载卷", False),
        SectionText("What's next", "Pods", "{{< note >}} [link](x.md)", False),
        SectionText("Empty", "Pods", "", False),
        SectionText("?!", "Pods > Empty", "...", False),
    ]
    document = "Pods concepts/workloads/pods"
    assert _named(document, sections) == _reference(document, sections)


@given(
    st.text(alphabet=_ALPHABET, max_size=20),
    st.lists(
        st.tuples(_TEXT, st.sampled_from(["", "A", "A > 调度"]), st.text(alphabet=_ALPHABET, max_size=200),
                  st.booleans()),
        min_size=1, max_size=6,
    ),
)
@settings(max_examples=150, deadline=None)
def test_random_documents_follow_the_formula(document: str, parts: list[tuple[str, str, str, bool]]) -> None:
    # heading paths are ancestor titles, so their words are always among the titles
    sections = [SectionText("A 调度", "", "", False)] + [SectionText(*p) for p in parts]
    assert _named(document, sections) == _reference(document, sections)


def test_threads_analysing_documents_at_once_get_the_formulas_terms() -> None:
    # The token memo is per thread: shared, one thread's numpy views of its arrays made the
    # other's append fail (BufferError) half-way through a term, and every later document of
    # the process failed with an IndexError.
    def document(k: int, i: int) -> tuple[str, list[SectionText]]:
        words = " ".join(f"word{k}x{i}x{j} 调度{k}" for j in range(40))
        return f"Doc {k} {i}", [SectionText(f"Title {k} {i}", "", words, True)]

    results: dict[tuple[int, int], bool] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(60):
                name, sections = document(k, i)
                results[k, i] = _named(name, sections) == _reference(name, sections)
        except BaseException as err:  # reported by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert len(results) == 240 and all(results.values())
    name, sections = document(9, 0)  # the calling thread's memo still works afterwards
    assert _named(name, sections) == _reference(name, sections)
