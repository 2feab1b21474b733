"""JSON with comments (JSONC), read and edited in place without losing a byte of the rest.

MCP client configs are JSON files people also edit by hand; VS Code's are JSONC (``//`` and
``/* */`` comments, trailing commas: https://code.visualstudio.com/docs/languages/json#_json-with-comments).
:func:`parse` is a small recursive-descent parser of RFC 8259 JSON plus those two extensions
that also records where every value starts and ends; :func:`set_path` uses the positions to
insert or replace ONE member and leaves every other character of the file as it was (comments,
order, indentation, line endings). :func:`loads` gives plain Python values.

Anything else (a syntax error, a non-object root, nesting deeper than :data:`MAX_DEPTH`)
raises :class:`~docmunch.errors.SetupError` with the line and column, so a file that cannot be
read is never rewritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docmunch.errors import SetupError

__all__ = ["MAX_DEPTH", "Member", "Node", "get_path", "loads", "parse", "set_path"]

MAX_DEPTH = 256
"""Deepest nesting of objects/arrays accepted (a guard against hostile files)."""

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass(slots=True)
class Member:
    """One ``"key": value`` of an object."""

    key: str
    key_start: int
    """Offset (characters) of the key's opening quote."""
    value: Node


@dataclass(slots=True)
class Node:
    """A parsed value and where it lies in the text (character offsets, ``end`` exclusive)."""

    kind: str
    """``object``, ``array``, ``string``, ``number`` or ``literal``."""
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)
    """Object members in file order (duplicates kept; the last one wins in ``value``)."""

    def member(self, key: str) -> Member | None:
        """The last member called ``key`` (the one JSON readers use), or ``None``."""
        return next((m for m in reversed(self.members) if m.key == key), None)


class _Parser:
    def __init__(self, text: str, where: str) -> None:
        self.text, self.where, self.pos = text, where, 0

    def fail(self, message: str, pos: int | None = None) -> SetupError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return SetupError(f"{self.where}: line {line} column {column}: {message}", path=self.where)

    def skip(self) -> None:
        """Skip whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t\r\n" or (ch == "\ufeff" and self.pos == 0):
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.pos = end + 2
            else:
                return

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH} levels")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.array(depth)
        if ch == '"':
            start = self.pos
            text = self.string()
            return Node("string", start, self.pos, text)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return Node("number", match.start(), match.end(), json.loads(match.group()))
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return Node("literal", self.pos - len(word), self.pos, literal)
        raise self.fail(f"unexpected character {ch!r}")

    def string(self) -> str:
        start, text = self.pos, self.text
        i = start + 1
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                self.pos = i + 1
                try:
                    return str(json.loads(text[start : i + 1]))
                except ValueError as exc:
                    raise self.fail(f"invalid string: {exc.args[0].split(':')[0]}", start) from None
            if ch == "\n":
                break
            i += 1
        raise self.fail("unterminated string", start)

    def obj(self, depth: int) -> Node:
        node = Node("object", self.pos, self.pos, {})
        self.pos += 1
        while True:
            self.skip()
            if self.text.startswith("}", self.pos):
                break
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a quoted key or '}'")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after the key")
            self.pos += 1
            child = self.value(depth + 1)
            node.members.append(Member(key, key_start, child))
            node.value[key] = child.value
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("}", self.pos):
                raise self.fail("expected ',' or '}'")
        self.pos += 1
        node.end = self.pos
        return node

    def array(self, depth: int) -> Node:
        node = Node("array", self.pos, self.pos, [])
        self.pos += 1
        while True:
            self.skip()
            if self.text.startswith("]", self.pos):
                break
            node.value.append(self.value(depth + 1).value)
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("]", self.pos):
                raise self.fail("expected ',' or ']'")
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str, *, where: str = "config") -> Node | None:
    """The root value of a JSONC text with positions; ``None`` for a blank (or comment-only) text.

    Raises:
        SetupError: a syntax error (message: ``WHERE: line L column C: …``).
    """
    parser = _Parser(text, where)
    parser.skip()
    if parser.pos >= len(text):
        return None
    root = parser.value(0)
    parser.skip()
    if parser.pos < len(text):
        raise parser.fail("unexpected text after the end of the value")
    return root


def loads(text: str, *, where: str = "config") -> Any:
    """The Python value of a JSONC text (``None`` when blank). Raises SetupError."""
    root = parse(text, where=where)
    return None if root is None else root.value


def get_path(root: Node | None, keys: Sequence[str]) -> Any:
    """The value at ``keys`` under an object root (``None`` when any step is missing)."""
    node = root
    for key in keys:
        if node is None or node.kind != "object":
            return None
        member = node.member(key)
        node = member.value if member is not None else None
    return None if node is None else node.value


def set_path(text: str, keys: Sequence[str], value: Any, *, where: str = "config") -> str:
    """``text`` with the member at ``keys`` (e.g. ``["mcpServers", "docmunch"]``) set to ``value``.

    Missing objects on the way are created; an existing member's value is replaced in place; a
    new member goes after the last member of its object, on its own line, with the file's
    indentation and line endings. Every other character is kept.

    Raises:
        SetupError: ``text`` does not parse, its root (or a step on the way) is not an object.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    root = parse(text, where=where)
    if root is None:  # blank or comments only: the comments stay, the object follows them
        lead = text if not text or text.endswith("\n") else text + newline
        return lead + _render(_nest(keys, value), "", "  ", newline) + newline
    if root.kind != "object":
        raise SetupError(f"{where}: the top level is not a JSON object; not changing it", path=where)
    unit = _indent_unit(text, root)
    node = root
    for i, key in enumerate(keys):
        member = node.member(key)
        if member is None:
            return _insert(text, node, key, _nest(keys[i + 1 :], value), unit, newline)
        if i == len(keys) - 1:
            indent = _line_indent(text, member.key_start)
            rendered = _render(value, indent, unit, newline)
            return text[: member.value.start] + rendered + text[member.value.end :]
        if member.value.kind != "object":
            path = ".".join(keys[: i + 1])
            raise SetupError(f"{where}: {path!r} is not a JSON object; not changing it", path=where)
        node = member.value
    raise AssertionError("unreachable: keys is empty")


def _nest(keys: Sequence[str], value: Any) -> Any:
    for key in reversed(keys):
        value = {key: value}
    return value


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line holding ``pos``."""
    line_start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[line_start:pos])
    return match.group() if match else ""


def _indent_unit(text: str, root: Node) -> str:
    """One level of the file's indentation: that of the root's first member, else two spaces."""
    for member in root.members:
        indent = _line_indent(text, member.key_start)
        if indent and text.rfind("\n", 0, member.key_start) > root.start:
            return indent
    return "  "


def _render(value: Any, indent: str, unit: str, newline: str) -> str:
    """``value`` as indented JSON whose continuation lines start with ``indent``."""
    lines = json.dumps(value, indent=unit, ensure_ascii=False).split("\n")
    return newline.join([lines[0], *(indent + line for line in lines[1:])])


def _insert(text: str, obj: Node, key: str, value: Any, unit: str, newline: str) -> str:
    """Add ``"key": value`` as the last member of ``obj``."""
    if not obj.members:
        base = _line_indent(text, obj.start)
        member = f"{json.dumps(key, ensure_ascii=False)}: {_render(value, base + unit, unit, newline)}"
        return text[: obj.start + 1] + newline + base + unit + member + newline + base + text[obj.start + 1 :]
    last = obj.members[-1]
    on_own_line = text.rfind("\n", 0, last.key_start) > obj.start
    if not on_own_line:  # a one-line object stays on one line
        member = f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
        return text[: last.value.end] + ", " + member + text[last.value.end :]
    indent = _line_indent(text, last.key_start)
    member = f"{json.dumps(key, ensure_ascii=False)}: {_render(value, indent, unit, newline)}"
    # Keep what follows the last value on its line (a trailing comma, a // comment) on that line.
    tail = re.compile(r"[ \t]*(,)?[ \t]*(//[^\n]*)?(?=\r?\n)").match(text, last.value.end)
    if tail is None:
        return text[: last.value.end] + "," + newline + indent + member + text[last.value.end :]
    eol = tail.end() - 1 if text[tail.end() - 1 : tail.end()] == "\r" else tail.end()
    comma = "" if tail.group(1) else ","
    return (
        text[: last.value.end] + comma + text[last.value.end : eol] + newline + indent + member
        + ("," if tail.group(1) else "") + text[eol:]
    )  # fmt: skip
