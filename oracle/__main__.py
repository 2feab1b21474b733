"""``python -m oracle {refresh,gate,baseline,report,manifest}`` — the Makefile's oracle targets.

Exit codes: 0 success; 1 the gate failed; 2 the harness could not run (one-line message).
"""

from __future__ import annotations

import argparse
import sys
import time

from rich.console import Console

from docmunch.errors import DocmunchError

__all__ = ["main"]


def _refresh(console: Console) -> int:
    from oracle.pages import load_pages
    from oracle.runner import run_oracle
    from oracle.selfcheck import EXCEPTIONS, failing_pages

    pages = load_pages("wide")
    results, stats = run_oracle([(p.name, p.source()) for p in pages], refresh=True)
    console.print(f"oracle: {stats.computed} pages computed in {stats.wall_ms / 1000:.1f} s")
    failing = failing_pages(pages, results)
    unexpected = sorted(set(failing) ^ set(EXCEPTIONS))
    console.print(f"self-check: failing {sorted(failing) or 'none'}; allowed {sorted(EXCEPTIONS) or 'none'}")
    return 1 if unexpected else 0


def _gate(console: Console, extractor: str, write: bool) -> int:
    from oracle.gate import BASELINE, generic_table, run_gate, table, write_baseline

    outcome = run_gate(extractor=extractor)
    console.print(table(outcome))
    generic = generic_table(outcome)
    if generic is not None:
        console.print(generic)
    if write:
        write_baseline(outcome)
        console.print(f"wrote {BASELINE}")
        return 0
    if outcome.baseline is None:
        console.print("no baseline for this extractor in fixtures/baseline.json: floors only")
    if outcome.passed:
        console.print("[green]gate passed[/green]")
        return 0
    for reason in outcome.failures:
        console.print(f"[red]gate FAILED:[/red] {reason}")
    return 1


def _report(console: Console, refresh: bool) -> int:
    from oracle.report import REPORT_HTML, REPORT_JSON, write_report

    started = time.perf_counter()
    doc, stats = write_report(refresh=refresh)
    for ex, refs in doc["summary"]["wide"].items():
        cells = ", ".join(
            f"{ref}: sim {s['token_similarity']:.3f} F1 {s['f1']:.3f} title {s['title_accuracy']:.2f}"
            for ref, s in refs.items()
        )
        console.print(f"{ex:17} {cells}")
    for ex, s in (doc.get("articles") or {}).items():
        console.print(f"{ex:17} articles: P {s['precision']:.3f} R {s['recall']:.3f} F1 {s['f1']:.3f}")
    console.print(
        f"oracle: {stats.cached} cached, {stats.computed} computed; "
        f"report in {time.perf_counter() - started:.1f} s -> {REPORT_HTML}, {REPORT_JSON}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m oracle", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("refresh", help="re-run Readability.js on the wide set and refresh its cache")
    for name, text in (
        ("gate", "score the extractor on the 20-page set"),
        ("baseline", "rewrite baseline.json"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--extractor", default="docmunch", help="extractor to gate (default: docmunch)")
    rep = sub.add_parser("report", help="write reports/extraction.html and .json")
    rep.add_argument("--refresh", action="store_true", help="re-run the oracle and the cached peers")
    sub.add_parser("manifest", help="rewrite fixtures/pages.toml from $DOCMUNCH_FIXTURES")
    args = parser.parse_args(argv)
    console = Console()
    try:
        if args.command == "refresh":
            return _refresh(console)
        if args.command in ("gate", "baseline"):
            return _gate(console, args.extractor, write=args.command == "baseline")
        if args.command == "report":
            return _report(console, args.refresh)
        from oracle.pages import MANIFEST, fixtures_root, render_manifest

        MANIFEST.write_text(render_manifest(fixtures_root()), encoding="utf-8")
        console.print(f"wrote {MANIFEST}")
        return 0
    except DocmunchError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
