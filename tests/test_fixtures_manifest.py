"""The external fixtures named in fixtures/manifest.json are present and unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "fixtures" / "manifest.json"


def test_manifest_files_present_with_recorded_sha256(fixtures_dir: Path) -> None:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert manifest["format"] == "docmunch-fixtures-manifest/1"
    wrong = [
        entry["path"]
        for entry in manifest["files"]
        if not (fixtures_dir / entry["path"]).is_file()
        or hashlib.sha256((fixtures_dir / entry["path"]).read_bytes()).hexdigest() != entry["sha256"]
    ]
    assert wrong == [], f"fixtures missing or changed (run `make fixtures`): {wrong[:10]}"


def test_upstream_origins_are_pinned_to_commits() -> None:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        origin = entry["origin"]
        if "repo" in origin:
            assert len(origin["commit"]) == 40, entry["path"]
            assert origin["path"] and not origin["path"].startswith("/"), entry["path"]
        else:
            assert origin.get("note"), entry["path"]
