"""What kind of source a ``SOURCE`` argument names: an http(s) URL, ``github:…`` or a local path.

Scheme names are case-insensitive (RFC 3986 §3.1): ``HTTP://x`` is a URL, ``GitHub:o/n`` a
GitHub spec. An existing file or folder is always a path, even when its name has a colon. Any
other ``scheme:`` prefix of two or more characters (``ftp:``, ``file:``, ``s3:``) is refused with a
clear error instead of being looked up as a missing file; one letter and a colon (``C:``) is a
Windows drive, a path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from docmunch.errors import SourceError

__all__ = ["SourceSpec", "parse_source"]

_URL = re.compile(r"^(https?)(:)", re.IGNORECASE)
_GITHUB = re.compile(r"^(github)(:)", re.IGNORECASE)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """One parsed ``SOURCE``."""

    kind: Literal["url", "github", "path"]
    value: str
    """The source with its scheme in lower case (``http://…``, ``github:owner/name``), or the path."""


def parse_source(text: str) -> SourceSpec:
    """Classify ``text`` (see the module docstring).

    Raises:
        SourceError: a ``scheme:`` other than http, https and github that names no existing path.
    """
    url = _URL.match(text)
    if url and (text[url.end() :].startswith("//") or not Path(text).exists()):
        return SourceSpec("url", url.group(1).lower() + text[url.end(1) :])
    github = _GITHUB.match(text)
    if github and not Path(text).exists():
        return SourceSpec("github", "github" + text[github.end(1) :])
    scheme = _SCHEME.match(text)
    if scheme and not Path(text).exists():
        raise SourceError(
            f"unsupported source scheme {scheme.group(1).lower()!r} in {text!r}: docmunch reads "
            "http(s) URLs, github:OWNER/NAME[@REF] and local paths",
            path=text,
        )
    return SourceSpec("path", text)
