"""Index benchmark: cold/no-change indexing, search and section-read latency, peak RSS.

Targets (issue 2, on a 2-core machine): k8s-en cold < 10 s, no-change re-index < 1 s,
search p95 < 10 ms, section read p95 < 1 ms, peak RSS < 300 MB.

The measurements run in a child process (``python -m bench.bench_index FIXTURES``) so that
peak RSS (``VmHWM`` of the child) is docmunch's alone.
Search queries are derived from the corpus itself: section titles (whole, and their first
one to three words), deterministic (``random.Random(0)``).
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.table import Table

TARGETS = {
    "k8s-en_cold_s": 10.0,
    "k8s-en_nochange_s": 1.0,
    "search_p95_ms": 10.0,
    "section_p95_ms": 1.0,
    "peak_rss_mb": 300.0,
    "peak_rss_worker_mb": 300.0,
}
EXCLUDE = ("NOTICE.md",)
QUERIES = 300
READS = 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _queries(titles: list[str], n: int) -> list[str]:
    rng = random.Random(0)
    out: list[str] = []
    while len(out) < n:
        words = rng.choice(titles).split()
        if not words:
            continue
        out.append(" ".join(words[: rng.randint(1, 3)]) if rng.random() < 0.6 else " ".join(words))
    return out


def measure(fixtures: Path) -> dict[str, Any]:
    """Run every measurement in this process; returns the numbers (seconds, ms, MB)."""
    from docmunch.index import Index

    corpora = fixtures / "corpora"
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        index = Index.open(Path(tmp))
        for name in ("rust-book", "k8s-en"):
            started = time.perf_counter()
            report = index.index_path(corpora / name, exclude=EXCLUDE)
            result[f"{name}_cold_s"] = round(time.perf_counter() - started, 3)
            result[f"{name}_docs"] = report.docs_indexed
            result[f"{name}_sections"] = report.sections
        started = time.perf_counter()
        again = index.index_path(corpora / "k8s-en", exclude=EXCLUDE)
        result["k8s-en_nochange_s"] = round(time.perf_counter() - started, 3)
        assert again.docs_indexed == 0, again

        sections = index.toc("k8s-en")
        queries = _queries([s.title for s in sections if s.level > 0], QUERIES)
        for q in queries[:20]:  # warm the page cache and statement cache
            index.search(q, repo="k8s-en")
        latencies: list[float] = []
        empty = 0
        for q in queries:
            started = time.perf_counter()
            hits = index.search(q, repo="k8s-en", limit=10)
            latencies.append((time.perf_counter() - started) * 1000)
            empty += not hits
        result["search_queries"] = len(queries)
        result["search_no_results"] = empty
        result["search_p50_ms"] = round(statistics.median(latencies), 3)
        result["search_p95_ms"] = round(_pct(latencies, 0.95), 3)

        rng = random.Random(1)
        picks = [rng.choice(sections).id for _ in range(READS)]
        reads: list[float] = []
        for sid in picks:
            started = time.perf_counter()
            index.get_section("k8s-en", sid)
            reads.append((time.perf_counter() - started) * 1000)
        result["section_reads"] = len(picks)
        result["section_p50_ms"] = round(statistics.median(reads), 4)
        result["section_p95_ms"] = round(_pct(reads, 0.95), 4)
        index.close()
    result["peak_rss_mb"] = _peak_rss_mb()
    # Largest parser worker process (cold runs parse in forked workers).
    result["peak_rss_worker_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return result


def _peak_rss_mb() -> float:
    """Peak RSS of this process in MB: Linux ``VmHWM`` (reset by exec, unlike ``ru_maxrss``,
    which keeps the forking parent's size when ``make bench`` runs this after other benches)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def run(fixtures: Path) -> dict[str, Any]:
    """Measure in a child process (isolated RSS) and attach the targets."""
    proc = subprocess.run(
        [sys.executable, "-m", "bench.bench_index", str(fixtures)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bench_index child failed: {proc.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    result["targets"] = TARGETS
    result["cpu_count"] = _cpus()
    return result


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def table(result: dict[str, Any]) -> Table:
    """Rich table: measure, value, target, ok."""
    t = Table(title="docmunch index")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    t.add_column("ok")
    targets = result.get("targets", TARGETS)
    for key, value in result.items():
        if key in ("targets",):
            continue
        target = targets.get(key)
        ok = "" if target is None else ("yes" if float(value) < target else "NO")
        t.add_row(key, str(value), "" if target is None else f"< {target}", ok)
    return t


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]))))
