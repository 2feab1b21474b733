"""Errors of the oracle harness; all are :class:`docmunch.errors.DocmunchError` so the CLI prints one line.

::

    DocmunchError
    └── OracleError                 the harness cannot run (missing browser, npm package, fixture)
        └── FixtureMismatch         a fixture's bytes no longer match the sha256 in pages.toml (path)
"""

from __future__ import annotations

from pathlib import Path

from docmunch.errors import DocmunchError

__all__ = ["FixtureMismatch", "OracleError"]


class OracleError(DocmunchError):
    """The oracle harness cannot run: Chromium, the npm package or a fixture file is missing or broken."""


class FixtureMismatch(OracleError):
    """A fixture's sha256 differs from the one in ``fixtures/pages.toml``; ``path`` is the file."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path
