"""Terminal output shared by the command-line fronts (:mod:`docmunch.cli` and the commands it
registers from :mod:`docmunch.cli_versions` and :mod:`docmunch.setup`): JSON on stdout, rich text."""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["console", "emit_json", "esc"]


def emit_json(data: Any) -> None:
    """``data`` as indented JSON (UTF-8, not ASCII-escaped) on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def console() -> Any:
    """A rich console on stdout (no syntax highlighting, long lines kept whole)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def esc(text: str) -> str:
    """``text`` with rich markup characters escaped."""
    from rich.markup import escape

    return escape(text)
