"""``make bench``: run every benchmark module, print tables, write ``reports/bench.json``.

Each ``bench/bench_*.py`` module exposes ``run(fixtures: pathlib.Path) -> dict`` (numbers,
JSON-serialisable) and ``table(result: dict) -> rich.table.Table``. Benchmarks compare
against peers in one run; they are never timed unit tests.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import time
from pathlib import Path

from rich.console import Console

from docmunch import compiled

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    only = set(argv)
    fixtures = Path(os.environ.get("DOCMUNCH_FIXTURES") or ROOT.parent / "shared" / "fixtures")
    console = Console(width=None if sys.stdout.isatty() else 140)  # rich's 80 columns cut the labels
    results: dict[str, object] = {
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "compiled": compiled.guard(),  # mypyc extensions in use ("compiled") or the sources
    }
    console.print(f"docmunch modules: {results['compiled']} (docmunch/compiled.py)")
    names = sorted(m.name for m in pkgutil.iter_modules([str(ROOT / "bench")]) if m.name.startswith("bench_"))
    for name in names:
        short = name.removeprefix("bench_")
        if only and short not in only:
            continue
        module = importlib.import_module(f"bench.{name}")
        console.rule(short)
        result = module.run(fixtures)
        results[short] = result
        console.print(module.table(result))
    out = ROOT / "reports" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    console.print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
