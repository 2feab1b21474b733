"""YAML (``---``) and TOML (``+++``) front matter at the very start of a Markdown file.

Rules (the ones Jekyll and Hugo use): the file, after an optional UTF-8 BOM, starts with a
line that is exactly ``---`` (YAML) or ``+++`` (TOML), trailing spaces/tabs allowed; the
block ends at the next line that is exactly the same delimiter (YAML also accepts ``...``).
Without a closing line there is no front matter (the ``---`` is then ordinary Markdown, a
thematic break). A block that does not parse, or parses to something other than a mapping,
still counts as front matter (it is not body text) but yields an empty dict.

Values are made JSON-friendly: YAML dates/datetimes become ISO-8601 strings, other
non-JSON scalars become ``str(value)``.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["FrontMatter", "find_front_matter"]

try:  # the libyaml loader is ~10x faster when pyyaml was built with it
    _YamlLoader: type[yaml.SafeLoader] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the pyyaml build
    _YamlLoader = yaml.SafeLoader

_NEWLINE_RE = re.compile(rb"\r\n?|\n")
_OPENERS = {b"---": (b"---", b"..."), b"+++": (b"+++",)}


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A front-matter block found at the start of a document."""

    end: int
    """Byte offset just after the closing delimiter line (and its line ending)."""
    lines: int
    """Number of lines the block occupies, delimiters included."""
    data: dict[str, Any]
    """Parsed mapping (empty when unparsable or not a mapping)."""


def find_front_matter(data: bytes, start: int) -> FrontMatter | None:
    """Find front matter beginning at byte ``start`` (0, or 3 after a BOM).

    Args:
        data: the whole document as bytes (any of CRLF / CR / LF line endings).
        start: byte offset of the first line.

    Returns:
        The :class:`FrontMatter`, or ``None`` when the document does not start with one.
    """
    opener = data[start : start + 3]
    closers = _OPENERS.get(opener)
    if closers is None:
        return None
    pos = start
    content_start = -1
    lines = 0
    for match in _NEWLINE_RE.finditer(data, start):
        line = data[pos : match.start()].rstrip(b" \t")
        lines += 1
        if content_start < 0:
            if line != opener:
                return None
            content_start = match.end()
        elif line in closers:
            return FrontMatter(match.end(), lines, _parse(opener, data[content_start:pos]))
        pos = match.end()
    # last line without a line ending
    if content_start >= 0 and pos < len(data) and data[pos:].rstrip(b" \t") in closers:
        return FrontMatter(len(data), lines + 1, _parse(opener, data[content_start:pos]))
    return None


def _parse(opener: bytes, raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
        if opener == b"+++":
            parsed: Any = tomllib.loads(text.replace("\r\n", "\n").replace("\r", "\n"))
        else:
            parsed = yaml.load(text, Loader=_YamlLoader)
    except (UnicodeDecodeError, yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(key): _jsonable(value) for key, value in parsed.items()}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    return str(value)
