"""Streamable HTTP transport: the SDK's ASGI app behind docmunch's own guard, run by uvicorn.

Rules (MCP spec 2025-06-18, "Streamable HTTP" → "Security Warning"):

- The server binds loopback unless ``--allow-remote`` is given; a non-loopback bind also needs
  a bearer token in ``DOCMUNCH_TOKEN`` and is refused at startup without one.
- Every request's ``Origin`` (when present) must be a loopback origin or one listed in
  ``DOCMUNCH_ALLOWED_ORIGINS`` (comma-separated) → else **403**. Requests without ``Origin``
  (non-browser clients) pass.
- Every request carries exactly one well-formed ``Host`` (RFC 9112 §3.2: ``uri-host [":" port]``
  with the RFC 3986 host grammar — an IP literal in brackets, an IPv4 address or a reg-name —
  and a port of at most 65535) → else **400**.
- On a loopback bind the ``Host`` header must name a loopback host → else **421**; this is what
  stops DNS rebinding (a page at ``evil.example`` re-pointed at 127.0.0.1 still sends
  ``Host: evil.example``).
- When ``DOCMUNCH_TOKEN`` is set, requests need ``Authorization: Bearer <token>`` → else **401**.

Behind the guard, :class:`~docmunch.serve._negotiate.McpExchange` negotiates ``Accept`` and
bounds request bodies (406/413/400) before the SDK's app sees a request.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import re
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from docmunch.errors import DocmunchError
from docmunch.serve._jsonrpc import max_message_bytes
from docmunch.serve._negotiate import McpExchange

__all__ = ["HttpGuard", "HttpOptions", "is_loopback_host", "parse_bind", "parse_host_header", "serve_http"]

logger = logging.getLogger("docmunch.serve")

MCP_PATH = "/mcp"
"""URL path of the MCP endpoint."""


def is_loopback_host(host: str) -> bool:
    """True for ``localhost``, ``127.0.0.0/8`` and ``::1`` (brackets allowed)."""
    host = host.strip().strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_REG_NAME = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+")
"""RFC 3986 §3.2.2 ``reg-name`` (non-empty: the http scheme forbids an empty host)."""

_IPV_FUTURE = re.compile(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+")
"""RFC 3986 §3.2.2 ``IPvFuture`` (inside the brackets)."""


def parse_host_header(value: str) -> tuple[str, int | None]:
    """Split a ``Host`` field value into ``(host, port)``, checking RFC 9110 §7.2 / RFC 3986 §3.2.

    ``host`` keeps an IPv6 literal's brackets off (``"::1"``); ``port`` is ``None`` when absent
    or empty (``"localhost:"`` is allowed by the grammar). Raises ``ValueError`` naming the
    problem for anything else: an empty host, userinfo, a path, spaces, a bad IP literal, a
    non-numeric port or one above 65535.
    """
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            raise ValueError("unclosed IPv6 literal")
        literal, rest = value[1:end], value[end + 1 :]
        if not _IPV_FUTURE.fullmatch(literal):
            try:
                ipaddress.IPv6Address(literal)
            except ValueError:
                raise ValueError(f"{literal!r} is not an IPv6 address") from None
            if "%" in literal:
                raise ValueError("zone identifiers are not allowed in Host")
        host = literal
    else:
        host, colon, port_text = value.partition(":")
        rest = colon + port_text
        if not _REG_NAME.fullmatch(host):
            raise ValueError(f"{host!r} is not a host name or IPv4 address")
    if not rest:
        return host, None
    if not rest.startswith(":") or not rest[1:].isascii() or not (rest[1:].isdigit() or rest == ":"):
        raise ValueError(f"{rest!r} is not a port")
    if rest == ":":
        return host, None
    port = int(rest[1:])
    if port > 65535:
        raise ValueError(f"port {port} is out of range")
    return host, port


def parse_bind(spec: str) -> tuple[str, int]:
    """``"HOST:PORT"`` / ``"[::1]:PORT"`` / ``":PORT"`` → ``(host, port)``; port 0 = any free port.

    Raises ``DocmunchError`` with the expected shape when ``spec`` cannot be parsed.
    """
    host, sep, port_text = spec.strip().rpartition(":")
    if not sep or not port_text.isdigit() or int(port_text) > 65535:
        raise DocmunchError(f"--http {spec!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port_text)


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """Checked settings of an HTTP run."""

    host: str
    """Interface to bind (``127.0.0.1`` by default)."""
    port: int
    """TCP port; 0 picks a free one (logged at startup)."""
    token: str | None
    """Bearer token required on every request, or ``None``."""
    loopback: bool
    """Whether ``host`` is a loopback address (enables the Host check)."""
    allowed_origins: frozenset[str]
    """Extra browser origins allowed besides loopback ones (``scheme://host[:port]``)."""

    @classmethod
    def from_args(cls, bind: str, *, allow_remote: bool) -> HttpOptions:
        """Validate ``--http``/``--allow-remote``/``DOCMUNCH_TOKEN``; raises ``DocmunchError``."""
        host, port = parse_bind(bind)
        loopback = is_loopback_host(host)
        token = os.environ.get("DOCMUNCH_TOKEN") or None
        if not loopback:
            if not allow_remote:
                raise DocmunchError(
                    f"refusing to bind {host}: it is not a loopback address; pass --allow-remote "
                    "(and set DOCMUNCH_TOKEN) to serve other machines"
                )
            if token is None:
                raise DocmunchError(
                    f"refusing to bind {host} without a token: set DOCMUNCH_TOKEN to a long random "
                    "secret; clients then send `Authorization: Bearer <token>`"
                )
        extra = os.environ.get("DOCMUNCH_ALLOWED_ORIGINS", "")
        origins = frozenset(o.strip().rstrip("/").lower() for o in extra.split(",") if o.strip())
        return cls(host=host, port=port, token=token, loopback=loopback, allowed_origins=origins)


class HttpGuard:
    """ASGI middleware enforcing the Origin, Host and bearer-token rules of the module docstring."""

    def __init__(self, app: ASGIApp, options: HttpOptions) -> None:
        self.app = app
        self.options = options

    def _origin_ok(self, origin: str) -> bool:
        if origin.rstrip("/").lower() in self.options.allowed_origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and is_loopback_host(parts.hostname or "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        hosts = [v for k, v in scope["headers"] if k.lower() == b"host"]
        refusal = self._check_host_syntax(hosts) or self._check(headers)
        if refusal is not None:
            status, text, extra = refusal
            logger.warning(
                "http: %s %s refused (%d): %s", scope.get("method"), scope.get("path"), status, text
            )
            await PlainTextResponse(text, status_code=status, headers=extra)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _check_host_syntax(hosts: list[bytes]) -> tuple[int, str, dict[str, str]] | None:
        """400 unless there is exactly one well-formed ``Host`` (RFC 9112 §3.2)."""
        if not hosts:
            return 400, "missing Host header", {}
        if len(hosts) > 1:
            return 400, "more than one Host header", {}
        value = hosts[0].decode("latin-1")
        try:
            parse_host_header(value)
        except ValueError as err:
            return 400, f"malformed Host header {value!r}: {err}", {}
        return None

    def _check(self, headers: dict[str, str]) -> tuple[int, str, dict[str, str]] | None:
        origin = headers.get("origin")
        if origin is not None and origin != "null" and not self._origin_ok(origin):
            return 403, f"Origin {origin!r} is not allowed (DOCMUNCH_ALLOWED_ORIGINS lists extra origins)", {}
        if origin == "null":
            return 403, "Origin 'null' is not allowed", {}
        if self.options.loopback:
            host = headers.get("host", "")
            hostname, _ = parse_host_header(host)
            if not is_loopback_host(hostname):
                return 421, f"Host {host!r} is not a loopback name", {}
        if self.options.token is not None:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode(), self.options.token.encode()
            ):
                return 401, "missing or wrong bearer token", {"WWW-Authenticate": 'Bearer realm="docmunch"'}
        return None


async def serve_http(server: Server[Any], options: HttpOptions) -> None:
    """Serve ``server`` over streamable HTTP at ``http://HOST:PORT/mcp`` until cancelled or signalled."""
    import uvicorn

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=options.host,
        max_request_body_size=max_message_bytes(),
        # Host/Origin checks are HttpGuard's (precise URL parsing, remote binds); the SDK keeps its
        # Content-Type check.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    guarded = HttpGuard(McpExchange(app, MCP_PATH), options)
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((options.host, options.port))
    except OSError as err:
        sock.close()
        raise DocmunchError(f"cannot bind {options.host}:{options.port}: {err.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    port = sock.getsockname()[1]
    shown = f"[{options.host}]" if family == socket.AF_INET6 else options.host
    logger.info("docmunch: MCP streamable HTTP at http://%s:%d%s", shown, port, MCP_PATH)
    config = uvicorn.Config(guarded, log_config=None, access_log=False, lifespan="on", log_level="warning")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()
