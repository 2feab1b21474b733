"""An httpx transport that connects only to addresses the SSRF guard validated (DNS pinning).

httpcore asks its *network backend* for a TCP connection with the URL's host name
(``connect_tcp(host, port, …)``) and later upgrades it with TLS using that same host name as
SNI and for certificate checking. :class:`PinningBackend` is that backend: it resolves the name
once (:func:`docmunch.fetch.ssrf.resolve`, which checks every answer) and opens the socket to
one of exactly those addresses. No other component resolves the name, so a rebinding DNS
server never gets the chance to answer differently for the connection. The ``Host`` header,
SNI and certificate verification all stay on the host name, because httpcore still sees it.
Pooled keep-alive connections are reused only for the same origin, and were pinned when made.

With a proxy from the environment (``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``, honouring
``NO_PROXY``; stdlib :func:`urllib.request.getproxies_environment`) the proxy connects for us:
the target's addresses are still resolved and checked here first, and a name that does not
resolve here is refused (:class:`BlockedAddress`, reason ``"unresolvable name behind a
proxy"``) rather than handed to the proxy unchecked; ``allow_private`` lifts that. The proxy
resolves the name again, so pinning holds only for direct connections.

**Deadline.** httpcore gives each socket read its own timeout, so a server that sends its
status line and headers a few bytes at a time (every read returns something) would keep
``handle_request`` waiting for ever. :func:`deadline` sets, for the calling thread, a moment by
which every read, write, TLS handshake and connect of the backend's streams must end: each one
waits at most the time left, and one started after it raises httpcore's ``ReadTimeout``
(``WriteTimeout``, ``ConnectTimeout``), which the fetcher reports as its whole-fetch limit. The
connections of a proxy from the environment are httpx's own and keep only httpx's timeouts.
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from docmunch.errors import BlockedAddress, FetchError
from docmunch.fetch.ssrf import ALLOW_PRIVATE_ENV, AddressPolicy, resolve

__all__ = ["GuardedTransport", "PinningBackend", "deadline"]

_DEADLINE = threading.local()
"""``.at``: the calling thread's deadline (``time.monotonic()`` seconds) or ``None``."""


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Within the block, every network operation of this thread's requests through
    :class:`PinningBackend` ends by monotonic time ``at`` (seconds; ``None``: no deadline), as
    the module doc says. Nested blocks restore the outer deadline on exit."""
    previous = getattr(_DEADLINE, "at", None)
    _DEADLINE.at = at
    try:
        yield
    finally:
        _DEADLINE.at = previous


def _time_left(timeout: float | None, expired: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before this thread's deadline; raises ``expired`` when
    the deadline has passed."""
    at: float | None = getattr(_DEADLINE, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("the fetch's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every wait ends by the thread's :func:`deadline`."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _time_left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _time_left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        left = _time_left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

_HTTPCORE_TO_HTTPX: tuple[tuple[type[Exception], type[httpx.RequestError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


def _to_httpx(exc: Exception, request: httpx.Request) -> Exception:
    for core_type, httpx_type in _HTTPCORE_TO_HTTPX:
        if isinstance(exc, core_type):
            return httpx_type(str(exc) or core_type.__name__, request=request)
    return exc


class PinningBackend(httpcore.NetworkBackend):
    """httpcore network backend: resolve once, check every address, connect to a checked one.

    Raises :class:`docmunch.errors.BlockedAddress` before any socket is opened, and
    :class:`docmunch.errors.FetchError` when the name does not resolve; connection failures are
    httpcore's ``ConnectError``/``ConnectTimeout`` (the last address's, after trying each).
    """

    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = resolve(host, port, self.policy)
        last_error: Exception | None = None
        for address in addresses:
            try:
                stream = self._inner.connect_tcp(
                    address,
                    port,
                    timeout=_time_left(timeout, httpcore.ConnectTimeout),
                    local_address=local_address,
                    socket_options=socket_options,
                )
                return _DeadlineStream(stream)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise FetchError("unix sockets are not supported")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _Stream(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except Exception as exc:
            mapped = _to_httpx(exc, self._request)
            if mapped is exc:
                raise
            raise mapped from exc

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


@functools.cache
def _default_ssl_context(trust_env: bool) -> ssl.SSLContext:
    """httpx's default verifying context, built once per process (loading CAs takes ~0.1 s)."""
    return httpx.create_ssl_context(True, trust_env=trust_env)


class GuardedTransport(httpx.BaseTransport):
    """Direct connections through :class:`PinningBackend`; env proxies through httpx's own
    proxy transport after checking the target's addresses.

    ``trust_env`` enables the proxy env vars (and ``SSL_CERT_FILE``/``SSL_CERT_DIR``); ``verify``
    is an ``ssl.SSLContext``, a CA bundle path or ``True``. HTTP/1.1 only; ``max_connections``
    bounds the pool.
    """

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        trust_env: bool = True,
        verify: ssl.SSLContext | str | bool = True,
        max_connections: int = 32,
    ) -> None:
        self.policy = policy
        self.backend = PinningBackend(policy)
        if isinstance(verify, ssl.SSLContext):
            self._ssl_context = verify
        elif verify is True:
            self._ssl_context = _default_ssl_context(trust_env)
        else:
            self._ssl_context = httpx.create_ssl_context(verify, trust_env=trust_env)
        self._pool = httpcore.ConnectionPool(
            ssl_context=self._ssl_context,
            max_connections=max_connections,
            max_keepalive_connections=max_connections // 2,
            network_backend=self.backend,
        )
        self._proxies: dict[str, str] = urllib.request.getproxies_environment() if trust_env else {}
        self._proxy_transports: dict[str, httpx.HTTPTransport] = {}
        self._lock = threading.Lock()

    def _proxy_for(self, url: httpx.URL) -> str | None:
        bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # not in typeshed
        if not self._proxies or bypass(url.host, self._proxies):
            return None
        return self._proxies.get(url.scheme) or self._proxies.get("all")

    def _check_before_proxy(self, url: httpx.URL) -> None:
        """Resolve the target here and check every address; a name that does not resolve here
        cannot be checked, so it is refused (the proxy would resolve it where the guard cannot look).
        """
        default_port = 443 if url.scheme == "https" else 80
        try:
            resolve(url.host, url.port or default_port, self.policy)
        except BlockedAddress:
            raise
        except FetchError as exc:
            raise BlockedAddress(
                f"cannot check {url.host}: it does not resolve here ({exc}) and the proxy would "
                f"resolve it instead; set {ALLOW_PRIVATE_ENV}=1 (CLI: --allow-private) to let "
                "the proxy reach names only it can resolve",
                reason="unresolvable name behind a proxy",
            ) from None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        proxy = self._proxy_for(request.url)
        if proxy is not None:
            if not self.policy.allow_private:
                self._check_before_proxy(request.url)
            with self._lock:
                transport = self._proxy_transports.get(proxy)
                if transport is None:
                    transport = httpx.HTTPTransport(proxy=proxy, verify=self._ssl_context)
                    self._proxy_transports[proxy] = transport
            return transport.handle_request(request)
        assert isinstance(request.stream, httpx.SyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = self._pool.handle_request(core_request)
        except Exception as exc:
            mapped = _to_httpx(exc, request)
            if mapped is exc:
                raise
            raise mapped from exc
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Stream(response.stream, request),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()
        for transport in self._proxy_transports.values():
            transport.close()
