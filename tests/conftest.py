"""Shared pytest fixtures.

External fixtures (real third-party data) are found through one setting,
``DOCMUNCH_FIXTURES`` (default ``../shared/fixtures`` beside the repo); they are never
copied into the repo. ``fixtures/manifest.json`` names every file used, with its sha256 and
upstream origin; ``make fixtures`` fetches them for a user elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_fixtures_dir() -> Path:
    """The external fixtures folder (``$DOCMUNCH_FIXTURES`` or ``../shared/fixtures``)."""
    env = os.environ.get("DOCMUNCH_FIXTURES")
    return Path(env) if env else (REPO_ROOT.parent / "shared" / "fixtures").resolve()


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """Path of the external fixtures; fails (never skips) when they are missing."""
    root = shared_fixtures_dir()
    if not root.is_dir():
        pytest.fail(f"external fixtures not found at {root}; run `make fixtures` or set DOCMUNCH_FIXTURES")
    return root


@pytest.fixture
def docmunch_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``$DOCMUNCH_HOME`` for one test."""
    home = tmp_path / "home"
    monkeypatch.setenv("DOCMUNCH_HOME", str(home))
    return home
