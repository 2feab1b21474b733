"""Fixtures for web-page tests: a real loopback server over a docs-sites fixture folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web import siteserver  # the loopback server helper


@pytest.fixture
def httpx_site(fixtures_dir: Path) -> Iterator[object]:
    """The httpx MkDocs-Material pages, served as a static site."""
    server = siteserver.SiteServer(fixtures_dir / "docs-sites" / "httpx-mkdocs-material")
    yield server
    server.close()


@pytest.fixture
def sphinx_site(fixtures_dir: Path) -> Iterator[object]:
    """The attrs Sphinx/furo pages, served as a static site."""
    server = siteserver.SiteServer(fixtures_dir / "docs-sites" / "attrs-sphinx-furo")
    yield server
    server.close()
