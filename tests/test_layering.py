"""Imports run one way down the pipeline, and no modules import each other (read with ``ast``).

Every ``import``/``from … import`` of a docmunch module anywhere in a file counts, also the
lazy ones inside functions: a lazy import still makes two modules depend on each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "docmunch"

LAYERS = [
    ["compiled"],  # which modules run mypyc-compiled; the package's __init__ runs its guard first
    ["suggest"],  # did-you-mean matching, a leaf shared by errors and the fronts
    ["errors", ""],  # "" = the package's own __init__ (version, compiled-module guard)
    ["limits"],  # named resource limits, read by every stage that takes outside data
    ["fetch"],
    ["detect"],
    ["extract"],
    ["convert"],
    ["section"],
    ["formats"],
    ["index"],
    ["sources"],
    ["terminal"],  # terminal output helpers of the fronts (escaping, JSON, rich console)
    ["progress"],  # the progress line of long runs, drawn with terminal's escaping
    ["setup", "cli_versions"],  # fronts that docmunch/cli/ registers as subcommands
    ["serve", "cli"],
    ["__main__"],
]
"""Packages (or top-level modules) from the bottom of the pipeline up: a package may import
its own layer's packages only from the same package, and any package of a lower layer."""

KNOWN_CYCLES: list[frozenset[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ("docmunch", *path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """docmunch modules that ``name`` imports (``from pkg import submodule`` names the submodule;
    the parent packages that importing runs are not counted)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "docmunch")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "docmunch":
                continue
            submodules = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(base)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(package: str) -> int:
    for n, layer in enumerate(LAYERS):
        if package in layer:
            return n
    raise AssertionError(f"package {package!r} is in no layer of tests/test_layering.py")


def test_graph_is_read() -> None:
    assert "docmunch.section.split" in GRAPH and "docmunch.formats.base" in GRAPH
    assert "docmunch.section.model" in GRAPH["docmunch.formats.base"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    own = _package(module)
    for target in sorted(GRAPH[module]):
        other = _package(target)
        if other == own:
            continue
        assert _layer(other) < _layer(own), f"{module} imports {target}: against the pipeline"


def test_section_uses_no_higher_stage() -> None:
    for module, targets in GRAPH.items():
        if _package(module) == "section":
            bad = {t for t in targets if _package(t) not in ("section", "errors", "limits")}
            assert not bad, f"{module} imports {sorted(bad)}"


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(GRAPH):
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_import_cycles() -> None:
    assert sorted(map(sorted, _cycles())) == sorted(map(sorted, KNOWN_CYCLES))


def test_cycle_finder_finds_a_cycle() -> None:
    saved = dict(GRAPH)
    try:
        GRAPH["docmunch.section.model"] = {"docmunch.section.split"}
        assert any({"docmunch.section.model", "docmunch.section.split"} <= c for c in _cycles())
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
