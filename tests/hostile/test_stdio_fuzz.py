"""Fuzz target for the MCP stdio loop: random bytes, JSON and JSON-RPC shapes into a real server.

Invariant, for every generated input: the ``docmunch serve`` process keeps running, answers the
ping sent after the input, and writes nothing to stdout that is not a JSON-RPC 2.0 message.

One server process serves the whole run (a fresh process per example would cost seconds each).
``make test`` runs :data:`EXAMPLES` examples (60); a longer run:

    DOCMUNCH_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/hostile/test_stdio_fuzz.py
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.serve.stdio_session import StdioSession

EXAMPLES = int(os.environ.get("DOCMUNCH_FUZZ_EXAMPLES", "60"))
"""Examples per strategy (``DOCMUNCH_FUZZ_EXAMPLES`` raises it)."""

pytestmark = pytest.mark.timeout(max(600, EXAMPLES * 3))

SAFE_TOOLS = [
    "list_repos", "list_docs", "get_toc", "get_toc_tree", "get_document_outline", "search_sections",
    "get_section", "get_sections", "get_section_context", "verify_index",
]  # fmt: skip
"""Tools the fuzzer may call: local readers only (writers could index ``/``, extract_url fetches)."""

METHODS = [
    "ping", "tools/list", "tools/call", "initialize", "resources/list", "prompts/list",
    "notifications/initialized", "notifications/cancelled", "notifications/progress", "logging/setLevel",
    "completion/complete", "resources/read", "sampling/createMessage",
]  # fmt: skip

_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_text = st.text(st.characters(codec="utf-8") | _surrogates, max_size=30) | st.text(max_size=30)
_numbers = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
_scalars = st.none() | st.booleans() | _numbers | _text
json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_text, inner, max_size=5),
    max_leaves=30,
)
_ids = st.integers() | _text | st.none() | st.booleans() | st.floats(allow_nan=False) | st.lists(_numbers)
_ids = _ids.filter(lambda v: not (isinstance(v, str) and v.startswith("ping-")))  # the session's own ids
_ARG_NAMES = ["repo", "query", "section_id", "doc_path", "limit", "section_ids", "max_tokens"]


@st.composite
def jsonrpc_shapes(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]))}
    method = draw(st.sampled_from(METHODS) | _text)
    if draw(st.booleans()):
        message["method"] = method
    if draw(st.booleans()):
        message["id"] = draw(_ids)
    if method == "tools/call" and draw(st.booleans()):
        arguments = draw(st.dictionaries(st.sampled_from(_ARG_NAMES) | _text, json_values))
        message["params"] = {"name": draw(st.sampled_from(SAFE_TOOLS)), "arguments": arguments}
    elif draw(st.booleans()):
        message["params"] = draw(json_values)
    if draw(st.integers(0, 5)) == 0:
        message[draw(st.sampled_from(["result", "error"]))] = draw(json_values)
    return message


def _encode(value: Any, ascii_only: bool) -> bytes:
    text = json.dumps(value, ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")  # raw surrogates become invalid UTF-8 on purpose


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioSession]:
    with StdioSession(tmp_path_factory.mktemp("fuzz") / "home") as server:
        yield server


def _check(session: StdioSession, data: bytes) -> None:
    session.send(data + b"\n")
    session.ping()  # answered, and every line before it was a protocol message
    assert session.proc.poll() is None


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes(session: StdioSession, data: bytes) -> None:
    _check(session, data)


@FUZZ
@given(value=json_values, ascii_only=st.booleans())
def test_random_json(session: StdioSession, value: Any, ascii_only: bool) -> None:
    _check(session, _encode(value, ascii_only))


@FUZZ
@given(message=jsonrpc_shapes(), ascii_only=st.booleans())
def test_jsonrpc_shapes(session: StdioSession, message: dict[str, Any], ascii_only: bool) -> None:
    _check(session, _encode(message, ascii_only))
