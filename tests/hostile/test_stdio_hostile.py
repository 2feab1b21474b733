"""Hostile stdin lines against the real ``docmunch serve`` (stdio): answered, never fatal.

Each input is generated here. After each, the same server process must still answer a ping,
every stdout line must be a JSON-RPC message, and the process must exit 0 at stdin EOF with no
traceback. The limits exercised are ``MCP_MESSAGE_MAX_BYTES`` (4 MiB) and ``MCP_JSON_MAX_DEPTH``
(64) of ``docmunch/serve/_jsonrpc.py``.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.serve.conftest import REPO_ROOT, SERVE_CMD, connect, server_env
from tests.serve.stdio_session import StdioSession, protocol_message

pytestmark = pytest.mark.timeout(300)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioSession]:
    """One server for the module: every case must leave it answering for the next."""
    with StdioSession(tmp_path_factory.mktemp("hostile") / "home") as server:
        yield server


def _errors(messages: list[dict[str, Any]]) -> list[tuple[Any, int]]:
    return [(m["id"], m["error"]["code"]) for m in messages if "error" in m]


def test_the_issue_reproduction_exits_0(tmp_path: Path) -> None:
    """``python3 -c "print('['*2000+']'*2000)" | docmunch serve`` used to exit 1."""
    proc = subprocess.run(
        SERVE_CMD,
        input=("[" * 2000 + "]" * 2000 + "\n").encode(),
        capture_output=True,
        env=server_env(tmp_path / "home"),
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    reply = protocol_message(lines[0])
    assert reply["id"] is None and reply["error"]["code"] == PARSE_ERROR
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "text",
    [
        "[" * 2000 + "]" * 2000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        "[" * 300_000,  # unbalanced too
    ],
    ids=["arrays-2000", "objects-100k", "unclosed-300k"],
)
def test_deep_json(session: StdioSession, text: str) -> None:
    session.send(text.encode() + b"\n")
    assert _errors(session.ping()) == [(None, PARSE_ERROR)]


@pytest.mark.parametrize(
    ("text", "request_id"),
    [
        ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + "[" * 5000 + "]" * 5000 + "}}", 1),
        ('{"method":"ping","params":{"x":' + "[" * 5000 + "]" * 5000 + '},"jsonrpc":"2.0","id":"z"}', "z"),
        ('{"jsonrpc":"2.0","method":"ping","params":{"id":9,"x":' + "[" * 5000 + "]" * 5000 + "}}", None),
    ],
    ids=["id-first", "id-last", "id-only-nested"],
)  # fmt: skip
def test_deep_json_answers_the_request_id(session: StdioSession, text: str, request_id: Any) -> None:
    """Valid JSON refused only for its depth may be a request an SDK waits on: its id is
    answered (read from the message's ends, as the Python and TypeScript SDKs place it)."""
    session.send(text.encode() + b"\n")
    assert _errors(session.ping()) == [(request_id, PARSE_ERROR)]


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', (None, INVALID_REQUEST)),
        (b'{"jsonrpc":"2.0","id":"x\\udfffy","method":"ping"}', (None, INVALID_REQUEST)),
        (b'{"jsonrpc":"2.0","id":21,"method":"\\ud800"}', (21, INVALID_REQUEST)),
        (b'{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"search_sections",'
         b'"arguments":{"query":"\\ud83d"}}}', (22, INVALID_REQUEST)),
        (b'{"jsonrpc":"2.0","id":23,"method":"ping","params":{"\\udc80":1}}', (23, INVALID_REQUEST)),
        (b'{"jsonrpc":"2.0","method":"notifications/\\ud800"}', (None, INVALID_REQUEST)),
    ],
)  # fmt: skip
def test_lone_surrogates(session: StdioSession, frame: bytes, expected: tuple[Any, int]) -> None:
    session.send(frame + b"\n")
    before = session.ping()
    assert _errors(before) == [expected]
    assert "surrogate" in before[0]["error"]["message"]


@pytest.mark.parametrize(
    ("id_json", "echoed"),
    [("[1]", None), ('{"a":1}', None), ("true", None), ("false", None), ("null", None), ("1.5", 1.5),
     ("[]", None)],
)  # fmt: skip
def test_invalid_id_types_get_exactly_one_reply(session: StdioSession, id_json: str, echoed: Any) -> None:
    session.send(f'{{"jsonrpc":"2.0","id":{id_json},"method":"tools/list"}}\n'.encode())
    assert _errors(session.ping()) == [(echoed, INVALID_REQUEST)]


def test_odd_but_valid_ids_are_served(session: StdioSession) -> None:
    for request_id in ["", "文档 🦀", 0, -1, 2**62]:
        reply = session.call(request_id, "list_repos", {})
        assert reply["id"] == request_id and "result" in reply


def test_huge_lines(session: StdioSession) -> None:
    over = 4 * 2**20 + 1
    session.send(b'"' + b"a" * over + b'"\n')  # one line over the 4 MiB limit
    session.send(b"x" * (9 * 2**20) + b"\n")  # not JSON either, and far over
    errors = session.ping()
    assert _errors(errors) == [(None, PARSE_ERROR)] * 2
    assert all("exceeds the limit" in m["error"]["message"] for m in errors)
    first = json.dumps({"jsonrpc": "2.0", "id": 32, "method": "ping", "params": {"pad": "d" * over}})
    pad = {"pad": "e" * (5 * 2**20), "id": 9}
    last = json.dumps({"method": "ping", "params": pad, "jsonrpc": "2.0", "id": "z"})
    session.send(first.encode() + b"\n" + last.encode() + b"\n")  # requests an SDK would wait on
    assert _errors(session.ping()) == [(32, PARSE_ERROR), ("z", PARSE_ERROR)]
    under = json.dumps({"jsonrpc": "2.0", "id": 31, "method": "ping", "params": {"pad": "b" * (3 * 2**20)}})
    session.send(under.encode() + b"\n")
    assert session.expect_reply(31)[0]["result"] == {}


def test_a_lower_limit_from_the_environment(tmp_path: Path) -> None:
    with StdioSession(tmp_path / "home", DOCMUNCH_MCP_MESSAGE_MAX_BYTES="65536") as server:
        big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "c" * 70_000}})
        server.send(big.encode() + b"\n")
        errors = server.ping()
        assert _errors(errors) == [(1, PARSE_ERROR)] and "65536" in errors[0]["error"]["message"]


@pytest.mark.parametrize(
    "frame",
    [
        b"\xff\xfe\xfd",
        b'{"jsonrpc":"2.0","id":41,"method":"ping","params":{"q":"\xc0\xaf"}}',  # overlong "/"
        b'{"jsonrpc":"2.0","id":42,"method":"ping","params":{"q":"\xed\xa0\x80"}}',  # CESU surrogate
        b'{"jsonrpc":"2.0","id":43,"method":"ping","params":{"q":"\xe6\x96"}}',  # truncated sequence
        b"\xef\xbb\xbf\xff",
    ],
)
def test_invalid_utf8(session: StdioSession, frame: bytes) -> None:
    session.send(frame + b"\n")
    before = session.ping()
    assert _errors(before) == [(None, PARSE_ERROR)] and "UTF-8" in before[0]["error"]["message"]


def test_binary_garbage(session: StdioSession) -> None:
    rng = random.Random(1912)
    blobs = [rng.randbytes(rng.randint(1, 4096)) for _ in range(40)]
    blobs += [b"\x00" * 1000, b"\r\r\r", b"\x1b[2J\x1b[31m", bytes(range(256)) * 4]
    expected_lines = 0
    for blob in blobs:
        session.send(blob + b"\n")
        expected_lines += sum(1 for part in (blob + b"\n").split(b"\n")[:-1] if part.strip(b" \t\r"))
    before = session.ping()
    assert len(before) == expected_lines  # one answer per non-blank line, none lost
    assert all(m["id"] is None and m["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST) for m in before)


def test_a_burst_of_bad_lines_loses_no_good_request(session: StdioSession) -> None:
    frames = []
    for i in range(300):
        frames.append(b"[" * (100 + i) + b"\n")
        frames.append(json.dumps({"jsonrpc": "2.0", "id": 1000 + i, "method": "ping"}).encode() + b"\n")
    session.send(b"".join(frames))
    before = session.ping()
    answered = {m["id"] for m in before if "result" in m}
    assert answered == set(range(1000, 1300))
    assert len(_errors(before)) == 300


def test_garbage_without_a_final_newline_is_still_answered(tmp_path: Path) -> None:
    proc = subprocess.run(
        SERVE_CMD,
        input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n\xff\x00 trailing garbage',
        capture_output=True,
        env=server_env(tmp_path / "home"),
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0
    replies = {r["id"]: r for r in (protocol_message(raw) for raw in proc.stdout.splitlines())}
    assert len(replies) == 2 and replies[1]["result"] == {}
    assert replies[None]["error"]["code"] == PARSE_ERROR


def test_the_session_still_serves_tools_after_everything(session: StdioSession) -> None:
    reply = session.call(99, "search_sections", {"query": "anything at all"})
    assert reply["result"]["structuredContent"]["results"] == []
    assert all(raw.endswith(b"\n") for raw in session.raw_lines)


def test_an_sdk_call_over_the_limit_gets_its_error(tmp_path: Path) -> None:
    """The SDK's client waits for the reply to its request's id: a request over the size limit
    must end that wait with an error, not leave the call hanging."""

    async def scenario() -> str:
        async with connect(tmp_path / "home", "auto", DOCMUNCH_MCP_MESSAGE_MAX_BYTES="65536") as client:
            with anyio.fail_after(60):
                try:
                    await client.call_tool("search_sections", {"query": "drain " * 20_000})
                except MCPError as err:
                    message = str(err)
                else:
                    message = ""
                assert (await client.call_tool("list_repos", {})).is_error is False  # still serving
            return message

    assert "exceeds the limit of 65536 bytes" in anyio.run(scenario)
