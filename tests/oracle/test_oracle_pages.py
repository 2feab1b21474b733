"""fixtures/pages.toml: the gate and wide sets, their sha256 and origins."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle.errors import FixtureMismatch, OracleError
from oracle.pages import GATE_PAGES, MANIFEST, READABILITY_COMMIT, load_pages, render_manifest


def test_manifest_is_current(fixtures_dir: Path) -> None:
    assert MANIFEST.read_text(encoding="utf-8") == render_manifest(fixtures_dir)


def test_gate_and_wide_sets(fixtures_dir: Path) -> None:
    gate = load_pages("gate", root=fixtures_dir)
    wide = load_pages("wide", root=fixtures_dir)
    assert tuple(p.name for p in gate) == GATE_PAGES
    assert len(gate) == 20
    assert all(READABILITY_COMMIT in p.origin and p.expected_html and p.expected_html.is_file() for p in gate)
    kinds = [p.kind for p in wide]
    assert kinds.count("readability") == 60
    assert kinds.count("docs") == 62
    docs = [p for p in wide if p.kind == "docs"]
    assert all(p.truth and p.truth["path"] and "main_text" in p.truth for p in docs)
    assert all(p.origin.startswith("https://github.com/") for p in docs)


def test_sha256_mismatch_and_missing_file_are_clear_errors(tmp_path: Path) -> None:
    page = tmp_path / "readability-test-pages" / "x" / "source.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>changed</p>")
    manifest = tmp_path / "pages.toml"
    manifest.write_text(
        '[[gate]]\nname = "x"\nkind = "readability"\npath = "readability-test-pages/x/source.html"\n'
        'sha256 = "00"\norigin = "test"\n'
    )
    with pytest.raises(FixtureMismatch) as err:
        load_pages("gate", root=tmp_path, manifest=manifest)
    assert err.value.path == page
    page.unlink()
    with pytest.raises(OracleError, match="missing"):
        load_pages("gate", root=tmp_path, manifest=manifest)
