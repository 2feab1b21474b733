"""``.gitignore`` pattern matching, written from the rules in git's documentation.

Source: https://git-scm.com/docs/gitignore ("PATTERN FORMAT"). Supported: blank lines and
``#`` comments, ``\\#``/``\\!`` escapes, trailing-space trimming, ``!`` negation (the last
matching pattern wins), a trailing ``/`` for directories only, anchoring by a leading or
middle ``/``, ``*``, ``?``, ``[...]`` classes, and ``**`` as a leading ``**/``, trailing
``/**`` or middle ``/**/``. Patterns of a nested ``.gitignore`` are relative to its folder
and are checked after (so they override) the patterns of its parents. As in git, a file
inside an excluded directory cannot be re-included: the walker never enters that directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["IgnoreRule", "matches", "parse_lines"]


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One compiled pattern line."""

    base: str
    """Folder (POSIX, relative to the walk root, ``""`` for the root) the pattern is relative to."""
    regex: re.Pattern[str]
    """Matches a path relative to ``base`` (anchored rules) or a single name (unanchored)."""
    anchored: bool
    """True when the pattern contains a ``/`` other than a trailing one."""
    negate: bool
    """``!pattern``: re-include what an earlier pattern excluded."""
    dir_only: bool
    """``pattern/``: matches directories only."""


def _translate(glob: str) -> str:
    """Regex source for a gitignore glob (without anchoring decisions)."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                before_ok = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2 : i + 3]
                if before_ok and after == "/":
                    out.append("(?:.*/)?")  # "**/" — zero or more folders
                    i += 3
                    continue
                if before_ok and i + 2 == n:
                    out.append(".*")  # trailing "/**" — everything inside
                    i += 2
                    continue
                out.append("[^/]*")  # any other "**" behaves like "*"
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and glob[j] in "!^":
                j += 1
            if j < n and glob[j] == "]":
                j += 1
            while j < n and glob[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse_lines(lines: Iterable[str], base: str = "") -> list[IgnoreRule]:
    """Compile the lines of one ``.gitignore`` (or exclude patterns) found in folder ``base``."""
    rules: list[IgnoreRule] = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        # Trailing spaces are ignored unless escaped with a backslash.
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate or line.startswith(("\\#", "\\!")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        if line.startswith("**/"):
            # "**/foo" matches like an unanchored "foo" when the rest has no slash.
            rest = line[3:]
            if "/" not in rest:
                line, anchored = rest, False
        rules.append(IgnoreRule(base, re.compile(_translate(line)), anchored, negate, dir_only))
    return rules


def matches(rules: Iterable[IgnoreRule], rel_path: str, *, is_dir: bool) -> bool:
    """Whether ``rel_path`` (POSIX, relative to the walk root) is ignored by ``rules``.

    Rules must be given in precedence order (parent folders' files first, lines in file order);
    the last rule that matches decides.
    """
    ignored = False
    name = rel_path.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            prefix = rule.base + "/"
            if not rel_path.startswith(prefix):
                continue
            sub = rel_path[len(prefix) :]
        else:
            sub = rel_path
        target = sub if rule.anchored else name
        if rule.regex.fullmatch(target):
            ignored = not rule.negate
    return ignored
