"""A real HTTP server on 127.0.0.1 (ephemeral port) that serves chosen bytes with chosen headers.

Each test registers routes (``server.route("/x", Reply(...))``); a list of replies is served in
turn (the last one repeats). Every request is recorded, so tests can assert that a refused URL
never produced any traffic.
"""

from __future__ import annotations

import http.server
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

import pytest

from docmunch.fetch import Fetcher


@dataclass
class Reply:
    """One response: status, headers, body; ``delay`` seconds before the status line;
    ``drip`` seconds between body chunks of ``chunk`` bytes (slow server)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    body: bytes = b"<!doctype html><html><body><p>hello</p></body></html>"
    delay: float = 0.0
    drip: float = 0.0
    chunk: int = 1024
    content_length: bool = True


@dataclass
class Seen:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    at: float


class LoopbackServer:
    """``ThreadingHTTPServer`` on 127.0.0.1 in a daemon thread (optionally TLS).

    Tests get :class:`Reply` as ``server.Reply`` (test modules cannot import this conftest).
    """

    Reply: TypeAlias = Reply  # an alias (not a variable), so signatures below can name it

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner._serve(self)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.scheme = "https" if tls else "http"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, *replies: Reply) -> str:
        self.routes[path] = list(replies)
        return self.url(path)

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    def _serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        with self._lock:
            headers = {k.lower(): v for k, v in handler.headers.items()}
            self.seen.append(Seen(handler.path, headers, time.monotonic()))
            replies = self.routes.get(handler.path)
            reply = (replies.pop(0) if len(replies) > 1 else replies[0]) if replies else Reply(404, body=b"")
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(reply.delay)
            handler.send_response(reply.status)
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            if reply.content_length:
                handler.send_header("Content-Length", str(len(reply.body)))
            else:
                handler.send_header("Connection", "close")
                handler.close_connection = True
            handler.end_headers()
            for start in range(0, len(reply.body), reply.chunk):
                handler.wfile.write(reply.body[start : start + reply.chunk])
                handler.wfile.flush()
                if reply.drip:
                    time.sleep(reply.drip)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the client gave up (size cap, timeout): expected in those tests
        finally:
            with self._lock:
                self.in_flight -= 1

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    srv = LoopbackServer()
    yield srv
    srv.close()


@pytest.fixture
def start_server() -> Iterator[Callable[..., LoopbackServer]]:
    """Factory for extra servers (e.g. ``start_server(tls=context)``), closed after the test."""
    started: list[LoopbackServer] = []

    def start(tls: ssl.SSLContext | None = None) -> LoopbackServer:
        started.append(LoopbackServer(tls))
        return started[-1]

    yield start
    for srv in started:
        srv.close()


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    """Guard ON, with only 127.0.0.1/32 allowed (so 127.0.0.2, ::1, 10/8, … stay refused)."""
    with Fetcher(
        allow_private=False,
        allowed_networks=["127.0.0.1/32"],
        timeout=(1.0, 1.0),
        rate_per_host=None,
        trust_env=False,
        backoff=0.01,
    ) as f:
        yield f
