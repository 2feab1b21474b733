"""The fixture sets of the harness, read from ``fixtures/pages.toml``.

Two sets (data files stay in ``$DOCMUNCH_FIXTURES``; the manifest records path, sha256 and
upstream origin of each):

- **gate** — 20 Mozilla Readability test pages scored by ``python -m oracle gate``;
- **wide** — every dev Readability test page plus every ``docs-sites`` page (with ``truth.json``).

:func:`render_manifest` writes the manifest from the fixtures folder (``python -m oracle manifest``);
:func:`load_pages` reads it back and checks every file's sha256.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from oracle import REPO_ROOT
from oracle.errors import FixtureMismatch, OracleError

__all__ = [
    "GATE_PAGES",
    "MANIFEST",
    "READABILITY_COMMIT",
    "Page",
    "fixtures_root",
    "load_pages",
    "render_manifest",
]

MANIFEST = REPO_ROOT / "fixtures" / "pages.toml"

READABILITY_REPO = "https://github.com/mozilla/readability"
READABILITY_COMMIT = "ab4027a8b37669745016869a37a504727992b2ba"
"""Upstream commit the test pages were copied from (``readability-test-pages/NOTICE``)."""

GATE_PAGES: tuple[str, ...] = (
    "001", "aclu", "ars-1", "bbc-1", "breitbart", "guardian-1", "theverge", "videos-1", "webmd-1",
    "medium-1", "blogger", "daringfireball-1", "wikipedia", "wikipedia-2", "google-sre-book-1",
    "ietf-1", "aktualne", "heise", "qq", "hukumusume",
)  # fmt: skip
"""The 20-page gate set (issue 4)."""

Kind = Literal["readability", "docs"]


@dataclass(frozen=True, slots=True)
class Page:
    """One fixture page of a set."""

    name: str
    """Readability page name (``"aclu"``) or ``"<site>/<path>"`` for docs pages."""
    kind: Kind
    """``"readability"`` (has expected.html + expected-metadata.json) or ``"docs"`` (has truth)."""
    path: Path
    """Absolute path of the page's HTML."""
    sha256: str
    """Hex sha256 of the HTML bytes, as recorded in the manifest (checked on load)."""
    origin: str
    """Where a user elsewhere gets the file (upstream repository path at a pinned commit)."""
    expected_html: Path | None = None
    """Readability pages: upstream's ``expected.html`` (Readability.js output at the pinned commit)."""
    expected_metadata: Path | None = None
    """Readability pages: ``expected-metadata.json`` (title, byline, ...)."""
    truth: dict[str, Any] | None = None
    """Docs pages: this page's entry of the site's ``truth.json`` (main_text, headings, code_blocks)."""

    def source(self) -> bytes:
        """The page's HTML bytes."""
        return self.path.read_bytes()


def fixtures_root() -> Path:
    """``$DOCMUNCH_FIXTURES`` or ``../shared/fixtures``; raises :class:`OracleError` if it is missing."""
    env = os.environ.get("DOCMUNCH_FIXTURES")
    root = Path(env) if env else (REPO_ROOT.parent / "shared" / "fixtures").resolve()
    if not root.is_dir():
        raise OracleError(f"fixtures folder {root} not found; set DOCMUNCH_FIXTURES or run `make fixtures`")
    return root


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _readability_entry(root: Path, name: str) -> list[str]:
    rel = f"readability-test-pages/{name}/source.html"
    origin = f"{READABILITY_REPO}/blob/{READABILITY_COMMIT}/test/test-pages/{name}/source.html"
    return [f"name = {_q(name)}", 'kind = "readability"', f"path = {_q(rel)}",
            f"sha256 = {_q(_sha256(root / rel))}", f"origin = {_q(origin)}"]  # fmt: skip


def render_manifest(root: Path) -> str:
    """TOML text of ``fixtures/pages.toml`` for the fixtures under ``root`` (sha256 computed now)."""
    out = [
        "# docmunch oracle fixture sets: read by oracle/pages.py, written by `python -m oracle manifest`.",
        "# Paths are relative to $DOCMUNCH_FIXTURES (default ../shared/fixtures); the data is never",
        "# committed here. Readability pages come from mozilla/readability test/test-pages/<name>/",
        f"# at commit {READABILITY_COMMIT} (Apache-2.0); docs-sites pages were built",
        "# from the repository and commit named in each site's truth.json `source`.",
        "",
    ]
    for name in GATE_PAGES:
        out += ["[[gate]]", *_readability_entry(root, name), ""]
    for folder in sorted((root / "readability-test-pages").iterdir()):
        if (folder / "source.html").is_file():
            out += ["[[wide]]", *_readability_entry(root, folder.name), ""]
    for site in sorted((root / "docs-sites").iterdir()):
        truth_file = site / "truth.json"
        if not truth_file.is_file():
            continue
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        src = truth["source"]
        for entry in truth["pages"]:
            rel = f"docs-sites/{site.name}/{entry['path']}"
            origin = f"{src['repository']} @ {src['commit']} (docs built by {truth['generator']['name']})"
            out += ["[[wide]]", f"name = {_q(site.name + '/' + entry['path'])}", 'kind = "docs"',
                    f"path = {_q(rel)}", f"sha256 = {_q(_sha256(root / rel))}", f"origin = {_q(origin)}",
                    f"truth = {_q(f'docs-sites/{site.name}/truth.json')}", ""]  # fmt: skip
    return "\n".join(out)


def _truth_entry(
    root: Path, truth_rel: str, page_rel: str, cache: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    if truth_rel not in cache:
        cache[truth_rel] = json.loads((root / truth_rel).read_text(encoding="utf-8"))
    site_dir = str(Path(truth_rel).parent)
    own = page_rel[len(site_dir) + 1 :]
    for entry in cache[truth_rel]["pages"]:
        if entry["path"] == own:
            return dict(entry)
    raise OracleError(f"{truth_rel} has no entry for {own}")


def load_pages(
    which: Literal["gate", "wide"], *, root: Path | None = None, manifest: Path = MANIFEST
) -> list[Page]:
    """Pages of one set, in manifest order, each file's sha256 verified.

    Raises :class:`OracleError` (missing manifest or file) or :class:`FixtureMismatch` (sha256 differs).
    """
    root = fixtures_root() if root is None else root
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise OracleError(f"cannot read {manifest}: {exc}") from exc
    truths: dict[str, dict[str, Any]] = {}
    pages: list[Page] = []
    for item in data.get(which, []):
        path = root / item["path"]
        if not path.is_file():
            raise OracleError(f"fixture {path} is missing (origin: {item['origin']})")
        if _sha256(path) != item["sha256"]:
            raise FixtureMismatch(f"{path} does not match the sha256 in {manifest.name}", path=path)
        if item["kind"] == "readability":
            pages.append(Page(item["name"], "readability", path, item["sha256"], item["origin"],
                              expected_html=path.with_name("expected.html"),
                              expected_metadata=path.with_name("expected-metadata.json")))  # fmt: skip
        else:
            truth = _truth_entry(root, item["truth"], item["path"], truths)
            pages.append(Page(item["name"], "docs", path, item["sha256"], item["origin"], truth=truth))
    if not pages:
        raise OracleError(f"{manifest} has no [[{which}]] pages")
    return pages
