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
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parent.parent

settings.register_profile("default", derandomize=True)
"""``make test`` draws the same examples on every run (a gate must not turn red because one run
drew a new document): each property test's examples come from a seed derived from the test
itself (Hypothesis' ``derandomize``), so a failure reproduces and a change of the test changes
them. A test's own ``@settings`` (``max_examples``, ``deadline``) still applies."""
settings.register_profile("explore", derandomize=False)
"""New examples on every run: ``pytest --hypothesis-profile=explore`` (what found the known
parser gaps that ``tests/section/test_block_oracle.py`` names)."""
settings.load_profile("default")


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
