"""Pure pieces of the server: response ceiling, bind parsing, HTTP guard rules, GitHub specs."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from docmunch.errors import DocmunchError, SourceError
from docmunch.serve._context import ToolOutput
from docmunch.serve._handlers import github_spec
from docmunch.serve._http import HttpGuard, HttpOptions, is_loopback_host, parse_bind
from docmunch.serve._server import apply_ceiling, result_limit, result_size
from docmunch.serve._tools import INSTRUCTIONS, TOOLS


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def test_ceiling_keeps_small_results_untouched() -> None:
    output = ToolOutput({"items": [1, 2, 3]}, list_key="items")
    assert apply_ceiling(output, 4096) is output.payload


def test_ceiling_shortens_lists_and_points_next_offset_after_the_kept_items() -> None:
    items = [{"id": f"s{i}", "title": "x" * 50} for i in range(500)]
    output = ToolOutput(
        {"sections": items, "total": 500, "offset": 100, "next_offset": 600}, list_key="sections"
    )
    cut = apply_ceiling(output, 4096)
    assert _size(cut) <= 4096
    kept = len(cut["sections"])
    assert 0 < kept < 500 and cut["sections"] == items[:kept]
    assert cut["truncated"] is True and cut["next_offset"] == 100 + kept


@pytest.mark.parametrize("text", ["a" * 20000, "文" * 9000, '🦀\n"\\' * 5000])
def test_ceiling_cuts_text_on_a_character_boundary(text: str) -> None:
    output = ToolOutput({"id": "x", "content": text}, text_key="content")
    cut = apply_ceiling(output, 4096)
    assert _size(cut) <= 4096 and cut["truncated"] is True
    assert text.startswith(cut["content"]) and len(cut["content"]) > 100


def test_ceiling_replaces_unshrinkable_results_with_a_message() -> None:
    cut = apply_ceiling(ToolOutput({"blob": {"a": "b" * 10000}}), 4096)
    assert cut["truncated"] is True and "narrow the request" in cut["message"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("127.0.0.1:8765", ("127.0.0.1", 8765)), ("[::1]:0", ("::1", 0)), (":9000", ("127.0.0.1", 9000))],
)
def test_parse_bind(spec: str, expected: tuple[str, int]) -> None:
    assert parse_bind(spec) == expected


@pytest.mark.parametrize("spec", ["8765", "host:", "host:http", "127.0.0.1:70000"])
def test_parse_bind_rejects(spec: str) -> None:
    with pytest.raises(DocmunchError, match="HOST:PORT"):
        parse_bind(spec)


def test_loopback_hosts() -> None:
    assert all(
        map(is_loopback_host, ["127.0.0.1", "127.8.9.1", "localhost", "[::1]", "::1", "app.localhost"])
    )
    assert not any(map(is_loopback_host, ["0.0.0.0", "10.0.0.1", "localhost.evil.com", "evil.com", ""]))


def test_remote_bind_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCMUNCH_TOKEN", raising=False)
    with pytest.raises(DocmunchError, match="--allow-remote"):
        HttpOptions.from_args("0.0.0.0:8765", allow_remote=False)
    with pytest.raises(DocmunchError, match="DOCMUNCH_TOKEN"):
        HttpOptions.from_args("0.0.0.0:8765", allow_remote=True)
    monkeypatch.setenv("DOCMUNCH_TOKEN", "t0ken")
    options = HttpOptions.from_args("0.0.0.0:8765", allow_remote=True)
    assert options.token == "t0ken" and not options.loopback


def _guard_status(options: HttpOptions, headers: dict[str, str]) -> int:
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        sent.append({"type": "http.response.start", "status": 200})

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    anyio.run(HttpGuard(app, options), scope, receive, send)
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


def test_guard_rules() -> None:
    local = HttpOptions("127.0.0.1", 8765, None, True, frozenset({"https://ok.example"}))
    assert _guard_status(local, {"host": "127.0.0.1:8765"}) == 200
    assert _guard_status(local, {"host": "localhost:8765", "origin": "http://localhost:6274"}) == 200
    assert _guard_status(local, {"host": "127.0.0.1:8765", "origin": "https://ok.example"}) == 200
    assert _guard_status(local, {"host": "127.0.0.1:8765", "origin": "http://evil.example"}) == 403
    assert _guard_status(local, {"host": "127.0.0.1:8765", "origin": "http://localhost.evil.example"}) == 403
    assert _guard_status(local, {"host": "127.0.0.1:8765", "origin": "null"}) == 403
    assert _guard_status(local, {"host": "rebound.evil.example:8765"}) == 421
    remote = HttpOptions("0.0.0.0", 8765, "t0ken", False, frozenset())
    assert _guard_status(remote, {"host": "192.0.2.1:8765"}) == 401
    assert _guard_status(remote, {"host": "192.0.2.1:8765", "authorization": "Bearer wrong"}) == 401
    assert _guard_status(remote, {"host": "192.0.2.1:8765", "authorization": "Bearer t0ken"}) == 200
    assert (
        _guard_status(remote, {"host": "x", "authorization": "Bearer t0ken", "origin": "http://evil.example"})
        == 403
    )


@pytest.mark.parametrize(
    ("url", "ref", "spec"),
    [
        ("rust-lang/book", None, "github:rust-lang/book"),
        ("https://github.com/rust-lang/book.git", "main", "github:rust-lang/book@main"),
        ("github:o/n@v1.2", None, "github:o/n@v1.2"),
    ],
)
def test_github_spec(url: str, ref: str | None, spec: str) -> None:
    assert github_spec(url, ref) == spec


def test_github_spec_rejects_other_hosts() -> None:
    with pytest.raises(SourceError, match="not a GitHub repository"):
        github_spec("https://gitlab.com/o/n", None)


def test_catalogue_is_consistent() -> None:
    assert len(INSTRUCTIONS) < 1000
    names = [t.name for t in TOOLS]
    assert len(set(names)) == len(names) == 15
    for spec in TOOLS:
        assert set(spec.input_schema.get("required", [])) <= set(spec.input_schema["properties"])
        assert spec.name in INSTRUCTIONS or spec.name in {"index_repo", "delete_index"}


@pytest.mark.parametrize("text", ["a" * 200_000, "文" * 90_000, '🦀\n"\\' * 50_000])
def test_ceiling_on_the_whole_result_holds_and_keeps_most_of_what_fits(text: str) -> None:
    output = ToolOutput({"id": "x", "content": text}, text_key="content", resumable=True)
    limit = result_limit(65_536, "request-1", {"citation": {"repo": "r"}})
    cut = apply_ceiling(output, limit, result_size)
    assert result_size(cut) <= limit and cut["truncated"] is True
    assert text.startswith(cut["content"]) and cut["next_offset"] == len(cut["content"].encode())
    # the payload goes out twice, so about half the limit is text (less its escapes), not a quarter
    assert result_size(cut) > 0.9 * limit
