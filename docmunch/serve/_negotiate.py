"""The MCP endpoint's HTTP exchange: ``Accept`` negotiation (RFC 9110) and request-body bounds.

The SDK's streamable HTTP app answers 406 unless a POST accepts *both* ``application/json`` and
``text/event-stream`` (or, in its stateless era, unless it accepts JSON), and reads ``Accept``
without q-values. Several real clients send only one of the two. :class:`McpExchange` sits in
front of the SDK app and:

**POST**

1. reads ``Accept`` per RFC 9110 §12.5.1: each media type gets the q of the *most specific*
   media range that matches it (``application/json`` > ``application/*`` > ``*/*``); ``q=0``
   means "not acceptable"; a request without ``Accept`` (or with an empty one) accepts
   anything. Media-range parameters other than ``q`` (``charset``) are ignored.
2. picks the reply type: the acceptable one of the two with the higher q; on a tie the
   SDK's own choice stands (``text/event-stream`` for session requests: the streaming form,
   which also carries progress notifications). Neither acceptable → **406** naming both.
3. bounds the body: a ``Content-Length`` over :func:`~docmunch.serve._jsonrpc.max_message_bytes`
   → **413** before reading; a longer body → **413**; then
   :func:`~docmunch.serve._jsonrpc.decode_message` (depth, UTF-8, surrogates, JSON-RPC shape)
   → **400** carrying the JSON-RPC error.
4. hands the SDK app ``Accept: application/json, text/event-stream`` and the body, and
   delivers its reply in the chosen type: an SSE reply is read up to its JSON-RPC response,
   which is sent as one ``application/json`` body (notifications before it are dropped, as in
   the SDK's own JSON mode); a 200 JSON reply to an SSE-only client becomes one SSE
   ``message`` event. Status codes and the ``Mcp-Session-Id`` header are kept; error replies
   (4xx/5xx) pass unchanged.

**GET** (the standalone SSE stream) needs ``text/event-stream`` acceptable (else 406).
Other methods pass through.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docmunch.serve._jsonrpc import Rejection, decode_message, max_message_bytes, too_large

__all__ = ["EITHER", "JSON", "SSE", "McpExchange", "choose_reply_type", "quality"]

logger = logging.getLogger("docmunch.serve")

JSON = "application/json"
SSE = "text/event-stream"
EITHER = "either"
"""``choose_reply_type`` result: both types are equally acceptable."""

_ELEMENT = re.compile(r'(?:[^,"]|"(?:[^"\\]|\\.)*")+')
"""One comma-separated element of a field value (commas inside quoted strings kept)."""

_QVALUE = re.compile(r"(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)")
"""RFC 9110 §12.4.2 ``qvalue``."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")

_SSE_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_SSE_LINE = re.compile(rb"\r\n|\n|\r")

_DROPPED_HEADERS = frozenset(
    {b"content-type", b"content-length", b"cache-control", b"connection", b"transfer-encoding",
     b"x-accel-buffering"}
)  # fmt: skip
"""Headers of the SDK's reply that describe its original framing, replaced when re-framing."""


@dataclass(frozen=True, slots=True)
class MediaRange:
    """One element of an ``Accept`` field."""

    type: str
    """Lower-case top-level type, or ``*``."""
    subtype: str
    """Lower-case subtype, or ``*``."""
    q: float
    """Weight, 0.0–1.0."""

    def specificity(self, media_type: str) -> int:
        """3 exact, 2 ``type/*``, 1 ``*/*``, 0 no match, for ``media_type`` (``type/subtype``)."""
        main, _, sub = media_type.partition("/")
        if self.type == "*":
            return 1 if self.subtype == "*" else 0
        if self.type != main:
            return 0
        if self.subtype == "*":
            return 2
        return 3 if self.subtype == sub else 0


def parse_accept(value: str) -> list[MediaRange]:
    """The media ranges of an ``Accept`` value; malformed elements are skipped."""
    ranges = []
    for element in _ELEMENT.findall(value):
        media, *params = (part.strip() for part in element.split(";"))
        main, slash, sub = media.lower().partition("/")
        if not slash or not _TOKEN.fullmatch(main) or not _TOKEN.fullmatch(sub) or (main == "*" != sub):
            continue
        q = 1.0
        for param in params:
            name, _, raw = param.partition("=")
            if name.strip().lower() == "q":
                raw = raw.strip()
                q = float(raw) if _QVALUE.fullmatch(raw) else -1.0
                break  # RFC 9110: "q" ends the media-range parameters
        if q >= 0:
            ranges.append(MediaRange(main, sub, q))
    return ranges


def quality(accept: str | None, media_type: str) -> tuple[float, int]:
    """``(q, specificity)`` of ``media_type`` under ``accept`` (``None``/blank: ``(1.0, 0)``)."""
    if accept is None or not accept.strip():
        return 1.0, 0
    best = (0.0, 0)
    for media_range in parse_accept(accept):
        spec = media_range.specificity(media_type)
        if spec > best[1] or (spec and spec == best[1] and media_range.q > best[0]):
            best = (media_range.q, spec)
    return best


def choose_reply_type(accept: str | None) -> str | None:
    """The reply type for a POST with this ``Accept`` value.

    Returns:
        ``JSON`` or ``SSE`` when the client prefers that one (higher q), :data:`EITHER` when
        both are equally acceptable (the SDK's own choice stands: SSE for session requests),
        ``None`` when neither is acceptable (406).
    """
    q_json, _ = quality(accept, JSON)
    q_sse, _ = quality(accept, SSE)
    if q_json <= 0 and q_sse <= 0:
        return None
    if q_json == q_sse:
        return EITHER
    return SSE if q_sse > q_json else JSON


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _content_type(headers: list[tuple[bytes, bytes]]) -> str:
    return (_header(headers, b"content-type") or "").partition(";")[0].strip().lower()


def _with_header(scope: Scope, name: bytes, value: bytes) -> Scope:
    headers = [(k, v) for k, v in scope["headers"] if k.lower() != name]
    return {**scope, "headers": [*headers, (name, value)]}


def _reframed_headers(start: Message, content_type: bytes, length: int | None) -> list[tuple[bytes, bytes]]:
    kept = [(k, v) for k, v in start.get("headers", []) if k.lower() not in _DROPPED_HEADERS]
    kept.append((b"content-type", content_type))
    if length is None:
        kept.append((b"cache-control", b"no-cache, no-transform"))
    else:
        kept.append((b"content-length", str(length).encode()))
    return kept


_TEXT = b"text/plain; charset=utf-8"


async def _plain(send: Send, status: int, text: str, content_type: bytes = _TEXT) -> None:
    body = text.encode("utf-8")
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _reject(send: Send, rejection: Rejection, status: int) -> None:
    await _plain(send, status, json.dumps(rejection.to_json()), b"application/json")


class _SseAsJson:
    """``send`` wrapper: an SSE reply becomes one JSON body holding its JSON-RPC response."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._start: Message | None = None
        self._buffer = b""
        self._done = False

    async def __call__(self, message: Message) -> None:
        if self._done:
            return  # the rest of the stream (pings, closing) has no place in a JSON reply
        if message["type"] == "http.response.start":
            if message.get("status") == 200 and _content_type(message.get("headers", [])) == SSE:
                self._start = message
                return
            await self._send(message)
            return
        if message["type"] != "http.response.body" or self._start is None:
            await self._send(message)
            return
        self._buffer += message.get("body", b"")
        while (boundary := _SSE_BOUNDARY.search(self._buffer)) is not None:
            event, self._buffer = self._buffer[: boundary.start()], self._buffer[boundary.end() :]
            data = b"\n".join(
                line[5:].removeprefix(b" ") for line in _SSE_LINE.split(event) if line.startswith(b"data:")
            )
            if data and _is_response(data):
                await self._finish(self._start.get("status", 200), data)
                return
        if not message.get("more_body", False):
            logger.warning("http: the SSE reply ended without a JSON-RPC response")
            error = Rejection(-32603, "Internal error: the server ended the reply without a response")
            await self._finish(500, json.dumps(error.to_json()).encode())

    async def _finish(self, status: int, body: bytes) -> None:
        assert self._start is not None
        headers = _reframed_headers(self._start, JSON.encode(), len(body))
        self._done = True
        await self._send({"type": "http.response.start", "status": status, "headers": headers})
        await self._send({"type": "http.response.body", "body": body, "more_body": False})


def _is_response(data: bytes) -> bool:
    try:
        obj = json.loads(data)
    except ValueError:
        return False
    return isinstance(obj, dict) and "id" in obj and ("result" in obj or "error" in obj)


class _JsonAsSse:
    """``send`` wrapper: a 200 JSON reply becomes one SSE ``message`` event."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._start: Message | None = None
        self._body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            if message.get("status") == 200 and _content_type(message.get("headers", [])) == JSON:
                self._start = message
                return
            await self._send(message)
            return
        if message["type"] != "http.response.body" or self._start is None:
            await self._send(message)
            return
        self._body += message.get("body", b"")
        if message.get("more_body", False):
            return
        lines = b"".join(b"data: " + line + b"\n" for line in _SSE_LINE.split(self._body.strip()))
        headers = _reframed_headers(self._start, SSE.encode(), None)
        await self._send({"type": "http.response.start", "status": 200, "headers": headers})
        await self._send({"type": "http.response.body", "body": b"event: message\n" + lines + b"\n"})


async def _read_body(receive: Receive, limit: int) -> tuple[bytes | None, list[Message]]:
    """The whole body (``None`` when over ``limit``) and any non-body messages received meanwhile."""
    body = bytearray()
    others: list[Message] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            others.append(message)  # a disconnect: the app will see it
            return bytes(body), others
        body += message.get("body", b"")
        if len(body) > limit:
            return None, others
        if not message.get("more_body", False):
            return bytes(body), others


class McpExchange:
    """ASGI middleware applying this module's rules to the MCP endpoint at ``path``."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") != self.path.rstrip("/"):
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        accept = _header(scope["headers"], b"accept")
        if method == "GET":
            if quality(accept, SSE)[0] <= 0:
                await _plain(send, 406, f"Not Acceptable: GET {self.path} streams {SSE}; Accept allows none")
                return
            await self.app(_with_header(scope, b"accept", SSE.encode()), receive, send)
            return
        if method != "POST":
            await self.app(scope, receive, send)
            return
        reply_type = choose_reply_type(accept)
        if reply_type is None:
            await _plain(
                send,
                406,
                f"Not Acceptable: POST {self.path} answers in {JSON} or {SSE}; "
                f"Accept {accept!r} allows neither",
            )
            return
        limit = max_message_bytes()
        declared = _header(scope["headers"], b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            await _reject(send, too_large(int(declared), limit), 413)
            return
        body, others = await _read_body(receive, limit)
        if body is None:
            await _reject(send, too_large(None, limit), 413)
            return
        decoded = decode_message(body, limit=limit)
        if decoded is None:
            decoded = Rejection(-32700, "Parse error: the request body is empty")
        if isinstance(decoded, Rejection):
            logger.warning("http: %s (answered 400)", decoded.message)
            await _reject(send, decoded, 400)
            return
        reply: Send = send  # a tie: the SDK's own choice stands
        if reply_type == JSON:
            reply = _SseAsJson(send)
        elif reply_type == SSE:
            reply = _JsonAsSse(send)
        await self.app(
            _with_header(scope, b"accept", f"{JSON}, {SSE}".encode()), _replay(body, others, receive), reply
        )


def _replay(body: bytes, others: list[Message], receive: Receive) -> Callable[[], Awaitable[Message]]:
    """A ``receive`` that yields the already-read body once, then what the client sends next."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}, *others]

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
