"""The mypyc-compiled extraction stage: in use when fresh, bypassed when stale, same output.

``make test`` compiles first (``scripts/compile.py``), so on a machine with a C compiler the
suite runs against the extensions; these tests check that this really happened, that the
guard falls back to the sources when an extension is older than its source, and that the
compiled and the Python extraction give byte-identical articles on real pages.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docmunch import compiled

REPO = Path(__file__).resolve().parent.parent
_ORIGIN = "import importlib, sys; print(importlib.import_module(sys.argv[1]).__spec__.origin)"


def _origin(root: Path, module: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", _ORIGIN, module],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_a_machine_with_a_compiler_runs_the_compiled_modules() -> None:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        state, _reason = compiled.status()
        assert state in ("source", "compiled")
        return
    state, reason = compiled.status()
    assert state == "compiled", f"make test compiles first; {reason} (run `make compile`)"
    for module in ("docmunch.extract", "docmunch.extract._readability", "docmunch.detect"):
        origin = _origin(REPO, module)
        assert not origin.endswith(".py"), (module, origin)
        assert _origin(REPO, module, {compiled.PURE_ENV: "1"}).endswith(".py")


def _copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "docmunch", root / "docmunch", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _source(package: Path, module: str) -> Path:
    relative = package / Path(*module.split(".")[1:])
    return relative / "__init__.py" if relative.is_dir() else relative.with_suffix(".py")


def test_a_stale_extension_is_bypassed_for_the_whole_group(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    package = root / "docmunch"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for module in compiled.MODULES:  # an extension that cannot load: importing it would fail loudly
        source = _source(package, module)
        stem = "__init__" if source.name == "__init__.py" else source.stem
        source.with_name(stem + suffix).write_bytes(b"not an extension")
    digests = {m: hashlib.sha256(_source(package, m).read_bytes()).hexdigest() for m in compiled.MODULES}
    (package / "compiled.json").write_text(json.dumps({"modules": digests}), encoding="utf-8")
    with pytest.raises(subprocess.CalledProcessError):  # fresh record: the (bogus) extensions are used
        _origin(root, "docmunch.extract._dom")
    dom = package / "extract" / "_dom.py"
    dom.write_text(dom.read_text(encoding="utf-8") + "\n# edited after the build\n", encoding="utf-8")
    for module in (
        "docmunch.extract._dom", "docmunch.extract._readability", "docmunch.extract", "docmunch.detect"
    ):
        assert _origin(root, module).endswith(".py"), module
    (package / "compiled.json").unlink()  # extensions without a record are stale too
    assert _origin(root, "docmunch.extract._title").endswith(".py")


def _python(script: str, args: list[str], env: dict[str, str]) -> str:
    """Run ``script`` in a fresh interpreter on the repo's code; its stdout, stripped."""
    result = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def _article_digest(env: dict[str, str], pages: list[Path]) -> str:
    script = (
        "import hashlib, sys\n"
        "from docmunch.extract import extract\n"
        "h = hashlib.sha256()\n"
        "for path in sys.argv[1:]:\n"
        "    a = extract(open(path, 'rb').read())\n"
        "    for v in (a.title, a.byline, a.excerpt, a.site_name, a.lang, a.dir, a.published_time,\n"
        "              a.platform, a.content_html, a.text):\n"
        "        h.update(repr(v).encode())\n"
        "print(h.hexdigest())\n"
    )
    return _python(script, [str(page) for page in pages], env)


def test_compiled_and_python_extraction_are_byte_identical(fixtures_dir: Path) -> None:
    pages = sorted((fixtures_dir / "articles-dev" / "pages").glob("*.html"))[:40]
    pages += sorted((fixtures_dir / "readability-test-pages").glob("*/source.html"))[:20]
    assert len(pages) == 60
    assert _article_digest({}, pages) == _article_digest({compiled.PURE_ENV: "1"}, pages)


def _search_digest(env: dict[str, str], corpus: Path, queries: list[str], home: Path) -> str:
    script = (
        "import hashlib, json, sys\n"
        "from pathlib import Path\n"
        "from docmunch.index import Index\n"
        "index = Index.open(Path(sys.argv[1]))\n"
        "index.index_path(Path(sys.argv[2]), repo='corpus', exclude=('NOTICE.md',), workers=1)\n"
        "h, hits = hashlib.sha256(), 0\n"
        "for query in json.loads(sys.argv[3]):\n"
        "    for hit in index.search(query, repo='corpus', limit=10):\n"
        "        h.update(repr((hit.id, round(hit.score, 9))).encode())\n"
        "        hits += 1\n"
        "    h.update(b'|')\n"
        "print(hits, h.hexdigest())\n"
    )
    return _python(script, [str(home), str(corpus), json.dumps(queries)], env)


def test_compiled_and_python_indexing_and_search_agree(fixtures_dir: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (fixtures_dir / "queries" / "nl-questions-dev.jsonl").open()]
    queries = [*[row["query"] for row in rows if row["corpus"] == "k8s-zh"][:20], "Pod", "kubectl drain"]
    corpus = fixtures_dir / "corpora" / "k8s-zh" / "scheduling-eviction"
    assert corpus.is_dir()
    compiled_run = _search_digest({}, corpus, queries, tmp_path / "compiled")
    assert int(compiled_run.split()[0]) > 100  # most of the 22 queries find 10 sections
    assert compiled_run == _search_digest({compiled.PURE_ENV: "1"}, corpus, queries, tmp_path / "pure")
