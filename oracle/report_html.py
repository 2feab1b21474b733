"""Render the extraction report as one self-contained offline HTML page (inline CSS and JS only).

Sections: summary tables (gate and wide set, extractor × reference), the oracle self-check, a
sortable per-page table (worst docmunch-vs-oracle similarity first) and, per page, titles, every
extractor's scores and a side-by-side word diff of docmunch's text against the oracle's.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from rapidfuzz.distance import Indel

__all__ = ["render_html", "word_diff"]

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:2px 6px}
th{background:#eee;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}
th[data-dir=asc]::after{content:" \\25B2"}th[data-dir=desc]::after{content:" \\25BC"}
.bad{background:#fdd}.ok{background:#dfd}.diff{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.diff pre{white-space:pre-wrap;
border:1px solid #ccc;padding:.5em;max-height:40em;overflow:auto;font-size:12px}
del{background:#fbb;text-decoration:none}ins{background:#bfb;text-decoration:none}.skip{color:#888}
details{margin:.3em 0}summary{cursor:pointer}
"""

_JS = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, i) {
    th.addEventListener("click", function () {
      var asc = th.dataset.dir !== "asc";
      Array.prototype.forEach.call(heads, function (h) { delete h.dataset.dir; });
      th.dataset.dir = asc ? "asc" : "desc";
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[i];
        if (cell.dataset.v === undefined) { return cell.textContent.trim(); }
        var v = parseFloat(cell.dataset.v);
        return isNaN(v) ? -Infinity : v;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = (typeof x === "number" && typeof y === "number") ? (x === y ? 0 : (x < y ? -1 : 1))
          : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

_SUMMARY_COLS = (
    ("pages", "pages", "d"),
    ("title_accuracy", "title acc.", "f"),
    ("token_similarity", "token sim.", "f"),
    ("noise_residue", "noise", "f"),
    ("precision", "precision", "f"),
    ("recall", "recall", "f"),
    ("f1", "F1", "f"),
    ("heading_recall", "heading recall", "f"),
    ("code_exact", "code exact", "f"),
    ("leak_pages", "pages leaking chrome", "d"),
    ("ms_per_page", "ms/page", "ms"),
    ("errors", "errors", "d"),
)

_CONTEXT = 12
"""Words of an unchanged run kept on each side of a change in the diff."""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float | None, kind: str = "f") -> str:
    if value is None:
        return '<td class="n" data-v="">–</td>'
    shown = f"{value:.0f}" if kind in ("ms", "d") else f"{value:.3f}"
    return f'<td class="n" data-v="{value:.6f}">{shown}</td>'


def word_diff(ours: str, theirs: str) -> tuple[str, str]:
    """Two HTML ``<pre>`` bodies: our words with ``<del>`` for words only we have, theirs with ``<ins>``.

    Words are whitespace-separated; alignment is rapidfuzz ``Indel.opcodes`` (an LCS alignment).
    Unchanged runs longer than ``2 * _CONTEXT`` words are shortened to their ends.
    """
    a, b = ours.split(), theirs.split()
    left: list[str] = []
    right: list[str] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            run = a[op.src_start : op.src_end]
            if len(run) > 2 * _CONTEXT + 5:
                kept = _e(" ".join(run[:_CONTEXT])), _e(" ".join(run[-_CONTEXT:]))
                skipped = f'<span class="skip">[… {len(run) - 2 * _CONTEXT} equal words …]</span>'
                text = f"{kept[0]} {skipped} {kept[1]}"
            else:
                text = _e(" ".join(run))
            left.append(text)
            right.append(text)
        elif op.tag == "delete":
            left.append(f"<del>{_e(' '.join(a[op.src_start : op.src_end]))}</del>")
        elif op.tag == "insert":
            right.append(f"<ins>{_e(' '.join(b[op.dest_start : op.dest_end]))}</ins>")
    return " ".join(left), " ".join(right)


def _summary_tables(doc: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for set_name, label in (("gate", "Gate set (20 pages)"), ("wide", "Wide set (all pages)")):
        out.append(f"<h2>{_e(label)}</h2>")
        for ref in ("oracle", "expected", "truth"):
            rows = [(ex, refs[ref]) for ex, refs in doc["summary"][set_name].items() if ref in refs]
            if not rows:
                continue
            out.append(f"<h3>against {_e(ref)}</h3><table><thead><tr><th>extractor</th>")
            out.extend(f"<th>{_e(title)}</th>" for _, title, _ in _SUMMARY_COLS)
            out.append("</tr></thead><tbody>")
            for ex, s in rows:
                cells = "".join(_num(s[key], kind) for key, _, kind in _SUMMARY_COLS)
                out.append(f"<tr><td>{_e(ex)}</td>{cells}</tr>")
            out.append("</tbody></table>")
    return out


def _articles_table(summary: Mapping[str, Any] | None) -> list[str]:
    """articles-dev table: snippet precision/recall/F1 (micro-averaged) per extractor."""
    if not summary:
        return []
    out = ["<h2>Articles (articles-dev, 330 pages, snippet metric)</h2><table><thead><tr><th>extractor</th>"]
    cols = ("precision", "recall", "f1", "accuracy", "tp", "fp", "fn", "leaking_pages", "errors")
    counts = ("tp", "fp", "fn", "leaking_pages", "errors")
    out.extend(f"<th>{_e(c)}</th>" for c in cols)
    out.append("</tr></thead><tbody>")
    for ex, s in summary.items():
        cells = "".join(_num(s[c], "d" if c in counts else "f") for c in cols)
        out.append(f"<tr><td>{_e(ex)}</td>{cells}</tr>")
    out.append("</tbody></table>")
    return out


def _score(page: Mapping[str, Any], extractor: str, ref: str, metric: str) -> float | None:
    refs = page["scores"].get(extractor, {})
    if ref == "content":
        ref = "expected" if "expected" in refs else "truth"
    value = refs.get(ref, {}).get(metric)
    return None if value is None else float(value)


def _pages_table(doc: Mapping[str, Any]) -> list[str]:
    cols = [
        ("docmunch", "oracle", "title_match", "dm title"),
        ("docmunch", "oracle", "token_similarity", "dm sim"),
        ("docmunch", "oracle", "noise_residue", "dm noise"),
        ("docmunch", "content", "f1", "dm F1 vs expected/truth"),
        ("readability-lxml", "oracle", "token_similarity", "rl sim"),
        ("trafilatura", "oracle", "token_similarity", "traf sim"),
        ("oracle", "content", "f1", "oracle F1 vs expected/truth"),
    ]
    out = ['<table class="sortable" id="pages"><thead><tr><th>page</th><th>kind</th><th>gate</th>']
    out.extend(f"<th>{_e(label)}</th>" for *_, label in cols)
    out.append("<th>dm ms</th></tr></thead><tbody>")
    order = sorted(
        enumerate(doc["pages"]), key=lambda ip: _score(ip[1], "docmunch", "oracle", "token_similarity") or 0.0
    )
    for i, page in order:
        sim = _score(page, "docmunch", "oracle", "token_similarity") or 0.0
        cls = "bad" if sim < 0.85 else ""
        cells = "".join(_num(_score(page, ex, ref, m)) for ex, ref, m, _ in cols)
        ms = page["extractions"].get("docmunch", {}).get("ms")
        out.append(
            f'<tr class="{cls}"><td><a href="#p{i}">{_e(page["name"])}</a></td><td>{_e(page["kind"])}</td>'
            f"<td>{'yes' if page['gate'] else ''}</td>{cells}{_num(ms, 'ms')}</tr>"
        )
    out.append("</tbody></table>")
    return out


def _page_detail(i: int, page: Mapping[str, Any], texts: Mapping[str, str]) -> list[str]:
    out = [f'<details id="p{i}"><summary>{_e(page["name"])} ({_e(page["kind"])})</summary>']
    out.append(f'<p>origin: {_e(page["origin"])}</p><table><thead><tr><th>extractor</th><th>title</th>'
               "<th>reference</th><th>title ok</th><th>sim</th><th>noise</th><th>F1</th>"
               "<th>headings</th><th>code</th><th>ms</th><th>error</th></tr></thead><tbody>")  # fmt: skip
    for ex, info in page["extractions"].items():
        for ref, s in page["scores"].get(ex, {}).items():
            ok = "yes" if s["title_match"] else "no"
            out.append(
                f"<tr><td>{_e(ex)}</td><td>{_e(info['title'])}</td><td>{_e(ref)}</td><td>{ok}</td>"
                f"{_num(s['token_similarity'])}{_num(s['noise_residue'])}{_num(s['f1'])}"
                f"{_num(s['heading_recall'])}{_num(s['code_exact'])}{_num(info['ms'], 'ms')}"
                f"<td>{_e(info['error'] or '')}</td></tr>"
            )
    out.append("</tbody></table>")
    candidate = "docmunch"
    if page["extractions"].get("docmunch", {}).get("error"):
        out.append(f"<p>docmunch failed: {_e(page['extractions']['docmunch']['error'])}; "
                   "diff shows readability-lxml instead.</p>")  # fmt: skip
        candidate = "readability-lxml"
    left, right = word_diff(texts.get(candidate, ""), texts.get("oracle", ""))
    out.append(f'<div class="diff"><div><b>{_e(candidate)}</b> (<del>only here</del>)<pre>{left}</pre></div>')
    out.append(f"<div><b>oracle</b> (<ins>only here</ins>)<pre>{right}</pre></div></div></details>")
    return out


def render_html(doc: Mapping[str, Any], texts: Mapping[str, Mapping[str, str]]) -> str:
    """The report page for a :func:`oracle.report.build_report` document.

    ``texts`` maps page name → extractor → extracted text (for the diffs). No external resource
    is referenced; sorting is inline JavaScript.
    """
    run = doc["oracle_run"]
    versions = ", ".join(f"{k} {v}" for k, v in doc["versions"].items())
    check = doc["self_check"]
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        "<title>docmunch extraction report</title>",
        f"<style>{_CSS}</style></head><body><h1>docmunch extraction report</h1>",
        f"<p>Generated {_e(doc['generated'])}; oracle {_e(doc['oracle_version'])}; {_e(versions)}.</p>",
        f"<p>Oracle run: {run['cached']} pages from cache, {run['computed']} computed "
        f"(browser started: {'yes' if run['browser_started'] else 'no'}), {run['wall_ms']:.0f} ms wall.</p>",
        *_summary_tables(doc),
        *_articles_table(doc.get("articles")),
        f"<h2>Oracle self-check</h2><p>Oracle text vs expected.html, threshold {check['threshold']}: "
        f"{len(check['similarity']) - len(check['failing'])} of {len(check['similarity'])} pages pass; "
        f"failing: {_e(', '.join(check['failing']) or 'none')}; allowed exceptions: "
        f"{_e(', '.join(f'{k} ({v})' for k, v in check['exceptions'].items()) or 'none')}.</p>",
        "<h2>Pages</h2><p>Click a header to sort; worst docmunch-vs-oracle similarity first.</p>",
        *_pages_table(doc),
        "<h2>Page details</h2>",
    ]
    for i, page in enumerate(doc["pages"]):
        parts.extend(_page_detail(i, page, texts.get(page["name"], {})))
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)
