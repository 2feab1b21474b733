"""Fixtures for web-page tests: a real loopback server over a docs-sites fixture folder."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


def _load_siteserver():  # test folders are not packages: load the helper by path
    name = "docmunch_test_siteserver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("siteserver.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


siteserver = _load_siteserver()


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
