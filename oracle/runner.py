"""Run Mozilla Readability.js in headless Debian Chromium, fully offline, with a per-page JSON cache.

How a page is run (one browser and one tab for the whole run):

1. Chromium (``/usr/bin/chromium``) is launched by Playwright with a fresh user-data dir, no
   network (``--host-resolver-rules=MAP * ~NOTFOUND``; every request is aborted by a route
   handler, except the one stub page it fulfils itself) and page JavaScript disabled.
2. The stub page lives at :data:`DOCUMENT_URL` — the document URL Readability's own test-suite
   uses (``test/generate-testcase.js``) — so relative links resolve the same on every run, and a
   page's own ``<base href>`` still applies as it does upstream.
3. Readability.js's source (from ``oracle/node_modules``, pinned by ``package-lock.json``) is
   injected with ``page.evaluate``; each fixture is parsed by ``DOMParser`` (which never runs the
   fixture's scripts nor loads its resources) and handed to ``new Readability(doc, options).parse()``.

Results are cached as JSON under ``oracle/.cache/<oracle version>/<sha256 of the source>.json``;
a run whose pages are all cached never starts the browser.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from oracle import ORACLE_DIR
from oracle.errors import OracleError

__all__ = [
    "CHROMIUM",
    "DOCUMENT_URL",
    "LAUNCH_ARGS",
    "READABILITY_OPTIONS",
    "RUNNER_VERSION",
    "OracleResult",
    "OracleRunner",
    "RunStats",
    "cache_path",
    "iter_cache",
    "oracle_version",
    "readability_source",
    "readability_version",
    "run_oracle",
]

RUNNER_VERSION = "1"
"""Bumped whenever this runner changes what it returns; part of the cache key."""

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (``apt-get install chromium``); Playwright cannot download browsers here."""

DOCUMENT_URL = "http://fakehost/test/page.html"
"""Document URL of every parsed page (as in upstream's ``test/generate-testcase.js``)."""

READABILITY_OPTIONS: dict[str, Any] = {"classesToPreserve": ["caption"]}
"""Options upstream used to generate ``expected.html`` (same file)."""

LAUNCH_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
"""Chromium flags: offline, no background services, no sandbox (containers run as root)."""

PACKAGE_DIR = ORACLE_DIR / "node_modules" / "@mozilla" / "readability"
CACHE_DIR = ORACLE_DIR / ".cache"

_STUB_HTML = "<!DOCTYPE html><html><head><title>oracle</title></head><body></body></html>"

_INJECT_JS = "src => { (0, eval)(src); return typeof Readability; }"

_PARSE_JS = """([html, options]) => {
  const doc = new DOMParser().parseFromString(html, "text/html");
  return {article: new Readability(doc, options).parse()};
}"""


@dataclass(frozen=True, slots=True)
class OracleResult:
    """What Readability.js returned for one page (``Readability.parse()``, field names snake-cased)."""

    ok: bool
    """False when Readability returned ``null`` (no article found); the text fields are then empty."""
    title: str
    """Article title (``article.title``)."""
    byline: str | None
    excerpt: str | None
    site_name: str | None
    lang: str | None
    dir: str | None
    published_time: str | None
    content: str
    """Article HTML (``innerHTML`` of Readability's content element)."""
    text_content: str
    """``textContent`` of the content element (no whitespace added between blocks)."""
    length: int
    """``len(textContent)`` in UTF-16 code units, as JavaScript counts it."""
    ms: float
    """Wall time of one page (transfer to Chromium, parse, extract, transfer back), milliseconds,
    recorded when the result was computed (cached results keep it)."""
    version: str
    """:func:`oracle_version` that produced the result."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OracleResult:
        """Rebuild from :meth:`to_json` output; raises ``KeyError`` on a malformed record."""
        return cls(**{name: data[name] for name in cls.__slots__})

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return asdict(self)


def readability_source() -> str:
    """Source of ``Readability.js`` from the pinned npm package; raises :class:`OracleError` if absent."""
    path = PACKAGE_DIR / "Readability.js"
    if not path.is_file():
        raise OracleError(f"{path} is missing; run `bash oracle/setup.sh` (npm ci in oracle/)")
    return path.read_text(encoding="utf-8")


def readability_version() -> str:
    """Installed ``@mozilla/readability`` version (from its ``package.json``); raises :class:`OracleError`."""
    path = PACKAGE_DIR / "package.json"
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError) as exc:
        raise OracleError(f"cannot read {path}: {exc}; run `bash oracle/setup.sh`") from exc


def oracle_version() -> str:
    """Cache key part: ``readability-<npm version>+runner-<RUNNER_VERSION>``."""
    return f"readability-{readability_version()}+runner-{RUNNER_VERSION}"


def cache_path(source: bytes, *, version: str, cache_dir: Path = CACHE_DIR) -> Path:
    """Cache file for one page: ``<cache_dir>/<version>/<sha256(source) hex>.json``."""
    return cache_dir / version / f"{hashlib.sha256(source).hexdigest()}.json"


def _decode(source: bytes) -> str:
    """Fixture bytes as text: UTF-8 (BOM stripped), undecodable bytes replaced."""
    return source.decode("utf-8-sig", errors="replace")


def _result(raw: dict[str, Any], ms: float, version: str) -> OracleResult:
    article = raw.get("article")
    if not article:
        return OracleResult(False, "", None, None, None, None, None, None, "", "", 0, ms, version)
    return OracleResult(
        ok=True,
        title=article.get("title") or "",
        byline=article.get("byline"),
        excerpt=article.get("excerpt"),
        site_name=article.get("siteName"),
        lang=article.get("lang"),
        dir=article.get("dir"),
        published_time=article.get("publishedTime"),
        content=article.get("content") or "",
        text_content=article.get("textContent") or "",
        length=int(article.get("length") or 0),
        ms=ms,
        version=version,
    )


class OracleRunner:
    """One headless Chromium with Readability.js loaded; use as a context manager.

    ``with OracleRunner() as runner: result = runner.extract(html)``. Raises
    :class:`OracleError` when Chromium or the npm package is missing.
    """

    def __init__(self, *, executable: Path = CHROMIUM) -> None:
        self._executable = executable
        self._version = oracle_version()
        self._source = readability_source()
        self._playwright: Any = None
        self._context: Any = None
        self._page: Any = None
        self._profile: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> OracleRunner:
        if not self._executable.is_file():
            raise OracleError(
                f"{self._executable} not found; run `bash oracle/setup.sh` (apt-get install chromium)"
            )
        from playwright.sync_api import sync_playwright

        self._profile = tempfile.TemporaryDirectory(prefix="docmunch-oracle-")
        self._playwright = sync_playwright().start()
        try:
            self._context = self._playwright.chromium.launch_persistent_context(
                self._profile.name,
                executable_path=str(self._executable),
                headless=True,
                args=list(LAUNCH_ARGS),
                java_script_enabled=False,
                offline=True,
            )
            self._page = self._context.pages[0] if self._context.pages else self._context.new_page()
            self._page.route("**/*", self._route)
            self._page.goto(DOCUMENT_URL)
            kind = self._page.evaluate(_INJECT_JS, self._source)
        except Exception:
            self.__exit__(None, None, None)
            raise
        if kind != "function":
            self.__exit__(None, None, None)
            raise OracleError(f"Readability.js did not load in Chromium (typeof Readability = {kind!r})")
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._context is not None:
            self._context.close()
            self._context = None
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None
        if self._profile is not None:
            self._profile.cleanup()
            self._profile = None

    @staticmethod
    def _route(route: Any) -> None:
        if route.request.url == DOCUMENT_URL:
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=_STUB_HTML)
        else:
            route.abort()

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Evaluate a JavaScript expression in the stub page (for tests: ``evaluate("1+1") == 2``)."""
        if self._page is None:
            raise RuntimeError("OracleRunner used outside its `with` block")
        return self._page.evaluate(expression, arg)

    def extract(self, source: bytes | str) -> OracleResult:
        """Run Readability.js on one page's HTML (bytes are decoded as UTF-8); never caches."""
        html = _decode(source) if isinstance(source, bytes) else source
        started = time.perf_counter()
        raw = self.evaluate(_PARSE_JS, [html, READABILITY_OPTIONS])
        return _result(raw, (time.perf_counter() - started) * 1000.0, self._version)


def _read_cache(path: Path, version: str) -> OracleResult | None:
    try:
        result = OracleResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return result if result.version == version else None


def _write_cache(path: Path, result: OracleResult) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(result.to_json(), fh, ensure_ascii=False)
    os.replace(tmp, path)


@dataclass(frozen=True, slots=True)
class RunStats:
    """What :func:`run_oracle` did: pages served from cache vs computed, wall time in milliseconds."""

    cached: int
    computed: int
    browser_started: bool
    wall_ms: float


def run_oracle(
    pages: Iterable[tuple[str, bytes]], *, refresh: bool = False, cache_dir: Path = CACHE_DIR
) -> tuple[dict[str, OracleResult], RunStats]:
    """Oracle results for ``(name, source bytes)`` pairs, from cache when possible.

    The browser starts only if some page misses the cache (or ``refresh`` is true); every computed
    result is written back. Returns ``({name: result}, stats)``; raises :class:`OracleError`.
    """
    started = time.perf_counter()
    version = oracle_version()
    results: dict[str, OracleResult] = {}
    todo: list[tuple[str, bytes, Path]] = []
    for name, source in pages:
        path = cache_path(source, version=version, cache_dir=cache_dir)
        hit = None if refresh else _read_cache(path, version)
        if hit is None:
            todo.append((name, source, path))
        else:
            results[name] = hit
    cached = len(results)
    if todo:
        with OracleRunner() as runner:
            for name, source, path in todo:
                result = runner.extract(source)
                _write_cache(path, result)
                results[name] = result
    wall = (time.perf_counter() - started) * 1000.0
    return results, RunStats(cached, len(todo), bool(todo), wall)


def iter_cache(cache_dir: Path = CACHE_DIR) -> Iterator[Path]:
    """Every cached result file of the current oracle version (for housekeeping and tests)."""
    yield from sorted((cache_dir / oracle_version()).glob("*.json"))
