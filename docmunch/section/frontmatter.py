"""YAML (``---``) and TOML (``+++``) front matter at the very start of a Markdown file.

Rules (the ones Jekyll and Hugo use): the file, after an optional UTF-8 BOM, starts with a
line that is exactly ``---`` (YAML) or ``+++`` (TOML), trailing spaces/tabs allowed; the
block ends at the next line that is exactly the same delimiter (YAML also accepts ``...``).
Without a closing line there is no front matter (the ``---`` is then ordinary Markdown, a
thematic break). A block that does not parse, or parses to something other than a mapping,
still counts as front matter (it is not body text) but yields an empty dict.

Values are made JSON-friendly: YAML dates/datetimes become ISO-8601 strings, other
non-JSON scalars become ``str(value)``.

Hostile front matter (issue 12): the YAML is loaded safely (``SafeLoader`` tags only) and
bounded before any Python object is built. The block is composed into libyaml's node graph,
in which an alias is a shared node, not a copy; an iterative walk of that graph counts the
nodes the block would *expand* to (every alias use counted in full) and its nesting depth,
and refuses a recursive alias (``a: &a [*a]``, an infinite structure), a block over
:data:`FRONT_MATTER_MAX_NODES` (a "billion laughs" alias bomb: nine aliases of nine aliases
… expand a few hundred bytes into 9⁹ strings) or over :data:`FRONT_MATTER_MAX_DEPTH`. A block
over :data:`FRONT_MATTER_MAX_BYTES` is not parsed at all. Each of these raises (a
:class:`~docmunch.errors.LimitExceeded` or :class:`~docmunch.errors.ConvertError`): the
document is that run's one error line, never a crash of the run. TOML has no aliases; its
result gets the same size and depth checks.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

from docmunch.errors import ConvertError
from docmunch.limits import Limit

__all__ = [
    "FRONT_MATTER_MAX_BYTES",
    "FRONT_MATTER_MAX_DEPTH",
    "FRONT_MATTER_MAX_NODES",
    "FrontMatter",
    "find_front_matter",
]

FRONT_MATTER_MAX_BYTES = Limit("FRONT_MATTER_MAX_BYTES", 64 * 1024, "bytes")
"""Largest front-matter block parsed (between the delimiter lines). The largest one in the
four test corpora (1,735 blocks, Hugo/Jekyll/mdBook) is 2.5 KB."""
FRONT_MATTER_MAX_NODES = Limit("FRONT_MATTER_MAX_NODES", 10_000, "nodes")
"""Most YAML/TOML nodes (scalars, sequences, mappings, keys) the block may expand to, every
alias use counted in full. A 2.5 KB block has about 200."""
FRONT_MATTER_MAX_DEPTH = Limit("FRONT_MATTER_MAX_DEPTH", 64, "levels")
"""Deepest nesting of sequences/mappings (libyaml's own parser stops flow nesting at 1,000)."""

try:  # the libyaml loader is ~10x faster when pyyaml was built with it
    _YamlLoader: Any = yaml.CSafeLoader  # SafeLoader's API; the stubs type the two apart
except AttributeError:  # pragma: no cover - depends on the pyyaml build
    _YamlLoader = yaml.SafeLoader

_TOO_DEEP = "front matter nests too deep"
_TOO_MANY = "front matter expands to too many YAML/TOML nodes"
_RECURSIVE = "front matter has a recursive YAML alias (a node that contains itself)"
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
    """The block's mapping, ``{}`` when it does not parse or is not a mapping.

    Raises:
        LimitExceeded: the block is over a front-matter limit.
        ConvertError: the YAML has a recursive alias.
    """
    max_bytes = FRONT_MATTER_MAX_BYTES.value()
    if len(raw) > max_bytes:
        raise FRONT_MATTER_MAX_BYTES.exceeded(f"front matter is {len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
        if opener == b"+++":
            parsed: Any = tomllib.loads(text.replace("\r\n", "\n").replace("\r", "\n"))
        else:
            parsed = _load_yaml(text)
    except (UnicodeDecodeError, yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    result: dict[str, Any] = _jsonable(parsed, FRONT_MATTER_MAX_NODES.value(), FRONT_MATTER_MAX_DEPTH.value())
    return result


def _load_yaml(text: str) -> Any:
    """Safe-load one YAML document after checking its expanded size (see the module docstring)."""
    loader = _YamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node, FRONT_MATTER_MAX_NODES.value(), FRONT_MATTER_MAX_DEPTH.value())
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _check_graph(root: yaml.Node, max_nodes: int, max_depth: int) -> None:
    """Count the nodes and depth ``root`` expands to, without expanding it (iterative DFS).

    A node reached again through an alias is counted again in full but walked once
    (``expanded``/``height`` memoise it), so the walk costs the composed graph's size, not
    the expansion's.

    Raises:
        ConvertError: a node contains itself (recursive alias).
        LimitExceeded: the expansion has more than ``max_nodes`` nodes or is deeper than
            ``max_depth``.
    """
    expanded: dict[int, int] = {}  # id(node) -> nodes in its full expansion
    height: dict[int, int] = {}  # id(node) -> levels below and including it
    on_path: set[int] = set()
    # frame: [node, depth, children, next child index, expanded total, height]
    stack: list[list[Any]] = [[root, 1, _children(root), 0, 1, 1]]
    on_path.add(id(root))
    while stack:
        frame = stack[-1]
        node, depth, kids, index = frame[0], frame[1], frame[2], frame[3]
        if depth > max_depth:
            raise FRONT_MATTER_MAX_DEPTH.exceeded(_TOO_DEEP)
        if index < len(kids):
            frame[3] = index + 1
            child = kids[index]
            key = id(child)
            if key in on_path:
                raise ConvertError(_RECURSIVE)
            if key in expanded:
                frame[4] += expanded[key]
                frame[5] = max(frame[5], height[key] + 1)
                if depth + height[key] > max_depth:
                    raise FRONT_MATTER_MAX_DEPTH.exceeded(_TOO_DEEP)
            else:
                on_path.add(key)
                stack.append([child, depth + 1, _children(child), 0, 1, 1])
            if frame[4] > max_nodes:
                raise FRONT_MATTER_MAX_NODES.exceeded(_TOO_MANY)
            continue
        stack.pop()
        key = id(node)
        on_path.discard(key)
        expanded[key], height[key] = frame[4], frame[5]
        if frame[4] > max_nodes:
            raise FRONT_MATTER_MAX_NODES.exceeded(_TOO_MANY)
        if stack:
            stack[-1][4] += frame[4]
            stack[-1][5] = max(stack[-1][5], frame[5] + 1)


def _jsonable(value: Any, max_nodes: int, max_depth: int) -> Any:
    """A JSON-friendly copy of ``value`` (iterative; shared objects are copied, so bounded).

    Raises:
        LimitExceeded: more than ``max_nodes`` values, or nesting deeper than ``max_depth``
            (TOML results; YAML was checked before it was built).
        ConvertError: a container contains itself.
    """
    budget = [max_nodes]

    def leaf(v: Any) -> Any:
        if v is None or isinstance(v, bool | int | float | str):
            return v
        if isinstance(v, dt.date | dt.time):
            return v.isoformat()
        return str(v)

    def count() -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise FRONT_MATTER_MAX_NODES.exceeded(_TOO_MANY)

    def container(v: Any) -> dict[str, Any] | list[Any] | None:
        if isinstance(v, dict):
            return {}
        if isinstance(v, list | tuple | set):
            return []
        return None

    count()
    top = container(value)
    if top is None:
        return leaf(value)
    # stack of (source container, its copy, depth, ids of the containers above it)
    stack: list[tuple[Any, dict[str, Any] | list[Any], int, frozenset[int]]] = [
        (value, top, 1, frozenset({id(value)}))
    ]
    while stack:
        source, copy, depth, above = stack.pop()
        if depth > max_depth:
            raise FRONT_MATTER_MAX_DEPTH.exceeded(_TOO_DEEP)
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            count()
            sub = container(item)
            if sub is None:
                converted: Any = leaf(item)
            else:
                if id(item) in above:
                    raise ConvertError(_RECURSIVE)
                converted = sub
                stack.append((item, sub, depth + 1, above | {id(item)}))
            if isinstance(copy, dict):
                copy[str(key)] = converted
            else:
                copy.append(converted)
    return top
