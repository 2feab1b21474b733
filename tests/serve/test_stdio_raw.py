"""Raw-pipe tests: hand-written JSON-RPC lines into a real ``docmunch serve`` process.

Every stdout line must be a JSON-RPC 2.0 message, bad lines get an error answer and the
session goes on (the final ``ping`` is answered).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import INIT, INITIALIZED, line, run_raw, server_env

pytestmark = pytest.mark.timeout(90)

FINAL_PING = line({"jsonrpc": "2.0", "id": "final", "method": "ping"})


def _is_jsonrpc(msg: dict[str, Any]) -> bool:
    if msg.get("jsonrpc") != "2.0":
        return False
    if "method" in msg:
        return isinstance(msg["method"], str)
    return "id" in msg and (("result" in msg) ^ ("error" in msg))


def _by_id(messages: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {m["id"]: m for m in messages if "id" in m and "method" not in m and m["id"] is not None}


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    return line(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
    )


def test_malformed_lines_between_valid_messages(tmp_path: Path) -> None:
    frames = [
        line(INIT),
        b"this is not json\n",
        line(INITIALIZED),
        b'{"jsonrpc":"2.0","id":7,"method":"pi\n',  # truncated frame
        b"\n   \n",  # blank lines are ignored
        b'{"hello":"world"}\n',  # JSON, not JSON-RPC
        b'[{"jsonrpc":"2.0","id":8,"method":"ping"}]\n',  # batches are not MCP
        line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        b'{"jsonrpc":"2.0","id":3,"method":"no/such/method"}\n',
        FINAL_PING,
    ]
    messages, stderr = run_raw(frames, server_env(tmp_path / "home"))
    assert all(_is_jsonrpc(m) for m in messages), messages
    codes = [m["error"]["code"] for m in messages if "error" in m and m["id"] is None]
    assert codes.count(-32700) == 2, codes
    assert codes.count(-32600) == 2, codes
    answers = _by_id(messages)
    assert answers[1]["result"]["instructions"]
    assert len(answers[2]["result"]["tools"]) == 15
    assert answers[3]["error"]["code"] == -32601
    assert answers["final"]["result"] == {}
    assert "Invalid Request" in stderr and "Parse error" in stderr


def test_invalid_utf8_lines_get_parse_errors(tmp_path: Path) -> None:
    frames = [
        line(INIT),
        line(INITIALIZED),
        b"\xff\xfe\x00garbage\n",
        # a bad byte inside a JSON string
        b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"x":"\xc3\x28"}}}\n',
        b'{"jsonrpc":"2.0","id":6,"method":"ping"}\r\n',  # CRLF framing is tolerated
        FINAL_PING,
    ]
    messages, stderr = run_raw(frames, server_env(tmp_path / "home"))
    assert all(_is_jsonrpc(m) for m in messages), messages
    parse_errors = [m for m in messages if "error" in m and m["error"]["code"] == -32700]
    assert len(parse_errors) == 2
    assert all("UTF-8" in m["error"]["message"] for m in parse_errors)
    answers = _by_id(messages)
    assert 5 not in answers  # the bad frame was refused, not half-decoded
    assert answers[6]["result"] == {}
    assert answers["final"]["result"] == {}
    assert "not valid UTF-8" in stderr


STRINGS = ["文档搜索", "🦀🚀✨", "Документация", "ドキュメント 한국어 Ελληνικά"]


@pytest.mark.parametrize(
    "env_extra", [{"PYTHONIOENCODING": "cp1252"}, {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"}]
)
def test_non_ascii_round_trips_under_hostile_locale(tmp_path: Path, env_extra: dict[str, str]) -> None:
    env = server_env(tmp_path / "home", DOCMUNCH_LOG="debug", **env_extra)
    frames = [line(INIT), line(INITIALIZED)]
    for i, text in enumerate(STRINGS):
        frames.append(_call(10 + i, text, {}))  # unknown tool: the name is echoed back
        frames.append(
            _call(20 + i, "search_sections", {"query": text, "max_results": text})
        )  # schema error echoes
    frames.append(FINAL_PING)
    messages, stderr = run_raw(frames, env)
    assert all(_is_jsonrpc(m) for m in messages), messages
    answers = _by_id(messages)
    for i, text in enumerate(STRINGS):
        unknown = answers[10 + i]["result"]
        assert unknown["isError"] is True
        assert f"unknown tool {text!r}" in unknown["content"][0]["text"]
        invalid = answers[20 + i]["result"]
        assert invalid["isError"] is True
        assert text in invalid["content"][0]["text"]
        assert "max_results" in invalid["content"][0]["text"]
    assert answers["final"]["result"] == {}
    assert "<- " in stderr and "-> " in stderr  # debug logging of frames went to stderr


def test_most_verbose_logging_keeps_stdout_clean(tmp_path: Path) -> None:
    env = server_env(tmp_path / "home", DOCMUNCH_LOG="debug", PYTHONWARNINGS="always")
    frames = [
        line(INIT),
        line(INITIALIZED),
        line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        _call(3, "list_repos", {}),
        _call(4, "get_section", {"repo": "nope", "section_id": "x"}),
        FINAL_PING,
    ]
    messages, stderr = run_raw(frames, env)
    assert all(_is_jsonrpc(m) for m in messages), messages
    answers = _by_id(messages)
    assert set(answers) >= {1, 2, 3, 4, "final"}
    assert "DEBUG" in stderr


def test_stray_writes_to_fd1_miss_the_wire() -> None:
    """After claim_stdio, print(), os.write(1) and a child's stdout all land on stderr."""
    script = textwrap.dedent(
        """
        import os, subprocess, sys
        from docmunch.serve._stdio import claim_stdio
        claim = claim_stdio()
        print("stray print")
        os.write(1, b"stray fd1\\n")
        subprocess.run([sys.executable, "-c", "print('stray child')"], check=True)
        os.write(claim.wire_out, b'{"jsonrpc":"2.0","id":1,"result":{}}\\n')
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=True)
    assert proc.stdout.splitlines() == [b'{"jsonrpc":"2.0","id":1,"result":{}}']
    for text in (b"stray print", b"stray fd1", b"stray child"):
        assert text in proc.stderr
    json.loads(proc.stdout)


def test_requests_piped_before_eof_are_all_answered(tmp_path: Path) -> None:
    """A script that writes its requests and closes stdin at once still gets every reply."""
    from tests.serve.conftest import REPO_ROOT, SERVE_CMD

    frames = [line(INIT), line(INITIALIZED), line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
              _call(3, "list_repos", {}), FINAL_PING]
    for _ in range(3):  # the race showed up on most runs before the fix
        proc = subprocess.run(SERVE_CMD, input=b"".join(frames), capture_output=True, timeout=60,
                              env=server_env(tmp_path / "home"), cwd=REPO_ROOT)
        assert proc.returncode == 0, proc.stderr
        ids = [json.loads(raw)["id"] for raw in proc.stdout.splitlines()]
        assert sorted(map(str, ids)) == ["1", "2", "3", "final"]


def test_tools_call_with_arguments_not_an_object_names_the_field(tmp_path: Path) -> None:
    def call(request_id: int, params: Any) -> bytes:
        return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    frames = [
        line(INIT),
        line(INITIALIZED),
        call(2, {"name": "list_repos", "arguments": "notanobject"}),
        call(3, {"name": "list_repos", "arguments": [1]}),
        call(4, {"name": 5}),
        call(5, {"name": "list_repos", "arguments": {}}),
        FINAL_PING,
    ]
    messages, _stderr = run_raw(frames, server_env(tmp_path / "home"))
    answers = _by_id(messages)
    for request_id, said in ((2, "not a string"), (3, "not an array"), (4, '"params.name" must be a string')):
        error = answers[request_id]["error"]
        assert error["code"] == -32602, error
        assert said in error["message"], error
    assert 'tools/call "params.arguments" must be an object' in answers[2]["error"]["message"]
    assert "result" in answers[5]
    assert answers["final"]["result"] == {}
