"""Terminal output shared by the command-line fronts (:mod:`docmunch.cli` and the commands it
registers from :mod:`docmunch.cli_versions` and :mod:`docmunch.setup`): JSON on stdout, rich text,
and the one escaping of control codes (:func:`printable`) that they and :mod:`docmunch.progress`
use."""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["console", "counted", "emit_json", "esc", "one_line", "printable"]


def emit_json(data: Any) -> None:
    """``data`` as indented JSON (UTF-8, not ASCII-escaped) on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def console() -> Any:
    """A rich console on stdout (no syntax highlighting, long lines kept whole).

    A reader that goes away (``docmunch toc R | head``) raises ``BrokenPipeError`` to the caller
    instead of rich's own ``SystemExit(1)``, so the CLI ends with its SIGPIPE status."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(highlight=False, soft_wrap=True)


def esc(text: str, *, keep: str = "\n\t") -> str:
    """``text`` ready for rich markup: markup characters escaped, and every character that
    could restyle or rewrite the terminal (``ESC`` colour and cursor codes, ``\\r``, bells,
    bidirectional overrides) shown as an escape by :func:`printable`; the characters of
    ``keep`` (newlines and tabs) kept — ``keep=""`` for a one-line field such as an id or a
    path, where a file name's newline must not start a new line. Titles, summaries, snippets
    and file names come from documents and folders, which may hold anything."""
    from rich.markup import escape

    return escape(printable(text, keep=keep))


_SAFE_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str, *, keep: str = "", strict: bool = False) -> str:
    """``text`` with every character that could break or restyle a terminal line escaped.

    Control characters (C0, DEL, C1: newlines, ``ESC`` colour codes, bells), line/paragraph
    separators, bidirectional overrides ("Trojan Source", CVE-2021-42574) and lone
    surrogates become ``\\n``/``\\t``/``\\xNN``/``\\uNNNN``; everything else is kept, and so
    are the characters of ``keep`` (``"\\n\\t"`` for multi-line text).

    ``strict=True`` also escapes every other character :meth:`str.isprintable` refuses
    (format characters such as U+200B, spaces other than U+0020, unassigned and private-use
    code points; ``\\U0010ffff`` beyond the BMP), spelled as Python's ``unicode_escape``
    codec spells them: for a line whose layout counts terminal cells
    (:mod:`docmunch.progress`), where a character of no agreed width could overflow it.
    Documents' titles and text keep those characters (``strict=False``).
    """
    if text.isprintable() and not keep:
        return text
    out: list[str] = []
    for ch in text:
        escape = not ch.isprintable() if strict else _breaks_a_line(ch)
        out.append(_escaped(ch) if escape and ch not in keep else ch)
    return "".join(out)


def _breaks_a_line(ch: str) -> bool:
    """True for a control character, line/paragraph separator, bidi control or lone surrogate."""
    code = ord(ch)
    return (
        code < 0x20 or 0x7F <= code <= 0x9F or ch in _BIDI_CONTROLS or ch in "\u2028\u2029"
        or 0xD800 <= code <= 0xDFFF
    )  # fmt: skip


def _escaped(ch: str) -> str:
    """``ch`` as a Python escape: ``\\n``, ``\\r``, ``\\t``, else ``\\xNN``, ``\\uNNNN``, ``\\UNNNNNNNN``."""
    code = ord(ch)
    if ch in _SAFE_ESCAPES:
        return _SAFE_ESCAPES[ch]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def one_line(message: str) -> str:
    """A message on one printable line: whitespace runs collapsed, then :func:`printable`."""
    return printable(" ".join(message.split()))


def counted(n: int, one: str, many: str) -> str:
    """``n`` and the noun that agrees with it: ``counted(1, "error", "errors")`` → ``"1 error"``,
    ``0`` or ``2`` → ``"0 errors"``, ``"2 errors"``."""
    return f"{n} {one if n == 1 else many}"
