"""Differential harness: Mozilla Readability.js run in Chromium as the extraction oracle.

Public surface (``python -m oracle {refresh,gate,report,baseline}`` drives it):

- :mod:`oracle.runner` — :class:`~oracle.runner.OracleRunner` / :func:`~oracle.runner.run_oracle`:
  Readability.js 0.6.0 in headless Debian Chromium (Playwright), offline, cached per page.
- :mod:`oracle.metrics` — tokens, title match, token similarity, noise residue, P/R/F1,
  heading recall, code-block exactness (design brief §8).
- :mod:`oracle.pages` — the fixture sets from ``fixtures/pages.toml``.
- :mod:`oracle.scoring`, :mod:`oracle.gate`, :mod:`oracle.report` — scores, CI gate, HTML report.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ORACLE_DIR", "REPO_ROOT"]

ORACLE_DIR = Path(__file__).resolve().parent
"""The ``oracle/`` folder (holds ``package.json``, ``node_modules/`` and ``.cache/``)."""

REPO_ROOT = ORACLE_DIR.parent
"""The repository root."""
