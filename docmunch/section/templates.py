"""Template tags in Markdown sources: Hugo shortcodes, Liquid/Jinja tags, mdBook directives.

Documentation generators run a template pass *before* Markdown, so their tags sit in the
Markdown source verbatim:

* **Hugo** shortcodes ``{{< name args >}}`` and ``{{% name args %}}`` (gohugo.io, "Shortcodes"),
  closed by ``{{< /name >}}`` or self-closed ``{{< name args />}}``; ``{{</* … */>}}`` is Hugo's
  escape and shows the tag literally.
* **Liquid** (Jekyll) and **Jinja** (MkDocs macros) tags ``{% name args %}`` closed by
  ``{% endname %}``, whitespace control ``{%- -%}``; output ``{{ page.title }}``.
* **mdBook** preprocessor directives ``{{#include path}}``, ``{{#rustdoc_include path}}``,
  ``{{#title …}}`` (mdBook guide, "mdBook-specific features").

:func:`iter_tags` finds them (each at most :data:`MAX_TAG_CHARS` long, so an unclosed ``{{``
costs one bounded look-ahead); :func:`title_of` gives the readable text a tag stands for in a
heading made only of tags, :func:`display_of` what an inline tag contributes to running text.
Rules for the readable text, first that applies:

1. Hugo's escape shows the tag itself without ``/* */``.
2. A display argument — ``text``, ``title``, ``name``, ``label``, ``caption``, ``alt``, and for
   tooltip tags ``term_id``/``term`` — is shown as written.
3. A translation key (the first argument of ``heading``, ``i18n``, ``T``) is humanised:
   ``"prerequisites"`` → "Prerequisites"; keys that glue several words whose split cannot be
   guessed come from :data:`GLUED_KEYS` (``"whatsnext"`` → "What's next").
4. A page variable (``{{ page.title }}``, ``{{ .Title }}``, ``{{ .Params.x }}``) is the front
   matter's value when known.
5. In headings only: a path argument (includes) gives its humanised file stem, another first
   argument is humanised, else the tag name is (``version-check`` → "Version check").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

__all__ = [
    "GLUED_KEYS",
    "MAX_TAG_CHARS",
    "Tag",
    "display_of",
    "has_tags",
    "humanize",
    "iter_tags",
    "title_of",
]

MAX_TAG_CHARS = 2000
"""Longest template tag looked for, in characters (opening ``{{``/``{%`` to closing ``}}``/``%}``);
an opener without a close within this distance is text."""

GLUED_KEYS: Mapping[str, str] = {
    "whatsnext": "What's next",
    "seealso": "See also",
    "parentoptions": "Parent options",
    "envvars": "Environment variables",
    "cleanup": "Clean up",
}
"""Translation keys of the Docsy/Kubernetes ``heading`` shortcode that join words without a
separator (their English strings, shortened to the key's own words); other keys are humanised."""

_DISPLAY_ARGS = ("text", "title", "name", "label", "caption", "alt")
_TERM_ARGS = ("term_id", "term")  # shown by tooltip-like tags only (a definition tag shows more)
_I18N_TAGS = frozenset({"heading", "i18n", "t"})
_INCLUDE_TAGS = frozenset({
    "include", "rustdoc_include", "playground", "readfile", "code_sample", "codenew", "code", "snippet",
})
# Page variables, lower-cased: Liquid ``page.x``, Hugo ``.Title``, ``.Params.x``, ``.Page.Params.x``.
_FRONT_VARS = re.compile(r"^(?:page\.|\.page\.params\.|\.params\.|\.page\.|\.)([a-z_]\w*)$")
_ARG_RE = re.compile(
    r"""([A-Za-z_][\w.-]*)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|`[^`]*`|[^\s"'`]+)"""
    r"""|("(?:[^"\\]|\\.)*"|'[^']*'|`[^`]*`)"""
    r"""|([^\s"'`=]+)"""
)
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_OPEN_RE = re.compile(r"\{\{|\{%")
_CLOSERS = {"{{<": ">}}", "{{%": "%}}", "{%": "%}", "{{": "}}"}


@dataclass(frozen=True, slots=True)
class Tag:
    """One template tag found in a text."""

    start: int
    """Character offset of its first ``{`` in the searched text."""
    end: int
    """Character offset just after its last ``}``."""
    kind: str
    """``"shortcode"`` (Hugo), ``"liquid"`` (``{% %}``), ``"output"`` (``{{ }}``, incl. mdBook
    ``{{#…}}``) or ``"escaped"`` (Hugo ``{{</* */>}}``: literal text, never a tag)."""
    name: str
    """Lower-cased tag name without ``/``, ``end`` or ``#`` (``"tab"``, ``"highlight"``,
    ``"include"``); for output tags the expression's first word (``"page.title"``)."""
    closing: bool = False
    """A closing tag: Hugo ``{{< /name >}}``, Liquid ``{% endname %}``."""
    self_closing: bool = False
    """Hugo ``{{< name … />}}``: never has a body."""
    positional: tuple[str, ...] = ()
    """Positional arguments, quotes removed."""
    named: dict[str, str] = field(default_factory=dict)
    """Named arguments (``key="value"``), keys lower-cased, quotes removed."""
    raw: str = ""
    """The tag's source text."""


def has_tags(text: str) -> bool:
    """Cheap pre-check: ``text`` contains something that may open a template tag."""
    return "{{" in text or "{%" in text


def iter_tags(text: str) -> Iterator[Tag]:
    """Template tags of ``text`` in order, not overlapping (see the module docstring).

    Args:
        text: any text (a whole document, a line, a heading's inline source).

    Yields:
        :class:`Tag` records; Hugo escapes come as ``kind="escaped"`` covering the whole
        escaped span (which may hold other tag-like text).
    """
    pos = 0
    while True:
        match = _OPEN_RE.search(text, pos)
        if match is None:
            return
        start = match.start()
        tag = _tag_at(text, start)
        if tag is None:
            pos = start + 2
            continue
        yield tag
        pos = tag.end


def _tag_at(text: str, start: int) -> Tag | None:
    limit = start + MAX_TAG_CHARS
    head = text[start : start + 5]
    if head in ("{{</*", "{{%/*"):
        close = "*/>}}" if head[2] == "<" else "*/%}}"
        end = text.find(close, start + 5, limit)
        if end < 0:
            return None
        return Tag(start, end + 5, "escaped", "", raw=text[start : end + 5])
    opener = head[:3] if head[:3] in ("{{<", "{{%") else head[:2]
    closer = _CLOSERS[opener]
    end = text.find(closer, start + len(opener), limit)
    if end < 0:
        return None
    stop = end + len(closer)
    body = text[start + len(opener) : end]
    if opener == "{{" and body.startswith(("{", "<", "%")):
        return None  # "{{{" (Handlebars triple) or a malformed shortcode
    kind = {"{{<": "shortcode", "{{%": "shortcode", "{%": "liquid", "{{": "output"}[opener]
    return _parse(text[start:stop], start, stop, kind, body)


def _parse(raw: str, start: int, stop: int, kind: str, body: str) -> Tag | None:
    body = body.strip().removeprefix("-").removesuffix("-").strip()  # Liquid/Jinja whitespace control
    self_closing = kind == "shortcode" and body.endswith("/")
    if self_closing:
        body = body[:-1].rstrip()
    closing = False
    if kind == "shortcode" and body.startswith("/"):
        closing, body = True, body[1:].lstrip()
    if kind == "output" and body.startswith("#"):
        body = body[1:]  # mdBook directive
    parts = _ARG_RE.findall(body)
    if not parts:
        return None
    first = parts[0]
    if not first[3]:
        return None  # a tag starts with its name
    name = first[3].lower()
    if kind == "liquid" and name.startswith("end") and len(name) > 3:
        closing, name = True, name[3:]
    positional: list[str] = []
    named: dict[str, str] = {}
    for key, value, quoted, bare in parts[1:]:
        if key:
            named[key.lower()] = _unquote(value)
        elif quoted:
            positional.append(_unquote(quoted))
        elif bare:
            positional.append(bare)
    return Tag(start, stop, kind, name, closing, self_closing, tuple(positional), named, raw)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        value = value[1:-1]
    return value.replace('\\"', '"')


def humanize(key: str) -> str:
    """A key or identifier as words: ``"whatsnext"`` → "What's next" (:data:`GLUED_KEYS`),
    ``"kubectl_convert"`` → "Kubectl convert", ``"currentVersion"`` → "Current version"."""
    glued = GLUED_KEYS.get(key.lower())
    if glued is not None:
        return glued
    words = _CAMEL_RE.sub(" ", key.replace("_", " ").replace("-", " "))
    words = " ".join(words.split())
    if not words or words == words.upper():
        return words  # empty, or an acronym ("API")
    return words[0].upper() + words[1:].lower()


def display_of(tag: Tag, front: Mapping[str, Any] | None = None) -> str:
    """What an inline tag contributes to running text (rules 1–4 of the module docstring);
    ``""`` for a tag that renders something unknown here (a version number, an include)."""
    if tag.kind == "escaped":
        return _unescape(tag.raw)
    if tag.closing:
        return ""
    for key in _DISPLAY_ARGS:
        value = tag.named.get(key)
        if value:
            return value
    if "tooltip" in tag.name or tag.name in ("term", "abbr"):
        for key in _TERM_ARGS:
            if tag.named.get(key):
                return tag.named[key]
    if tag.name in _I18N_TAGS and tag.positional:
        return humanize(tag.positional[0])
    if tag.kind == "output" and front is not None:
        match = _FRONT_VARS.match(tag.name)
        if match:
            value = _front_value(front, match.group(1))
            if value:
                return value
    return ""


def title_of(tag: Tag, front: Mapping[str, Any] | None = None) -> str:
    """The readable title a heading made only of ``tag`` gets (all rules of the module docstring)."""
    shown = display_of(tag, front)
    if shown or tag.kind == "escaped" or tag.closing:
        return shown
    if tag.kind == "output" and tag.name.startswith(("page.", ".", "site.")):
        return humanize(tag.name.rsplit(".", 1)[-1])
    if tag.positional:
        first = tag.positional[0]
        if tag.name in _INCLUDE_TAGS or "/" in first or re.search(r"\.\w{1,5}(?::[\d:]*)?$", first):
            return humanize(PurePosixPath(first.split(":", 1)[0]).stem)
        return humanize(first) if " " not in first else first
    for key in ("file", "src", "path"):
        if tag.named.get(key):
            return humanize(PurePosixPath(tag.named[key]).stem)
    return humanize(tag.name)


def _front_value(front: Mapping[str, Any], key: str) -> str:
    for candidate in (key, key.capitalize()):
        value = front.get(candidate)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return " ".join(str(value).split())
    return ""


def _unescape(raw: str) -> str:
    """Hugo's escaped tag as Hugo shows it: ``{{</* x */>}}`` → ``{{< x >}}``."""
    if raw.startswith("{{</*"):
        return "{{<" + raw[5:-5] + ">}}"
    return "{{%" + raw[5:-5] + "%}}"
