"""The fetcher: one safe, bounded, polite GET with redirects, retries and conditional requests."""

from __future__ import annotations

import random
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any

import httpx

import docmunch
from docmunch.errors import (
    DecodeError,
    FetchError,
    HTTPStatusError,
    NetworkError,
    TooLarge,
    UnsupportedContentType,
)
from docmunch.fetch._body import Body, Want
from docmunch.fetch.charset import decode_html, decode_text
from docmunch.fetch.decoders import ACCEPT_ENCODING, make_decoder
from docmunch.fetch.failures import STACK_ERRORS, as_fetch_error
from docmunch.fetch.mime import (
    BINARY_SNIFF_BYTES,
    Kind,
    is_binary_text,
    kind_for,
    parse_content_type,
    sniff_mime,
)
from docmunch.fetch.origin import origin_of
from docmunch.fetch.ratelimit import HostLimiter
from docmunch.fetch.redirects import RedirectChain, resolve_location
from docmunch.fetch.result import FetchResult, joined_headers, parse_retry_after, remote_address
from docmunch.fetch.ssrf import AddressPolicy, IPNetwork, check_url
from docmunch.fetch.transport import GuardedTransport
from docmunch.fetch.transport import deadline as network_deadline
from docmunch.limits import Limit

__all__ = [
    "DEFAULT_ACCEPT",
    "DEFAULT_MAX_BODY_BYTES",
    "FETCH_TOTAL_SECONDS",
    "Fetcher",
    "fetch_url",
]

DEFAULT_MAX_BODY_BYTES = 10 * 2**20
"""Largest body (bytes, after decompression) a page may have: 10 MiB, far above any real docs page."""

DEFAULT_ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.1"
FETCH_TOTAL_SECONDS = Limit("FETCH_TOTAL_SECONDS", 120, "seconds")
"""Seconds one fetch may take in all (connecting, redirects, retry waits and the whole body),
whatever the server's pace; ``DOCMUNCH_FETCH_TOTAL_SECONDS`` raises it. Used when a
:class:`Fetcher` is made without ``total_timeout``."""

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_Response = tuple[httpx.Response, bytes]
_Final = tuple[httpx.Response, bytes, str | None]


@dataclass(frozen=True, slots=True)
class _Deadline:
    """Internal: when one fetch started and must end (``time.monotonic()`` seconds)."""

    started: float
    seconds: float
    env: str | None
    """The variable that sets ``seconds``, or ``None`` when the caller chose them."""

    @property
    def at(self) -> float:
        """The deadline itself (``time.monotonic()`` seconds)."""
        return self.started + self.seconds

    def remaining(self) -> float:
        """Seconds left (negative once past the deadline)."""
        return self.started + self.seconds - time.monotonic()

    def error(self, url: str) -> NetworkError:
        """The one-line error for ``url`` past the deadline."""
        hint = f"; set {self.env} to raise it" if self.env else ""
        return NetworkError(
            f"timed out after {self.seconds:g} s reading {url} "
            f"(the limit for the whole fetch, redirects and retries included{hint})",
            url=url,
        )


class _Retry(Exception):
    """Internal: the attempt got a retryable status."""

    def __init__(self, status: int, wait: float | None) -> None:
        super().__init__(status)
        self.status = status
        self.wait = wait


class Fetcher:
    """Thread-safe HTTP(S) fetcher; make one per run and share it (a context manager).

    Arguments (all keyword-only):
      ``allow_private``: lift the SSRF guard; ``None`` reads ``DOCMUNCH_ALLOW_PRIVATE``.
      ``allowed_networks``: networks reachable even with the guard on (tests: ``["127.0.0.1/32"]``).
      ``max_bytes``: body cap in bytes, enforced after decompression (default 10 MiB).
      ``timeout``: ``(connect, read)`` seconds (read = longest silence between received bytes);
      ``total_timeout``: seconds for the whole fetch (connecting, redirects, retry waits and
      the body), enforced whatever the server's pace: every network read waits at most the time
      left and the body is checked after each read, so a server dripping bytes cannot hold a
      worker past it (:class:`NetworkError` "timed out after N s reading URL …"); ``None`` (the
      default) reads :data:`FETCH_TOTAL_SECONDS` (120 s, ``DOCMUNCH_FETCH_TOTAL_SECONDS``) at
      each fetch.
      ``max_redirects``: redirects followed (each hop re-checked by the guard); default 5.
      ``retries``: extra attempts on ``retry_statuses`` (429/503) per hop; ``backoff``: base
      seconds of the exponential backoff used without ``Retry-After``; ``max_retry_wait``: the
      longest wait (s) docmunch accepts — a longer ``Retry-After`` ends the retries.
      ``rate_per_host``: ``(requests/s, burst)`` token bucket per host, ``None`` = unlimited;
      ``concurrency_per_host``: requests in flight per host.
      ``trust_env``: take proxies from ``HTTP(S)_PROXY``/``ALL_PROXY``/``NO_PROXY``.
      ``verify``: TLS verification as httpx takes it (an ``ssl.SSLContext``, a CA bundle path, or
      ``True`` for the system/certifi CAs).
      ``sleep``: the sleep function (seconds) used for waits.
    """

    def __init__(
        self,
        *,
        allow_private: bool | None = None,
        allowed_networks: Iterable[str | IPNetwork] = (),
        max_bytes: int = DEFAULT_MAX_BODY_BYTES,
        timeout: tuple[float, float] = (10.0, 30.0),
        total_timeout: float | None = None,
        max_redirects: int = 5,
        retries: int = 3,
        retry_statuses: frozenset[int] = frozenset({429, 503}),
        backoff: float = 0.5,
        max_retry_wait: float = 60.0,
        rate_per_host: tuple[float, float] | None = (4.0, 8.0),
        concurrency_per_host: int = 4,
        trust_env: bool = True,
        verify: ssl.SSLContext | str | bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = AddressPolicy.from_env(allow_private, allowed_networks)
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.max_redirects = max_redirects
        self.retries = retries
        self.retry_statuses = retry_statuses
        self.backoff = backoff
        self.max_retry_wait = max_retry_wait
        self.limiter = HostLimiter(rate=rate_per_host, concurrency=concurrency_per_host, sleep=sleep)
        """Per-host limits; a crawler may call ``fetcher.limiter.set_rate(host, …)``."""
        self._sleep = sleep
        self.transport = GuardedTransport(self.policy, trust_env=trust_env, verify=verify)
        connect, read = timeout
        self._client = httpx.Client(
            transport=self.transport,
            trust_env=False,  # proxies are the transport's job; no .netrc credentials
            timeout=httpx.Timeout(connect=connect, read=read, write=read, pool=read),
            headers={"User-Agent": f"docmunch/{docmunch.__version__}", "Accept-Encoding": ACCEPT_ENCODING},
            follow_redirects=False,
        )

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close pooled connections."""
        self._client.close()

    def fetch(
        self,
        url: str,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
        accept: str | None = None,
        headers: Mapping[str, str] | None = None,
        raw: bool = False,
        sink: IO[bytes] | None = None,
        max_bytes: int | None = None,
        truncate: bool = False,
        before_request: Callable[[str, str | None], None] | None = None,
    ) -> FetchResult:
        """GET ``url``; follow redirects, retry 429/503, decode the body.

        ``etag``/``last_modified`` (from an earlier :class:`FetchResult`) make the request
        conditional; a 304 gives ``not_modified=True`` and an empty body. ``accept`` overrides
        the ``Accept`` header; ``headers`` adds request headers (an ``Authorization`` header is
        sent to the first URL's origin only, never after a redirect to another origin).
        ``raw=True`` fetches any content type (sitemaps, tarballs) and any final status: the
        result then has ``kind=None``, ``text=""`` and the undecoded ``body`` (still capped by
        ``max_bytes``), and a 4xx/5xx answer is returned, not raised. ``sink`` (a writable binary
        file) receives the body as it streams instead of ``FetchResult.body`` (then ``b""``), so a
        large download (a repository tarball) never sits in memory; use it with ``raw=True``.
        ``max_bytes`` overrides the fetcher's body cap (bytes, after decompression) for this call;
        ``truncate=True`` keeps the first ``max_bytes`` bytes instead of raising :class:`TooLarge`
        (robots.txt: RFC 9309 §2.5 reads the first 500 KiB).
        ``before_request(url, redirected_from)`` is called before each URL is requested (the
        first with ``redirected_from=None``, then every redirect target with the URL that sent
        it; after the SSRF check); it may raise a :class:`FetchError` to stop (a crawl's
        robots.txt, scope and once-per-run rules), which propagates unchanged.

        The whole call (redirects, retry waits, body) ends within the fetcher's
        ``total_timeout`` seconds (default :data:`FETCH_TOTAL_SECONDS`), or raises
        :class:`NetworkError` "timed out after N s … URL …".

        Raises :class:`BlockedAddress` (SSRF guard, any hop), :class:`HTTPStatusError` (4xx/5xx,
        or retries exhausted), :class:`TooLarge`, :class:`UnsupportedContentType`,
        :class:`DecodeError`, :class:`RedirectLoop` (a hop back to a URL of this chain, named in
        the message), :class:`RedirectError` (a ``Location`` that is not an http(s) URL with a
        host, or more than ``max_redirects`` hops), :class:`InvalidURL`, :class:`NetworkError`
        (DNS, connection, TLS, protocol errors, timeouts, the whole-fetch deadline);
        :class:`ConfigError` when ``DOCMUNCH_FETCH_TOTAL_SECONDS`` is not a positive integer.
        Nothing else: every exception of the HTTP stack is mapped (:mod:`docmunch.fetch.failures`).
        """
        if sink is not None and not raw:
            raise ValueError("sink= streams an undecoded body: pass raw=True with it")
        if self.total_timeout is None:
            deadline = _Deadline(time.monotonic(), FETCH_TOTAL_SECONDS.value(), FETCH_TOTAL_SECONDS.env)
        else:
            deadline = _Deadline(time.monotonic(), self.total_timeout, None)
        extra = dict(headers or {})
        sent = {"Accept": accept or DEFAULT_ACCEPT, **extra}
        has_auth = any(k.lower() == "authorization" for k in extra)
        first_origin = origin_of(url)
        if etag:
            sent["If-None-Match"] = etag
        if last_modified:
            sent["If-Modified-Since"] = last_modified
        want = Want(raw, sink, max_bytes if max_bytes is not None else self.max_bytes, truncate)
        chain = RedirectChain(url, max_redirects=self.max_redirects)
        current = url
        previous: str | None = None
        while True:
            check_url(current, policy=self.policy)
            if before_request is not None:
                before_request(current, previous)
            if has_auth and origin_of(current) != first_origin:
                sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
            outcome = self._hop(current, sent, deadline, want)
            if isinstance(outcome, str):
                chain.add(outcome)
                previous, current = current, outcome
                continue
            response, body, remote = outcome
            return self._result(current, response, body, remote, chain.redirects, deadline.started, raw)

    def _hop(self, url: str, headers: Mapping[str, str], deadline: _Deadline, want: Want) -> str | _Final:
        """One URL with its retries: the next URL for a redirect, else (response, body)."""
        attempt = 0
        while True:
            try:
                return self._attempt(url, headers, deadline, want)
            except _Retry as retry:
                wait = retry.wait
                if wait is None:  # exponential backoff with up to 25 % jitter
                    wait = self.backoff * 2**attempt * (1 + random.random() / 4)
                cap, total = self.max_retry_wait, deadline.seconds
                if attempt >= self.retries or wait > cap or wait >= deadline.remaining():
                    if wait > cap:
                        why = f"server asked to wait {wait:.0f} s, more than the {cap:.0f} s cap"
                    elif attempt >= self.retries:
                        why = f"gave up after {attempt + 1} attempts"
                    else:
                        why = f"waiting {wait:.0f} s more would pass the {total:g} s limit for the fetch"
                    raise HTTPStatusError(
                        f"HTTP {retry.status} from {url} ({why})", url=url, status_code=retry.status
                    ) from None
                attempt += 1
                self._sleep(wait)

    def _attempt(self, url: str, headers: Mapping[str, str], deadline: _Deadline, want: Want) -> str | _Final:
        """One request. The transport is called directly (not ``Client.send``): httpx's own
        redirect handling would parse every ``Location`` and raise its own errors for odd ones.

        Each of httpx's timeouts (connect, every read, write, pool) is cut to the time left, so
        no single wait outlasts the deadline; a timeout past it is reported as the deadline's.
        """
        try:
            request = self._client.build_request("GET", url, headers=headers)
            key = origin_of(url)
            host = key.key if key is not None else request.url.host
            with self.limiter.slot(host), network_deadline(deadline.at):  # every read ends by it
                left = deadline.remaining()
                if left <= 0:
                    raise deadline.error(url)
                connect, read = self.timeout
                cut = httpx.Timeout(min(read, left), connect=min(connect, left))  # read, write, pool
                request.extensions["timeout"] = cut.as_dict()
                response = self.transport.handle_request(request)
                response.request = request
                remote = remote_address(response)
                try:
                    outcome = self._handle(url, response, deadline, want)
                    return outcome if isinstance(outcome, str) else (*outcome, remote)
                finally:
                    response.close()
        except _Retry:
            raise
        except FetchError as exc:
            if exc.url is not None:
                raise
            raise self._mapped(exc, url) from None
        except STACK_ERRORS as exc:
            if deadline.remaining() <= 0:  # a wait cut short by the deadline, not a slow server
                raise deadline.error(url) from None
            raise self._mapped(exc, url) from None

    def _mapped(self, exc: BaseException, url: str) -> FetchError:
        connect, read = self.timeout
        return as_fetch_error(exc, url, connect_timeout=connect, read_timeout=read)

    def _handle(self, url: str, response: httpx.Response, deadline: _Deadline, want: Want) -> str | _Response:
        status = response.status_code
        location = response.headers.get("location")
        if status in _REDIRECTS and location:
            return resolve_location(url, location)
        if status in self.retry_statuses:
            raise _Retry(status, parse_retry_after(response.headers.get("retry-after")))
        if status == 304:
            return response, b""
        if want.raw:
            return response, self._read_body(url, response, deadline, want)
        if not 200 <= status < 300:
            phrase = response.reason_phrase or ""
            raise HTTPStatusError(
                f"HTTP {status} {phrase} from {url}".replace("  ", " "), url=url, status_code=status
            )
        mime, _charset = parse_content_type(response.headers.get("content-type"))
        if mime:
            kind_for(mime, url=url)  # refuse before downloading the body
        return response, self._read_body(url, response, deadline, want)

    def _read_body(self, url: str, response: httpx.Response, deadline: _Deadline, want: Want) -> bytes:
        """The decoded body, stopping as soon as it passes ``want.limit`` (raw or decoded bytes).

        With ``want.sink`` the decoded bytes are written there and ``b""`` is returned; with
        ``want.truncate`` the first ``want.limit`` bytes are kept instead of raising. The body is
        read as it arrives (``iter_raw()`` without a chunk size yields each network read, at most
        64 KiB), and the deadline is checked after every read: with a chunk size, httpx would
        collect a whole chunk first, and a server dripping a few bytes at a time never got there.
        """
        limit = want.limit
        encoding = response.headers.get("content-encoding")
        declared = response.headers.get("content-length", "")
        if not want.truncate and not encoding and declared.isdigit() and int(declared) > limit:
            raise self._too_large(url, limit)
        try:
            decoder = make_decoder(encoding)
        except DecodeError as exc:
            raise DecodeError(f"{exc} from {url}", url=url) from None
        body = Body(want.sink)
        cap = limit if want.truncate else None
        raw_total = 0
        try:
            for chunk in response.iter_raw():
                raw_total += len(chunk)
                if raw_total > limit and not want.truncate:
                    raise self._too_large(url, limit)
                for piece in decoder.feed(chunk):
                    body.add(piece, cap)
                    if body.size > limit:
                        raise self._too_large(url, limit)
                    if body.size >= limit and want.truncate:
                        return bytes(body.buffer)
                if deadline.remaining() <= 0:
                    raise deadline.error(url)
            for piece in decoder.flush():
                body.add(piece, cap)
                if body.size > limit:
                    raise self._too_large(url, limit)
        except DecodeError as exc:
            raise DecodeError(f"{exc} from {url}", url=url) from None
        return bytes(body.buffer)

    def _too_large(self, url: str, limit: int) -> TooLarge:
        return TooLarge(
            f"{url} is larger than the {limit} byte limit (after decompression)", url=url, limit_bytes=limit
        )

    def _result(
        self,
        url: str,
        response: httpx.Response,
        body: bytes,
        remote: str | None,
        redirects: tuple[str, ...],
        started: float,
        raw: bool = False,
    ) -> FetchResult:
        headers = {k.lower(): v for k, v in joined_headers(response).items()}
        mime, http_charset = parse_content_type(headers.get("content-type"))
        not_modified = response.status_code == 304
        kind: Kind | None = None
        text, charset = "", ""
        if raw and not mime:
            mime = sniff_mime(body)
        if not not_modified and not raw:
            if not mime:
                mime = sniff_mime(body)
            kind = kind_for(mime, url=url)
            if is_binary_text(body, http_charset):
                raise UnsupportedContentType(
                    f"binary content at {url}: it is served as {mime} but its first {BINARY_SNIFF_BYTES} "
                    "bytes hold a NUL or control bytes no text has (not indexed, as a binary local file "
                    "is skipped)",
                    url=url,
                    content_type=mime,
                )
            decode = decode_html if kind == "html" else decode_text
            text, charset = decode(body, http_charset=http_charset)
        return FetchResult(
            url=url,
            status=response.status_code,
            headers=headers,
            content_type=mime,
            kind=kind,
            charset=charset,
            body=body,
            text=text,
            etag=headers.get("etag"),
            last_modified=headers.get("last-modified"),
            not_modified=not_modified,
            redirects=redirects,
            elapsed_ms=(time.monotonic() - started) * 1000,
            remote_address=remote,
        )


def fetch_url(
    url: str,
    *,
    etag: str | None = None,
    last_modified: str | None = None,
    accept: str | None = None,
    raw: bool = False,
    **fetcher_options: Any,
) -> FetchResult:
    """One-shot :meth:`Fetcher.fetch` with a throw-away :class:`Fetcher`.

    ``fetcher_options`` go to :class:`Fetcher` (e.g. ``allow_private=True``, ``max_bytes``);
    the other arguments to :meth:`Fetcher.fetch`. Same errors as :meth:`Fetcher.fetch`.
    """
    with Fetcher(**fetcher_options) as fetcher:
        return fetcher.fetch(url, etag=etag, last_modified=last_modified, accept=accept, raw=raw)
