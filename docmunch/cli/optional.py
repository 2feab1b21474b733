"""Commands backed by a module this docmunch may lack (the web, GitHub, refresh and MCP
fronts): :func:`load_optional` imports it only when the command runs, and a missing one is a
one-line :class:`~docmunch.errors.SourceError` (exit 1) rather than an ImportError."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

from docmunch.errors import SourceError

__all__ = ["load_optional"]


def load_optional(module: str, func: str, what: str) -> Callable[..., Any]:
    """``module.func`` when that module exists, else a SourceError saying ``what`` is unsupported."""
    if importlib.util.find_spec(module) is None:
        raise SourceError(f"{what} is not supported yet by this docmunch")
    found: Callable[..., Any] = getattr(importlib.import_module(module), func)
    return found
