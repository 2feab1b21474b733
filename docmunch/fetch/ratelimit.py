"""Per-host politeness: a token-bucket rate limit and a concurrency limit, thread-safe.

One :class:`HostLimiter` per run, shared by every thread that fetches (the crawler's workers
included). The fetcher keys it by origin (:attr:`docmunch.fetch.origin.Origin.key`,
``scheme://host:port``), as robots.txt is (RFC 9309 §2.3): two ports of one host are two sites
with their own ``Crawl-delay``. A crawler can tighten one origin, e.g. from robots.txt
``Crawl-delay``, with :meth:`HostLimiter.set_rate`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["HostLimiter", "TokenBucket"]


class TokenBucket:
    """Token bucket (rate ``rate`` tokens/s, capacity ``burst`` tokens), starting full.

    :meth:`acquire` takes one token, sleeping until it is available. Waiters reserve their token
    under the lock (the balance may go negative), so N threads arriving together are spaced
    1/rate s apart in arrival order, with no thundering herd.
    """

    def __init__(self, rate: float, burst: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 tokens/s and burst >= 1 token")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._last = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take one token now; return how long (s) the caller must wait before using it."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            self._tokens -= 1
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def acquire(self, sleep: Callable[[float], None] = time.sleep) -> float:
        """Take one token, sleeping as needed; returns the time slept (s)."""
        wait = self.reserve()
        if wait > 0:
            sleep(wait)
        return wait


class HostLimiter:
    """Rate and concurrency limits keyed by origin (``Origin.key``: ``scheme://host:port``).

    ``rate`` = (requests per second, burst) for every host, ``None`` for no rate limit;
    ``concurrency`` = requests in flight per host at once (a request holds its slot until its
    body is read).
    """

    def __init__(
        self,
        *,
        rate: tuple[float, float] | None = (4.0, 8.0),
        concurrency: int = 4,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        self._rate = rate
        self._concurrency = concurrency
        self._sleep = sleep
        self._buckets: dict[str, TokenBucket | None] = {}
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def set_rate(self, host: str, rate: float | None, burst: float = 1.0) -> None:
        """Override one origin's rate (requests/s; ``None`` = unlimited), e.g. from Crawl-delay.

        ``host`` is the key the fetcher uses: ``Origin.key`` (``"http://127.0.0.1:8731"``).
        """
        with self._lock:
            self._buckets[host.lower()] = None if rate is None else TokenBucket(rate, burst)

    def rate_of(self, host: str) -> TokenBucket | None:
        """The bucket that limits ``host`` (an origin key); ``None`` when it is unlimited."""
        return self._bucket(host.lower())

    def _bucket(self, host: str) -> TokenBucket | None:
        with self._lock:
            if host not in self._buckets:
                self._buckets[host] = TokenBucket(*self._rate) if self._rate else None
            return self._buckets[host]

    def _slot(self, host: str) -> threading.BoundedSemaphore:
        with self._lock:
            if host not in self._slots:
                self._slots[host] = threading.BoundedSemaphore(self._concurrency)
            return self._slots[host]

    @contextmanager
    def slot(self, host: str) -> Iterator[None]:
        """Hold one of ``host``'s concurrency slots, after waiting for a rate token."""
        host = host.lower()
        semaphore = self._slot(host)
        with semaphore:
            bucket = self._bucket(host)
            if bucket is not None:
                bucket.acquire(self._sleep)
            yield
