"""One inbound JSON-RPC message, checked before the SDK sees it: size, depth, Unicode, shape.

Both transports call :func:`decode_message` on every message they receive (a stdin line, an
HTTP POST body), so one hostile message can neither end the server nor be silently dropped:

1. at most :data:`MCP_MESSAGE_MAX_BYTES` bytes (4 MiB), strict UTF-8;
2. arrays/objects nested at most :data:`MCP_JSON_MAX_DEPTH` deep (64), checked by a scan over
   the text *before* ``json.loads`` (so the parser never recurses deeper than that);
3. RFC 8259 JSON only: ``NaN``/``Infinity`` and numbers that overflow a float are parse
   errors (they would come back out as invalid JSON);
4. no lone UTF-16 surrogate (``"\\ud800"``) in any string: valid JSON text, but not Unicode,
   so it could not be written back as UTF-8 nor stored;
5. a JSON-RPC 2.0 shape: an object (MCP has no batches) with ``"jsonrpc": "2.0"``; a request's
   ``id`` a string or integer (MCP) — any other ``id`` makes it an invalid request rather
   than, as the SDK would read it, a notification that is never answered.

Both limits are raised by setting ``DOCMUNCH_<NAME>`` in the server's environment
(``DOCMUNCH_MCP_MESSAGE_MAX_BYTES``, ``DOCMUNCH_MCP_JSON_MAX_DEPTH``), read when the server
starts; an unusable value is logged and the default kept.

A failure is a :class:`Rejection` to send back: ``-32700`` for steps 1–4 (not a readable JSON
text), ``-32600`` for step 5 and ``-32602`` for a ``tools/call`` whose ``params.name`` is not a
string or ``params.arguments`` not an object (the SDK's own answer names no field), with the
request's ``id`` when it is usable and ``null`` otherwise (JSON-RPC 2.0 §5).

A message refused only for its size or depth may be a valid request that a client's SDK is
waiting on: a ``null`` id would leave that call unanswered for good. Its ``id`` is therefore
looked for without parsing the whole text (:func:`scan_id`): among the top-level members of its
first :data:`ID_SCAN_BYTES` bytes (the Python SDK writes ``id`` second) or as the last member of
its last :data:`ID_SCAN_BYTES` (the TypeScript SDK writes it last). Malformed JSON or UTF-8 keeps
``null``: no SDK writes it, so no SDK call waits on it.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import ValidationError

__all__ = [
    "ID_SCAN_BYTES",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MCP_JSON_MAX_DEPTH",
    "MCP_MESSAGE_MAX_BYTES",
    "PARSE_ERROR",
    "Rejection",
    "decode_message",
    "json_max_depth",
    "max_message_bytes",
    "scan_id",
    "too_large",
]

logger = logging.getLogger("docmunch.serve")

MCP_MESSAGE_MAX_BYTES = 4 * 2**20
"""Largest inbound message (bytes of UTF-8; default 4 MiB): a stdin line without its line
ending, or an HTTP body. The biggest real request (``get_sections`` with 100 ids) is a few KiB;
4 MiB is also the SDK's own HTTP body limit. Raised by ``DOCMUNCH_MCP_MESSAGE_MAX_BYTES``."""

MCP_JSON_MAX_DEPTH = 64
"""Deepest nesting of arrays/objects in one message (levels; default 64). MCP requests nest
under 10 deep; the standard library parser recurses once per level and fails near 1,000
(a deeper limit then still yields a parse error, never a crash). Raised by
``DOCMUNCH_MCP_JSON_MAX_DEPTH``."""

PARSE_ERROR = -32700
"""JSON-RPC 2.0: the message is not a readable JSON text."""
INVALID_REQUEST = -32600
"""JSON-RPC 2.0: the JSON is not a valid request object."""
INVALID_PARAMS = -32602
"""JSON-RPC 2.0: the method exists but its ``params`` are not what it takes."""
INTERNAL_ERROR = -32603
"""JSON-RPC 2.0: the server failed while handling the message."""

ID_SCAN_BYTES = 64 * 1024
"""Bytes at each end of a refused message that :func:`scan_id` reads for its ``id`` (64 KiB: the
``id`` of an SDK's request is within its first or last hundred bytes; the bound keeps the scan
of a 4 MiB line under a millisecond)."""

_ENV_MAX_BYTES = "DOCMUNCH_MCP_MESSAGE_MAX_BYTES"
_ENV_MAX_DEPTH = "DOCMUNCH_MCP_JSON_MAX_DEPTH"

_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
"""A JSON string literal (skipped whole) or one bracket."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``–``\\uDFFF`` escape: the only way a decoded string can hold a surrogate."""

_SURROGATE = re.compile("[\ud800-\udfff]")

_JSON_TOKEN = re.compile(
    r'\s*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{}\[\]:,])|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))'
)
"""One JSON token after optional whitespace: a string literal (group 1), a structural character
(group 2) or a number or literal name (group 3)."""

_LAST_MEMBER_ID = re.compile(r'[,{]\s*"id"\s*:\s*(-?\d+|"[^"\\]*(?:\\.[^"\\]*)*")\s*\}\s*\Z')
"""``"id": VALUE`` as the last member of the object that ends the text."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """A message the server answers with a JSON-RPC error instead of dispatching it."""

    code: int
    """``PARSE_ERROR``, ``INVALID_REQUEST`` or ``INVALID_PARAMS`` (``INTERNAL_ERROR`` for a server fault)."""
    message: str
    """One line for the client, saying what was wrong and which limit applies."""
    request_id: str | int | float | None = None
    """The message's ``id`` when it could be read and is a JSON-RPC id, else ``None`` (null)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON-RPC error response object."""
        error = {"code": self.code, "message": self.message}
        return {"jsonrpc": "2.0", "id": self.request_id, "error": error}

    def to_line(self) -> bytes:
        """The error response as one UTF-8 line (ASCII-only JSON, ``\\n``-terminated)."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode("ascii") + b"\n"


def _setting(env: str, default: int, minimum: int) -> int:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value < minimum:
        logger.warning("%s=%r is not an integer of at least %d; using %d", env, raw, minimum, default)
        return default
    return value


def max_message_bytes() -> int:
    """The inbound message limit in bytes (``DOCMUNCH_MCP_MESSAGE_MAX_BYTES``, min 64 KiB)."""
    return _setting(_ENV_MAX_BYTES, MCP_MESSAGE_MAX_BYTES, 64 * 1024)


def json_max_depth() -> int:
    """The nesting limit in levels (``DOCMUNCH_MCP_JSON_MAX_DEPTH``, min 8)."""
    return _setting(_ENV_MAX_DEPTH, MCP_JSON_MAX_DEPTH, 8)


def _id_value(literal: str) -> str | int | None:
    """A JSON-RPC id from one JSON token (string or integer literal), else ``None``."""
    try:
        value = json.loads(literal)
    except ValueError:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return None if isinstance(value, str) and _SURROGATE.search(value) else value


def _leading_id(text: str) -> str | int | None:
    """The ``id`` among the top-level members of the object ``text`` starts (a prefix may be
    cut anywhere), or ``None`` when it is not there or not a string or integer."""
    depth, pos, key, expect_key = 0, 0, None, False
    while True:
        match = _JSON_TOKEN.match(text, pos)
        if match is None:
            return None
        pos = match.end()
        literal, structural, scalar = match.groups()
        if depth == 0 and structural != "{":
            return None  # not an object, or past its end
        if depth == 1 and key == "id" and not expect_key:  # the token after `"id":`
            return _id_value(literal or scalar or "")
        if structural in ("{", "["):
            depth += 1
            expect_key = depth == 1
        elif structural in ("}", "]"):
            depth -= 1
        elif depth == 1 and structural == ",":
            key, expect_key = None, True
        elif depth == 1 and structural == ":":
            expect_key = False
        elif depth == 1 and expect_key and literal is not None:
            key = literal[1:-1]


def scan_id(raw: bytes, tail: bytes = b"") -> str | int | None:
    """The ``id`` of a message too large or too deep to parse, read from its ends (module doc).

    Args:
        raw: the message, or its first bytes (at least :data:`ID_SCAN_BYTES` are used).
        tail: the message's last bytes when ``raw`` holds only its start (``b""``: ``raw`` is
            the whole message).

    Returns:
        The top-level ``id`` when it is a string or integer found at either end, else ``None``.
        Never raises.
    """
    head = raw[:ID_SCAN_BYTES].decode("utf-8", "replace")
    found = _leading_id(head)
    if found is None:
        end = (tail or raw)[-ID_SCAN_BYTES:].rstrip(b" \t\r\n").decode("utf-8", "replace")
        last = _LAST_MEMBER_ID.search(end)
        found = _id_value(last.group(1)) if last else None
    return found


def too_large(size: int | None, limit: int, request_id: str | int | None = None) -> Rejection:
    """The rejection of a message of ``size`` bytes (``None``: not counted) over ``limit``,
    answering ``request_id`` (:func:`scan_id`; ``None``: null)."""
    what = f"message of {size} bytes" if size is not None else "message"
    return Rejection(
        PARSE_ERROR,
        f"Parse error: {what} exceeds the limit of {limit} bytes (the server's {_ENV_MAX_BYTES} raises it)",
        request_id,
    )


def _depth_exceeds(text: str, limit: int) -> bool:
    """True when arrays/objects outside string literals nest deeper than ``limit``."""
    if text.count("[") + text.count("{") <= limit:
        return False  # cannot nest deeper than the number of openers
    depth = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_reject_constant)
"""RFC 8259 JSON only: no ``NaN``/``Infinity``, no float that overflows to infinity."""


def _usable_id(value: Any) -> str | int | float | None:
    """``value`` when a JSON-RPC error may echo it as the ``id`` (string or finite number), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return None if _SURROGATE.search(value) else value
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return None


def _has_surrogate(value: Any) -> bool:
    """True when any string (key or value) in the decoded JSON holds a surrogate code point."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shape_problem(obj: Any) -> str | None:
    """Why ``obj`` is not a JSON-RPC 2.0 message MCP can take, or ``None``."""
    if isinstance(obj, list):
        return "batches (JSON arrays) are not supported by MCP; send one message per line"
    if not isinstance(obj, dict):
        return "a message must be a JSON object"
    if obj.get("jsonrpc") != "2.0":
        return 'a message must carry "jsonrpc": "2.0"'
    if "method" in obj:
        if not isinstance(obj["method"], str) or not obj["method"]:
            return '"method" must be a non-empty string'
        if "id" in obj and (isinstance(obj["id"], bool) or not isinstance(obj["id"], str | int)):
            return '"id" must be a string or an integer'
        if "params" in obj and not isinstance(obj["params"], dict):
            return '"params" must be an object'
        return None
    if "result" in obj or "error" in obj:
        if isinstance(obj.get("id"), bool) or not isinstance(obj.get("id"), str | int):
            return 'a response\'s "id" must be a string or an integer'
        return None
    return 'a message needs a "method" (request, notification) or a "result"/"error" (response)'


_JSON_KINDS = {str: "a string", list: "an array", int: "a number", float: "a number", bool: "true/false"}
"""How an error message names the JSON type of a decoded value."""


def _params_problem(obj: dict[str, Any]) -> str | None:
    """Why a ``tools/call`` request's ``params`` cannot be dispatched, or ``None`` (the SDK
    would answer only "Invalid request parameters", not naming the field)."""
    if obj.get("method") != "tools/call" or "id" not in obj:
        return None
    params = obj.get("params")
    if not isinstance(params, dict):
        return 'tools/call needs "params": {"name": TOOL, "arguments": {...}}'
    if not isinstance(params.get("name"), str):
        return 'tools/call "params.name" must be a string (the tool name; tools/list shows them)'
    if params.get("arguments") is not None and not isinstance(params["arguments"], dict):
        kind = _JSON_KINDS.get(type(params["arguments"]), "that")
        return f'tools/call "params.arguments" must be an object, not {kind}'
    return None


def decode_message(
    raw: bytes, *, limit: int | None = None, max_depth: int | None = None
) -> types.JSONRPCMessage | Rejection | None:
    """Check and parse one inbound message.

    Args:
        raw: the message bytes (a stdin line, with or without its line ending, or a POST body).
        limit: maximum size in bytes; ``None`` reads :func:`max_message_bytes`.
        max_depth: maximum nesting in levels; ``None`` reads :func:`json_max_depth`.

    Returns:
        The validated SDK message, a :class:`Rejection` to answer with, or ``None`` for a
        blank line (nothing to answer). Never raises on any input.
    """
    limit = max_message_bytes() if limit is None else limit
    max_depth = json_max_depth() if max_depth is None else max_depth
    size = len(raw.rstrip(b"\r\n"))
    if size > limit:
        return too_large(size, limit, scan_id(raw))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return Rejection(PARSE_ERROR, f"Parse error: message is not valid UTF-8 (byte {err.start})")
    text = text.strip(" \t\r\n")
    if not text:
        return None
    if _depth_exceeds(text, max_depth):
        return Rejection(
            PARSE_ERROR,
            f"Parse error: JSON nested deeper than {max_depth} levels "
            f"(the server's {_ENV_MAX_DEPTH} raises it)",
            scan_id(raw),
        )
    try:
        obj = _DECODER.decode(text)
    except (ValueError, RecursionError) as err:
        return Rejection(PARSE_ERROR, f"Parse error: {' '.join(str(err).split())[:200]}")
    request_id = _usable_id(obj.get("id")) if isinstance(obj, dict) else None
    if _SURROGATE_ESCAPE.search(text) and _has_surrogate(obj):
        return Rejection(
            INVALID_REQUEST,
            "Invalid Request: a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), not Unicode text",
            request_id,
        )
    problem = _shape_problem(obj)
    if problem is not None:
        return Rejection(INVALID_REQUEST, f"Invalid Request: {problem}", request_id)
    problem = _params_problem(obj)
    if problem is not None:
        return Rejection(INVALID_PARAMS, f"Invalid params: {problem}", request_id)
    try:
        return types.jsonrpc_message_adapter.validate_python(obj, by_name=False)
    except ValidationError as err:
        errors = err.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        detail = f" ({where}: {errors[0]['msg']})" if where else ""
        return Rejection(INVALID_REQUEST, f"Invalid Request: not a JSON-RPC 2.0 message{detail}", request_id)
