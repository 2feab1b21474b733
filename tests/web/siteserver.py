"""A real HTTP/1.1 server on 127.0.0.1 that serves a folder like a static docs host.

Shared by ``tests/web``, ``tests/crawl``, ``tests/github`` and ``bench/bench_crawl.py``
(loaded by file path: test folders are not packages).

- ``/a/b/`` serves ``a/b/index.html``; content types by suffix; strong ``ETag`` (sha256 of the
  body) and ``Last-Modified`` on every file; ``If-None-Match`` → 304.
- ``routes[path]`` overrides a path with a :class:`Reply` (status, headers, body, delay).
- Every request is recorded (:class:`Hit`: path, headers, monotonic time, status).
"""

from __future__ import annotations

import hashlib
import http.server
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".json": "application/json",
}
LAST_MODIFIED = "Mon, 02 Nov 2026 10:00:00 GMT"


@dataclass
class Reply:
    """A fixed answer for one path."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    body: bytes = b""
    delay: float = 0.0
    """Seconds to wait before answering (a slow page)."""


@dataclass(frozen=True)
class Hit:
    """One request the server answered."""

    path: str
    headers: dict[str, str]
    at: float
    status: int


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hung up (timeouts in tests) is not a server error


class SiteServer:
    """``ThreadingHTTPServer`` on an ephemeral 127.0.0.1 port serving ``root``; close with :meth:`close`."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.latency = 0.0
        """Seconds added before every answer (a simulated network round trip)."""
        self.routes: dict[str, Reply] = {}
        self.hits: list[Hit] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner._serve(self)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def paths(self) -> list[str]:
        with self._lock:
            return [h.path for h in self.hits]

    def _file_reply(self, path: str) -> Reply:
        if self.root is None:
            return Reply(404, body=b"not found")
        rel = urllib.parse.unquote(path.split("?", 1)[0]).lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        target = (self.root / rel).resolve()
        if self.root.resolve() not in target.parents or not target.is_file():
            return Reply(404, body=b"not found")
        body = target.read_bytes()
        kind = _TYPES.get(target.suffix.lower(), "application/octet-stream")
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        return Reply(200, {"Content-Type": kind, "ETag": etag, "Last-Modified": LAST_MODIFIED}, body)

    def _serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        path = handler.path
        reply = self.routes.get(path) or self._file_reply(path)
        status, body = reply.status, reply.body
        etag = reply.headers.get("ETag")
        if status == 200 and etag and handler.headers.get("If-None-Match") == etag:
            status, body = 304, b""
        with self._lock:
            headers = {k.lower(): v for k, v in handler.headers.items()}
            self.hits.append(Hit(path, headers, time.monotonic(), status))
        try:
            time.sleep(reply.delay + self.latency)
            handler.send_response(status)
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and went away

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
