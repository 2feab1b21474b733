"""Sectioning quality on real documentation dialects and office files, before → after.

Figures, per corpus (``corpora/*``: every Markdown file, as the corpus tests read them):

* ``titles_with_markup`` — sections whose title shows template tags (``{{ }}``, ``{% %}``) or
  HTML tags that the heading's source has outside code spans (target 0; markup written inside a
  code span is the heading's literal text and counted apart as ``titles_with_literal_markup``).
* ``headings_in_code`` — sections whose heading line lies inside code, found by re-parsing the
  original file independently of the sectioner: fenced/indented code and ``<pre>``/comment HTML
  blocks of a plain CommonMark parse, plus lines between a code-holding template opener
  (``highlight``, ``code``, ``codenew``, a ``codelang=``/``lang=`` argument, Liquid
  ``{% highlight %}``) and its closer, by a line scan (target 0).
* ``headings_in_tabs`` — headings inside ``tab``/``tabs`` blocks (Hugo leaves them out of the
  table of contents), and ``html_headings`` — sections started by ``<h1>``–``<h6>``.

Per office file: section count, largest section in bytes and, for PDFs, ``furniture_share`` —
bytes of running header/footer text inside section text ÷ section bytes (target 0). The
header/footer text is found here on pdfium's own characters: segments of the top and bottom
8 % bands (a row split at gaps wider than a character's height) whose digit-normalised text
recurs on at least half the pages (three at least); each occurrence in section text (spaces
ignored) counts its bytes.

"Before" runs the same measurement on the sectioner of :data:`BASELINE_COMMIT` (the commit
before the dialect work), exported with ``git archive`` into a temporary folder and imported
in a subprocess; it is skipped (``null``) outside a git checkout holding that commit.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from rich.table import Table

BASELINE_COMMIT = "ea0c5109f3c8e22a3c793e135747901363d3f270"
"""main before issue 13 (template dialects, HTML headings, PDF furniture)."""
CORPORA = ["k8s-en", "k8s-zh", "rust-book", "ms-virt-api"]
PASSWORDS = {"password-example.pdf": "test"}
ROOT = Path(__file__).resolve().parent.parent

_MARKUP = re.compile(r"\{\{|\}\}|\{%|%\}|</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_CODE_OPEN = re.compile(
    r"^\s*(?:\{\{[<%]\s*(highlight|code|codenew|code_sample|mermaid)\b[^}]*[>%]\}\}"
    r"|\{\{[<%]\s*([\w-]+)\b[^}]*\b(?:codelang|lang|language)=[^}]*[>%]\}\}"
    r"|\{%-?\s*(highlight)\b[^%]*%\})\s*$"
)
_CODE_CLOSE = re.compile(r"^\s*(?:\{\{[<%]\s*/\s*([\w-]+)\s*[>%]\}\}|\{%-?\s*end(highlight)\s*-?%\})\s*$")
_TAB_OPEN = re.compile(r"^\s*\{\{[<%]\s*(tabs?)\b(?![^}]*/[>%]\}\})[^}]*[>%]\}\}\s*$")
_TAB_CLOSE = re.compile(r"^\s*\{\{[<%]\s*/\s*(tabs?)\s*[>%]\}\}\s*$")
_HTML_HEADING = re.compile(r"<h[1-6][\s>]", re.IGNORECASE)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_MD = MarkdownIt("commonmark").enable("table")


# --- Markdown corpora ------------------------------------------------------------------------
def _code_lines(text: str) -> set[int]:
    """0-based lines inside code (module docstring), found without docmunch."""
    lines: set[int] = set()
    for token in _MD.parse(text):
        if token.map is None or token.level != 0:
            continue
        if token.type in ("fence", "code_block"):
            lines.update(range(token.map[0] + 1, token.map[1]))
        elif token.type == "html_block" and token.content.lstrip().lower().startswith(("<!--", "<pre")):
            lines.update(range(token.map[0], token.map[1]))
    stack: list[tuple[str, int]] = []
    for n, line in enumerate(text.split("\n")):
        if stack:
            close = _CODE_CLOSE.match(line)
            if close and (close.group(1) or close.group(2)) == stack[-1][0]:
                lines.update(range(stack[-1][1], n + 1))
                stack.pop()
            continue
        opened = _CODE_OPEN.match(line)
        if opened:
            stack.append((next(g for g in opened.groups() if g), n))
    return lines


def _tab_lines(text: str) -> set[int]:
    lines: set[int] = set()
    depth = start = 0
    for n, line in enumerate(text.split("\n")):
        if _TAB_OPEN.match(line):
            depth, start = depth + 1, n if depth == 0 else start
        elif _TAB_CLOSE.match(line) and depth:
            depth -= 1
            if depth == 0:
                lines.update(range(start + 1, n))
    return lines


def _markdown_files(root: Path) -> list[Path]:
    return [
        p for p in sorted(root.rglob("*"))
        if p.suffix in (".md", ".markdown") and p.is_file()
        and p.name != "NOTICE.md" and not p.name.startswith("LICENSE")
    ]


def measure_corpus(root: Path) -> dict[str, Any]:
    """The Markdown figures of one corpus folder (module docstring)."""
    from docmunch.section import split_markdown

    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = {"titles_with_markup": [], "headings_in_code": []}
    for path in _markdown_files(root):
        data = path.read_bytes()
        doc_path = path.relative_to(root).as_posix()
        doc = split_markdown(data, repo="bench", doc_path=doc_path)
        text = data.decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        code = tabs = None
        counts["documents"] += 1
        for section in doc.sections:
            counts["sections"] += 1
            if not section.level:
                continue
            source = lines[section.line] if section.line < len(lines) else ""
            outside = _CODE_SPAN.sub("", source)
            if _MARKUP.search(section.title):
                kind = "titles_with_markup" if _MARKUP.search(outside) else "titles_with_literal_markup"
                counts[kind] += 1
                if kind == "titles_with_markup" and len(examples[kind]) < 5:
                    examples[kind].append(f"{doc_path}:{section.line + 1} {section.title[:60]}")
            if _HTML_HEADING.search(outside) and not source.lstrip().startswith("#"):
                counts["html_headings"] += 1
            if code is None:
                code, tabs = _code_lines(text), _tab_lines(text)
            if section.line in code:
                counts["headings_in_code"] += 1
                if len(examples["headings_in_code"]) < 5:
                    examples["headings_in_code"].append(f"{doc_path}:{section.line + 1} {section.title[:60]}")
            if tabs is not None and section.line in tabs:
                counts["headings_in_tabs"] += 1
    out: dict[str, Any] = {key: counts.get(key, 0) for key in (
        "documents", "sections", "titles_with_markup", "titles_with_literal_markup", "headings_in_code",
        "headings_in_tabs", "html_headings",
    )}
    out["examples"] = examples
    return out


# --- office files ----------------------------------------------------------------------------
def _band_segments(textpage: Any, box: tuple[float, float, float, float]) -> list[str]:
    """Text segments of a page's top and bottom 8 % bands: characters whose loose boxes' centres
    lie within 3 pt form a row, split where the horizontal gap exceeds the character's loose
    height (about 1.2 font sizes: header/footer fields are set apart by wider gaps than words)."""
    _left, y0, _right, y1 = box
    band = 0.08 * (y1 - y0)
    chars = []
    for i in range(textpage.count_chars()):
        ch = textpage.get_text_range(i, 1)
        if not ch.strip():
            continue
        left, _bottom, right, _top = textpage.get_charbox(i)
        _l, bottom, _r, top = textpage.get_charbox(i, loose=True)  # font ascent to descent
        middle = (bottom + top) / 2
        if middle >= y1 - band or middle <= y0 + band:
            chars.append((middle, left, right, ch, top - bottom))
    chars.sort()
    rows: list[list[tuple[float, float, float, str, float]]] = []
    for char in chars:  # rows: vertical centres within 3 pt of the row's first character
        if rows and char[0] - rows[-1][0][0] <= 3.0:
            rows[-1].append(char)
        else:
            rows.append([char])
    segments: list[str] = []
    for row in rows:
        current, end = "", 0.0
        for _middle, left, right, ch, height in sorted(row, key=lambda c: c[1]):
            if current and left - end > height:
                segments.append(current)
                current = ""
            current += (" " if current and left - end > 1.5 else "") + ch
            end = right
        segments.append(current)
    return segments


def _furniture_lines(data: bytes, password: str | None) -> list[str]:
    """Header/footer segments found on pdfium's characters alone (module docstring)."""
    import pypdfium2 as pdfium

    with pdfium.PdfDocument(data, password=password) as pdf:
        if len(pdf) < 3:
            return []
        bands = [_band_segments(pdf[i].get_textpage(), tuple(pdf[i].get_mediabox())) for i in range(len(pdf))]
    needed = max(3, math.ceil(0.5 * len(bands)))
    pages_with: Counter[str] = Counter()
    for found in bands:
        pages_with.update({re.sub(r"\d+", "0", line) for line in found})
    return sorted({
        line for found in bands for line in found
        if pages_with[re.sub(r"\d+", "0", line)] >= needed and len(line.replace(" ", "")) >= 3
    })


def measure_office(fixtures: Path) -> list[dict[str, Any]]:
    """Per DOCX/PDF fixture: sections, largest section, and for PDFs the furniture share."""
    from docmunch.errors import DocmunchError
    from docmunch.formats import render_file
    from docmunch.index.document import parse_rendition

    rows: list[dict[str, Any]] = []
    for path in sorted((fixtures / "office").glob("*/*")):
        if path.suffix not in (".docx", ".pdf"):
            continue
        data = path.read_bytes()
        password = PASSWORDS.get(path.name)
        row: dict[str, Any] = {"file": f"{path.parent.name}/{path.name}"}
        try:
            rendition = render_file(path, data, password=password)
        except DocmunchError as exc:
            row["error"] = type(exc).__name__
            rows.append(row)
            continue
        doc = parse_rendition(rendition, repo="bench", doc_path=path.name)
        md = rendition.markdown
        sizes = [s.byte_end - s.byte_start for s in doc.sections]
        row.update(sections=len(sizes), largest_bytes=max(sizes, default=0))
        if path.suffix == ".pdf":
            text = " ".join(_ESCAPE.sub(r"\1", md[doc.body_start :].decode("utf-8")).split())
            squashed = text.replace(" ", "")
            furniture = 0
            for line in _furniture_lines(data, password):
                if line.replace(" ", "").isdigit():  # a page number: count it standing alone only
                    hits = len(re.findall(rf"(?:^|\s){re.escape(line)}(?=\s|$)", text))
                else:  # word spacing differs between extractors: compare without spaces
                    hits = squashed.count(line.replace(" ", ""))
                furniture += hits * len(line.encode("utf-8"))
            row["furniture_share"] = round(furniture / max(1, sum(sizes)), 4)
        rows.append(row)
    return rows


def measure(fixtures: Path) -> dict[str, Any]:
    """All figures with the docmunch this interpreter imports."""
    return {
        "corpora": {name: measure_corpus(fixtures / "corpora" / name) for name in CORPORA
                    if (fixtures / "corpora" / name).is_dir()},
        "office": measure_office(fixtures),
    }


def _baseline(fixtures: Path) -> dict[str, Any] | None:
    """:func:`measure` on the sectioner of :data:`BASELINE_COMMIT` (``None`` when unavailable)."""
    with tempfile.TemporaryDirectory(prefix="docmunch-baseline-") as tmp:
        archive = Path(tmp) / "tree.tar"
        try:
            with archive.open("wb") as out:
                subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE_COMMIT, "docmunch"],
                               stdout=out, stderr=subprocess.DEVNULL, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": tmp}
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--measure", str(fixtures)],
            cwd=tmp, env=env, capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            return {"error": done.stderr.strip().splitlines()[-1:] or ["failed"]}
        measured: dict[str, Any] = json.loads(done.stdout)
        return measured


def run(fixtures: Path) -> dict[str, Any]:
    """Before (baseline commit) and after (this tree) figures."""
    return {"baseline_commit": BASELINE_COMMIT, "before": _baseline(fixtures), "after": measure(fixtures)}


def table(result: dict[str, Any]) -> Table:
    """One row per figure: before, after, target."""
    out = Table(title="sectioning quality (before = baseline commit, after = this tree)")
    for column in ("figure", "where", "before", "after", "target"):
        out.add_column(column, justify="right" if column in ("before", "after") else "left")
    before = result.get("before") or {}
    after = result["after"]
    targets = {"titles_with_markup": "0", "headings_in_code": "0", "furniture_share": "0"}
    for corpus, figures in after["corpora"].items():
        old = (before.get("corpora") or {}).get(corpus, {})
        for key in ("sections", "titles_with_markup", "headings_in_code", "headings_in_tabs",
                    "html_headings", "titles_with_literal_markup"):
            out.add_row(key, corpus, str(old.get(key, "–")), str(figures[key]), targets.get(key, ""))
    old_office = {row["file"]: row for row in before.get("office") or []}
    for row in after["office"]:
        if "error" in row:
            continue
        old = old_office.get(row["file"], {})
        out.add_row("sections / largest B", row["file"],
                    f"{old.get('sections', '–')} / {old.get('largest_bytes', '–')}",
                    f"{row['sections']} / {row['largest_bytes']}", "")
        if "furniture_share" in row and (row["furniture_share"] or old.get("furniture_share")):
            out.add_row("furniture_share", row["file"], str(old.get("furniture_share", "–")),
                        str(row["furniture_share"]), "0")
    return out


if __name__ == "__main__" and sys.argv[1:2] == ["--measure"]:
    print(json.dumps(measure(Path(sys.argv[2])), ensure_ascii=False))
