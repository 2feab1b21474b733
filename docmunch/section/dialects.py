"""The parse view: documentation dialects masked so that CommonMark sees what a site renders.

Offsets never move: the view has exactly the lines of the body (a masked line becomes spaces
of the same length, an admonition body line keeps its length), the parser runs on the view,
and its line numbers map to the original bytes as before. Rules, each a general one of its
dialect (template tags are found by :mod:`docmunch.section.templates`):

* **Template blocks** (Hugo ``{{< x >}}…{{< /x >}}``, Liquid ``{% x %}…{% endx %}``): only tags
  that stand alone on their lines pair up, an opener only when a closer of its name follows
  (otherwise it is a standalone tag). Blocks that hold **code** — :data:`CODE_BLOCKS`
  (``highlight``, ``code``, ``codenew``, ``mermaid`` …) or any opener with a code-language
  argument (:data:`CODE_LANG_ARGS`: ``codelang``, ``lang``, ``language``, ``syntax``) — and
  **comments** (``comment``) are masked whole, tag lines included: YAML ``---`` and
  ``# comment`` lines in them are no headings, nothing in them is a summary. Other blocks keep
  their text; only their tag lines are masked (so ``{{< tab >}}`` over ``---`` is no setext
  heading). **Container** blocks (:data:`CONTAINER_BLOCKS`: tabs, callouts, collapsibles) are
  reported as line ranges whose headings do not start sections — Hugo's and Docsy's tab
  headings are not in a page's table of contents — like headings in block quotes and lists.
* Template tags inside fenced code, inside a multi-line HTML comment, or between Liquid
  ``{% raw %}`` and ``{% endraw %}`` are literal text.
* **MkDocs admonitions** (Python-Markdown ``!!! type "title"``, pymdownx.details ``???``/
  ``???+``) at the start of a line: the marker line is masked and the indented body (4 spaces
  or a tab) becomes a block quote of the same length (``>   ``), so its headings are content
  and its first paragraph can be a summary.
* **Directive containers** (Docusaurus admonitions and Pandoc fenced divs: ``:::note``,
  ``::: {.warning}`` … ``:::``): the fence lines are masked and the interior is a container.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

from docmunch.section.templates import Tag, has_tags, iter_tags

__all__ = ["CODE_BLOCKS", "CODE_LANG_ARGS", "CONTAINER_BLOCKS", "ParseView", "parse_view"]

CODE_BLOCKS = frozenset({
    "highlight", "code", "codenew", "codeblock", "code-block", "code_sample", "prism", "syntax",
    "mermaid", "plantuml", "graphviz", "math", "katex",
})
"""Template blocks whose body is code or a diagram, never Markdown."""
CODE_LANG_ARGS = frozenset({"codelang", "lang", "language", "syntax"})
"""Named arguments that give a block's body a code language (``{{< tab codelang="yaml" >}}``)."""
CONTAINER_BLOCKS = frozenset({
    "tabs", "tab", "tabpane", "tab-pane", "tabitem", "note", "warning", "caution", "alert", "callout",
    "admonition", "tip", "info", "danger", "important", "hint", "attention", "notice", "details",
    "collapse", "expand", "accordion", "spoiler",
})
"""Template blocks that box their content (tabs, callouts, collapsibles): headings inside
them stay content, like headings in block quotes."""
_COMMENT_BLOCKS = frozenset({"comment"})

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}(?=[^`]*$)|~{3,})")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
_ADMONITION = re.compile(r"^(?:!!!|\?\?\?\+?)[ \t]+\S")
_DIRECTIVE_OPEN = re.compile(r"^ {0,3}(:{3,})[ \t]*[A-Za-z{]")
_DIRECTIVE_CLOSE = re.compile(r"^ {0,3}(:{3,})[ \t]*$")
_MARKERS = re.compile(r"^(?:!!!|\?\?\?| {0,3}:::)", re.MULTILINE)
_MARK_START = re.compile(r"[ \t]*[<`~!?:]")
"""What every line the masker acts on starts with: a comment (``<``), fence (backticks,
``~``), admonition (``!``, ``?``) or directive (``:``) marker after optional blanks; a line
without it is skipped with one match instead of five."""


@dataclass(frozen=True, slots=True)
class ParseView:
    """The text the CommonMark parser reads instead of the body."""

    text: str
    """Same lines as the body (``\\n`` line ends), dialect syntax masked."""
    containers: tuple[tuple[int, int], ...] = ()
    """``(first, last)`` 0-based body lines, inclusive, inside container blocks: a heading
    on one of them does not start a section."""

    def in_container(self, line: int) -> bool:
        """``line`` (0-based body line) lies inside a container block."""
        return any(first <= line <= last for first, last in self.containers)


def parse_view(text: str) -> ParseView:
    """Mask the dialect syntax of a Markdown body (module docstring).

    Args:
        text: the body with ``\\n`` line ends (front matter already removed).

    Returns:
        The :class:`ParseView`; ``text`` itself when the body has no dialect syntax.
    """
    if not (has_tags(text) or "!!!" in text or "???" in text or ":::" in text):
        return ParseView(text)
    lines = text.split("\n")
    tags = _line_tags(text, lines)
    if not any(t.closing for run in tags.values() for t in run) and not _MARKERS.search(text):
        return ParseView(text)  # no template block, admonition or directive: nothing to mask
    masker = _Masker(lines, tags)
    masker.run()
    view = "\n".join(masker.lines)
    return ParseView(view, tuple(masker.containers))


def _line_tags(text: str, lines: list[str]) -> dict[int, list[Tag]]:
    """Tags standing alone on their lines (runs of tags on one line separated by spaces only; a
    tag may itself span lines), keyed by the line where the run starts."""
    starts = [0, *accumulate(len(line) + 1 for line in lines[:-1])]
    out: dict[int, list[Tag]] = {}
    run: list[Tag] = []

    def flush() -> None:
        if not run:
            return
        first = bisect_right(starts, run[0].start) - 1
        last = bisect_right(starts, run[-1].end - 1) - 1
        line_end = starts[last] + len(lines[last])
        if not text[starts[first] : run[0].start].strip() and not text[run[-1].end : line_end].strip():
            out[first] = list(run)
            for extra in range(first + 1, last + 1):
                out.setdefault(extra, [])  # covered by the run: no fence or marker here
        run.clear()

    for tag in iter_tags(text):
        if run:
            gap = text[run[-1].end : tag.start]
            if gap.strip() or "\n" in gap:
                flush()
        run.append(tag)
    flush()
    return out


class _Masker:
    """One pass over the lines: fences, comments, template blocks, admonitions, directives."""

    def __init__(self, lines: list[str], tags: dict[int, list[Tag]]) -> None:
        self.lines = lines
        self.tags = tags
        self.containers: list[tuple[int, int]] = []
        self.remaining: Counter[str] = Counter(
            t.name for run in tags.values() for t in run if t.closing
        )
        self.directive_closers = sum(1 for line in lines if ":::" in line and _DIRECTIVE_CLOSE.match(line))

    def blank(self, first: int, last: int) -> None:
        for i in range(first, last + 1):
            self.lines[i] = " " * len(self.lines[i])

    def run(self) -> None:
        lines = self.lines
        stack: list[tuple[str, str, int]] = []  # open template blocks: (name, class, line)
        directives: list[int] = []  # lines of open ::: containers
        code: tuple[str, int] | None = None  # open code/comment block: (name, line)
        fence: tuple[str, int] | None = None  # open fence: (char, length)
        raw = comment = False
        i = 0
        while i < len(lines):
            line = lines[i]
            run = self.tags.get(i)
            if code is not None or raw:
                name = code[0] if code is not None else "raw"
                at = self._closer(run or [], name)
                if at >= 0:
                    if code is not None:
                        self.blank(code[1], i)
                    code, raw = self._tag_line(i, (run or [])[at + 1 :], stack)
                i += 1
                continue
            if fence is not None:
                stripped = line.strip()
                if stripped.startswith(fence[0] * fence[1]) and not stripped.strip(fence[0]):
                    fence = None
                i += 1
                continue
            if comment:
                comment = "-->" not in line
                i += 1
                continue
            if run is not None:
                code, raw = self._tag_line(i, run, stack)
                i += 1
                continue
            if _MARK_START.match(line) is None:
                i += 1
                continue
            if _COMMENT_OPEN.match(line) and "-->" not in line:
                comment = True
            elif (match := _FENCE_OPEN.match(line)) is not None:
                fence = (match.group(1)[0], len(match.group(1)))
            elif _ADMONITION.match(line):
                i = self._admonition(i)
                continue
            elif _DIRECTIVE_CLOSE.match(line):
                self.directive_closers -= 1
                if directives:
                    opened = directives.pop()
                    self.blank(i, i)
                    self.containers.append((opened + 1, i - 1))
            elif _DIRECTIVE_OPEN.match(line) and self.directive_closers > 0:
                directives.append(i)
                self.blank(i, i)
            i += 1

    def _closer(self, run: list[Tag], name: str) -> int:
        """Index in ``run`` of the closer of ``name`` (-1 if none); counts the closers passed."""
        for n, tag in enumerate(run):
            if tag.closing:
                self.remaining[tag.name] -= 1
                if tag.name == name:
                    return n
        return -1

    def _tag_line(
        self, i: int, run: list[Tag], stack: list[tuple[str, str, int]]
    ) -> tuple[tuple[str, int] | None, bool]:
        """Handle a line of standalone tags; returns an opened code block and raw state."""
        masked = False
        for n, tag in enumerate(run):
            if tag.kind == "escaped":
                continue
            if tag.closing:
                self.remaining[tag.name] -= 1
                for k in range(len(stack) - 1, -1, -1):
                    if stack[k][0] == tag.name:
                        _, kind, opened = stack[k]
                        del stack[k:]
                        if kind == "container":
                            self.containers.append((opened + 1, i - 1))
                        masked = True
                        break
                continue
            if tag.self_closing or self.remaining[tag.name] <= 0:
                continue  # a standalone tag
            if tag.kind == "liquid" and tag.name == "raw":
                self.blank(i, i)
                return None, True
            kind = _classify(tag)
            if kind in ("code", "comment"):
                at = self._closer(run[n + 1 :], tag.name)
                if at < 0:
                    return (tag.name, i), False
                self.blank(i, i)
                return self._tag_line(i, run[n + 2 + at :], stack)
            stack.append((tag.name, kind, i))
            masked = True
        if masked:
            self.blank(i, i)
        return None, False

    def _admonition(self, i: int) -> int:
        """Mask an admonition starting at line ``i``; returns the line after its body."""
        lines = self.lines
        self.blank(i, i)
        end = i + 1
        last_body = i
        while end < len(lines):
            line = lines[end]
            if line.startswith(("    ", "\t")):
                last_body = end
            elif line.strip():
                break
            end += 1
        for k in range(i + 1, last_body + 1):
            line = lines[k]
            if line.startswith("    "):
                lines[k] = ">   " + line[4:]
            elif line.startswith("\t"):
                lines[k] = ">" + line[1:]
            else:
                lines[k] = ">" + line[1:]  # a blank line inside the body
        return last_body + 1


def _classify(tag: Tag) -> str:
    if tag.name in _COMMENT_BLOCKS:
        return "comment"
    if tag.name in CODE_BLOCKS or CODE_LANG_ARGS.intersection(tag.named):
        return "code"
    if tag.name in CONTAINER_BLOCKS:
        return "container"
    return "other"
