"""Units of the wire rules: message checks, Accept negotiation, Host syntax, per-repo call order."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from docmunch.serve._http import parse_host_header
from docmunch.serve._jsonrpc import (
    INVALID_REQUEST,
    MCP_JSON_MAX_DEPTH,
    PARSE_ERROR,
    Rejection,
    decode_message,
    max_message_bytes,
    scan_id,
)
from docmunch.serve._negotiate import EITHER, JSON, SSE, choose_reply_type, quality
from docmunch.serve._order import CallOrder, Footprint, RepoKey, footprint

# --- decode_message ------------------------------------------------------------------------------


def _rejected(raw: bytes, **kw: int) -> Rejection:
    result = decode_message(raw, **kw)
    assert isinstance(result, Rejection), result
    json.loads(result.to_line())  # always a valid JSON line
    return result


@pytest.mark.parametrize(
    ("raw", "found"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"' + b"x" * 200_000 + b'"}}', 7),
        (b'  {  "id" : "a\\"b" , "x":[]}', 'a"b'),
        (b'{"method":"ping","params":{"id":9,"pad":"' + b"x" * 200_000 + b'"},"id":-3}\r\n', -3),
        (b'{"method":"ping","params":{"id":9},"jsonrpc":"2.0"}', None),  # only a nested "id"
        (b'{"a":"x\\"id\\":5"}', None),  # "id" inside a string
        (b'{"id":true}', None),
        (b'{"id":1.5}', None),  # JSON-RPC allows it, MCP does not
        (b'{"id":{"a":1}}', None),
        (b'{"id":"\\ud800"}', None),
        (b"[1,2]", None),
        (b'"' + b"a" * 200_000, None),
        (b"\xff\xfe", None),
    ],
)  # fmt: skip
def test_scan_id_reads_a_top_level_id_at_either_end(raw: bytes, found: object) -> None:
    assert scan_id(raw) == found


def test_scan_id_with_the_ends_of_a_dropped_line() -> None:
    head, tail = b'{"jsonrpc":"2.0","method":"ping","params":{"pad":"aaaa', b'aaaa"},"id":"end"}'
    assert scan_id(head, tail) == "end"
    assert scan_id(b'{"jsonrpc":"2.0","id":4,"params":{"pad":"aa', b'aa"},"id":5}') == 4  # the head first


def test_valid_messages_pass_through() -> None:
    request = decode_message(b'{"jsonrpc":"2.0","id":7,"method":"ping"}\r\n')
    assert isinstance(request, types.JSONRPCRequest) and request.id == 7
    note = decode_message(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert isinstance(note, types.JSONRPCNotification)
    pair = '{"jsonrpc":"2.0","id":"a","method":"x","params":{"q":"\\ud83e\\udd80 🦀"}}'
    emoji = decode_message(pair.encode())
    assert isinstance(emoji, types.JSONRPCRequest)  # a surrogate *pair* is one character
    assert decode_message(b"  \r\n") is None


@pytest.mark.parametrize("depth", [MCP_JSON_MAX_DEPTH + 1, 2000, 200_000])
def test_deep_nesting_is_a_parse_error(depth: int) -> None:
    raw = ("[" * depth + "]" * depth).encode()
    rejection = _rejected(raw, limit=10**7)
    assert rejection.code == PARSE_ERROR and str(MCP_JSON_MAX_DEPTH) in rejection.message
    params = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + "[" * depth + "]" * depth + "}}"
    assert _rejected(params.encode(), limit=10**7).code == PARSE_ERROR


def test_nesting_at_the_limit_and_brackets_in_strings_are_fine() -> None:
    inner = "[" * (MCP_JSON_MAX_DEPTH - 2) + "]" * (MCP_JSON_MAX_DEPTH - 2)
    ok = decode_message(f'{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{inner}}}}}'.encode())
    assert isinstance(ok, types.JSONRPCRequest)
    text = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"q": "[" * 5000 + '\\"{'}})
    assert isinstance(decode_message(text.encode()), types.JSONRPCRequest)


def test_depth_limit_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = ("[" * 100 + "]" * 100).encode()
    monkeypatch.setenv("DOCMUNCH_MCP_JSON_MAX_DEPTH", "200")
    assert "not supported" in _rejected(raw).message  # past the depth check: a batch
    monkeypatch.setenv("DOCMUNCH_MCP_JSON_MAX_DEPTH", "nonsense")
    assert _rejected(raw).code == PARSE_ERROR


@pytest.mark.parametrize(
    ("raw", "request_id"),
    [
        (b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', None),
        (b'{"jsonrpc":"2.0","id":3,"method":"\\udfff"}', 3),
        (b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"\\ud800k":1}}', 4),
        (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"q":"a\\udc00b"}}', 5),
    ],
)
def test_lone_surrogates_are_invalid_requests(raw: bytes, request_id: int | None) -> None:
    rejection = _rejected(raw)
    assert rejection.code == INVALID_REQUEST and rejection.request_id == request_id
    assert "surrogate" in rejection.message


@pytest.mark.parametrize(
    ("id_json", "echoed"),
    [("[1]", None), ('{"a":1}', None), ("true", None), ("null", None), ("1.5", 1.5)],
)
def test_request_ids_of_the_wrong_type_are_answered(id_json: str, echoed: object) -> None:
    rejection = _rejected(f'{{"jsonrpc":"2.0","id":{id_json},"method":"ping"}}'.encode())
    assert rejection.code == INVALID_REQUEST and rejection.request_id == echoed


@pytest.mark.parametrize(
    "raw",
    [b"\xff\xfe\x00", b'{"jsonrpc":"2.0","id":1,"method":"pi', b"NaN", b'{"a":Infinity}', b'{"x":1e999}',
     b"1" * 5000],
)  # fmt: skip
def test_unreadable_json_is_a_parse_error(raw: bytes) -> None:
    assert _rejected(raw).code == PARSE_ERROR


@pytest.mark.parametrize(
    "obj",
    [[], [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], 5, "x", {"hello": 1},
     {"jsonrpc": "1.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 1, "method": ""},
     {"jsonrpc": "2.0", "id": 1, "method": 7}, {"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]},
     {"jsonrpc": "2.0", "id": [], "result": {}}],
)  # fmt: skip
def test_non_jsonrpc_shapes_are_invalid_requests(obj: object) -> None:
    assert _rejected(json.dumps(obj).encode()).code == INVALID_REQUEST


def test_size_limit_counts_bytes_and_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"q": "文" * 30000}}).encode()
    assert isinstance(decode_message(raw), types.JSONRPCRequest)
    rejection = _rejected(raw, limit=len(raw) - 1)
    assert rejection.code == PARSE_ERROR and "DOCMUNCH_MCP_MESSAGE_MAX_BYTES" in rejection.message
    monkeypatch.setenv("DOCMUNCH_MCP_MESSAGE_MAX_BYTES", "70000")
    assert max_message_bytes() == 70000
    assert _rejected(raw).code == PARSE_ERROR  # 90,000 bytes of UTF-8 for 30,000 characters


# --- Accept --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "choice"),
    [
        ("application/json, text/event-stream", EITHER),
        ("application/json", JSON),
        ("text/event-stream", SSE),
        ("*/*", EITHER),
        (None, EITHER),
        ("", EITHER),
        ("application/*", JSON),
        ("text/*", SSE),
        ("text/html", None),
        ("application/xml, text/plain", None),
        ("application/json;q=0, text/event-stream", SSE),
        ("application/json;q=0, text/event-stream;q=0", None),
        ("*/*;q=0", None),
        ("*/*;q=0, application/json", JSON),  # the most specific range decides
        ("application/json;q=0.2, text/*;q=0.5", SSE),
        ("application/json;q=0.9, text/event-stream;q=0.5", JSON),
        ("Application/JSON; charset=utf-8", JSON),
        ('application/json;foo="a,b";q=1, text/event-stream;q=0.1', JSON),
        ("application/json;q=2", None),  # an invalid qvalue drops the element
        ("json, text/event-stream", SSE),  # an element without a slash is skipped
    ],
)
def test_accept_negotiation(accept: str | None, choice: str | None) -> None:
    assert choose_reply_type(accept) == choice


def test_quality_uses_the_most_specific_range() -> None:
    assert quality("text/*;q=0.3, text/event-stream;q=0.8, */*;q=0.1", SSE) == (0.8, 3)
    assert quality("text/*;q=0.3, */*;q=0.1", SSE) == (0.3, 2)
    assert quality("text/*;q=0.3, */*;q=0.1", JSON) == (0.1, 1)


# --- Host ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("localhost", ("localhost", None)),
        ("localhost:", ("localhost", None)),
        ("[::1]:80", ("::1", 80)),
        ("[::1]", ("::1", None)),
        ("[v1.fe]:1", ("v1.fe", 1)),
        ("docs.example.org", ("docs.example.org", None)),
        ("xn--bcher-kva.example:443", ("xn--bcher-kva.example", 443)),
    ],
)
def test_well_formed_hosts(value: str, parsed: tuple[str, int | None]) -> None:
    assert parse_host_header(value) == parsed


@pytest.mark.parametrize(
    "value",
    ["", ":80", "127.0.0.1:abc", "127.0.0.1:99999", "127.0.0.1:-1", "[::1", "[::1]x", "[nothex]",
     "[fe80::1%25en0]", "localhost@evil.example", "a b", "host/path", "host?q", "host#f", "user:pw@host",
     "127.0.0.1:8080:80",
     "caf\u00e9.example", "x:\u0661\u0662", "%zz"],
)  # fmt: skip
def test_malformed_hosts_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        parse_host_header(value)


# --- call order ----------------------------------------------------------------------------------


def test_footprints() -> None:
    assert footprint("extract_url", {"url": "http://x/"}) is None
    assert footprint("search_sections", {"query": "q"}) == Footprint(False, None)
    assert footprint("list_repos", {}) == Footprint(False, None)
    assert footprint("get_toc", {"repo": "py@3.12"}) == Footprint(False, (RepoKey("py"),))
    assert footprint("delete_index", {"repo": "a"}) == Footprint(True, (RepoKey("a"),))
    named = footprint("index_local", {"path": "/x/docs", "name": "mine"})
    assert named == Footprint(True, (RepoKey("mine"),))
    assert footprint("index_url", {"url": "http://127.0.0.1:8731/docs/"}) == Footprint(
        True, (RepoKey("127.0.0.1", prefix=True),)
    )
    assert footprint("index_repo", {"url": "rust-lang/book"}) == Footprint(
        True, (RepoKey("book", prefix=True), RepoKey("rust-lang", prefix=True))
    )
    assert footprint("index_local", {"path": 5}) == Footprint(True, None)
    # a section read without ``repo`` reads the repos its ids name, not every repo (a new user's
    # trial: get_section without repo waited 3.6 s for an index run of another repo)
    assert footprint("get_section", {"section_id": "rust@2::ch01.md::intro#2"}) == Footprint(
        False, (RepoKey("rust"),)
    )
    assert footprint("get_section_context", {"section_id": "k8s::a.md::b#2"}) == Footprint(
        False, (RepoKey("k8s"),)
    )
    ids = {"section_ids": ["b::x.md::y#1", "a::x.md::y#1", "b::z.md::_preamble#0"]}
    assert footprint("get_sections", ids) == Footprint(False, (RepoKey("a"), RepoKey("b")))
    assert footprint("get_sections", {"section_ids": ["a::x.md::y#1", "no-repo"]}) == Footprint(False, None)
    assert footprint("get_section", {"section_id": "::x.md::y#1"}) == Footprint(False, None)
    assert footprint("get_sections", {"section_ids": []}) == Footprint(False, None)


def test_unnamed_local_writes_cover_the_names_the_indexer_gives(tmp_path: Path) -> None:
    folder = tmp_path / "guide"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n")
    fp = footprint("index_local", {"path": str(folder)})
    assert fp is not None and RepoKey("guide") in (fp.repos or ())
    fp = footprint("index_local", {"path": str(folder / "a.md")})
    assert fp is not None and RepoKey("guide") in (fp.repos or ())


def test_repo_keys_overlap_at_word_boundaries() -> None:
    host = RepoKey("127.0.0.1", prefix=True)
    assert host.overlaps(RepoKey("127.0.0.1")) and host.overlaps(RepoKey("127.0.0.1:8731"))
    assert not host.overlaps(RepoKey("127.0.0.10"))
    assert not RepoKey("docs").overlaps(RepoKey("docs-v2"))
    assert RepoKey("docs", prefix=True).overlaps(RepoKey("docs-v2"))


def test_call_order_is_a_per_repo_reader_writer_fifo() -> None:
    """Arrival: read A (1), write A (2), read A (3), read B (4), write B (5), search all (6)."""
    events: list[str] = []

    async def scenario() -> None:
        order = CallOrder()
        calls = [
            (1, "get_toc", {"repo": "A"}),
            (2, "delete_index", {"repo": "A"}),
            (3, "get_toc", {"repo": "A"}),
            (4, "get_toc", {"repo": "B"}),
            (5, "delete_index", {"repo": "B"}),
            (6, "search_sections", {"query": "q"}),
        ]
        for rid, tool, args in calls:
            order.admit(rid, "tools/call", {"name": tool, "arguments": args})
        release = {rid: anyio.Event() for rid, _, _ in calls}

        async def run(rid: int, tool: str, args: dict[str, str]) -> None:
            async with order.turn(rid, tool, args):
                events.append(f"start {rid}")
                await release[rid].wait()
            events.append(f"end {rid}")

        async with anyio.create_task_group() as tg:
            for call in reversed(calls):  # dispatch order must not matter, arrival order does
                tg.start_soon(run, *call)
            await anyio.wait_all_tasks_blocked()
            assert sorted(events) == ["start 1", "start 4"]  # reads of A before the write, of B
            release[4].set()
            await anyio.wait_all_tasks_blocked()
            assert "start 5" in events and "start 2" not in events  # write B waited for read B
            release[1].set()
            await anyio.wait_all_tasks_blocked()
            assert "start 2" in events and "start 3" not in events and "start 6" not in events
            release[2].set()
            release[5].set()
            await anyio.wait_all_tasks_blocked()
            assert "start 3" in events and "start 6" in events  # both reads run together
            release[3].set()
            release[6].set()

    anyio.run(scenario)


def test_a_reply_without_a_handler_releases_the_call() -> None:
    async def scenario() -> None:
        order = CallOrder()
        order.admit(1, "tools/call", {"name": "delete_index", "arguments": {"repo": "A"}})
        order.admit(2, "tools/call", {"name": "get_toc", "arguments": {"repo": "A"}})
        with anyio.fail_after(5):
            order.finish(1)  # the SDK answered 1 itself (e.g. invalid params)
            async with order.turn(2, "get_toc", {"repo": "A"}):
                pass

    anyio.run(scenario)


# --- hints for the agent -------------------------------------------------------------------------


def test_cli_hints_become_server_settings_for_the_agent() -> None:
    from docmunch.serve._hints import ALLOW_PRIVATE_HINT, PASSWORD_HINT, for_agent

    blocked = "127.0.0.1 is a loopback address; use --allow-private to fetch from private networks"
    assert for_agent(blocked) == f"127.0.0.1 is a loopback address; {ALLOW_PRIVATE_HINT}"
    cli = "pass its password with --password-stdin (or --password PW)"  # the core's wording
    assert for_agent(f"encrypted PDF; {cli}") == f"encrypted PDF; {PASSWORD_HINT}"
    wrong = for_agent(f"wrong password for encrypted PDF; {cli}")
    assert wrong == f"wrong password for encrypted PDF; {PASSWORD_HINT}" and "(or --password" not in wrong
    assert for_agent("unknown repo 'x'") == "unknown repo 'x'"


def test_a_source_changed_note_names_what_an_agent_can_call() -> None:
    """The index report's note is written for a terminal (a second trial: over MCP it told the
    agent to run ``docmunch refresh`` and pass ``--repo``)."""
    from docmunch.index.indexer import _source_changed
    from docmunch.serve._hints import for_agent

    note = _source_changed("fold", "/x/A", "/y/a2.md")["message"]
    assert "`docmunch refresh fold`" in note and note.endswith("`docmunch index /x/A --repo fold --replace`")
    told = for_agent(note)
    assert told.endswith("delete_index fold, then call index_local with path /x/A, name fold")
    assert "so a refresh re-reads only that file" in told and "docmunch" not in told and "--" not in told
    crawl = "to refresh it, run `docmunch index http://h/docs/ --repo s --crawl --allow-private`"
    assert for_agent(crawl) == "to refresh it, call index_url with url http://h/docs/, name s, crawl true"


def test_the_refusal_to_replace_a_source_names_no_cli_flag() -> None:
    from docmunch.serve._hints import for_agent

    core = (
        "repo 'same' holds /x/A, not /x/B: indexing it would replace its documents (pass --replace "
        "to do that, or choose another name with --repo)"
    )
    told = for_agent(core)
    assert "--" not in told and told.endswith("choose another name, or delete_index it first)")
