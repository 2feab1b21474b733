"""Two versions of one real doc tree: the rust-book corpus copied twice, the second one edited."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

CORPUS = "rust-book"
EXCLUDE = ("NOTICE.md",)

CHANGED = "ch04-01-what-is-ownership.md"
"""Edited in v2: a paragraph rewritten and a section added (its old sections keep their ids)."""
REMOVED = "appendix-00.md"
"""Present in v1 only."""
ADDED = "ch22-00-zebra-allocators.md"
"""Present in v2 only."""
NEW_SECTION_SLUG = "what-is-ownership/ownership-in-version-two"
NEW_TERM = "zebracopter"
"""A word that occurs only in v2."""
OLD_SENTENCE = "Ownership_ is a set of rules that govern how a Rust program manages memory."
NEW_SENTENCE = "Ownership_ is a set of rules, checked at compile time, for how a Rust program manages memory."


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    for path in [dest, *dest.rglob("*")]:  # the shared fixtures are read-only
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest


def make_versions(fixtures_dir: Path, root: Path) -> tuple[Path, Path]:
    """``(v1, v2)`` folders under ``root``: the corpus as it is, and an edited copy."""
    src = fixtures_dir / "corpora" / CORPUS
    v1 = _copy(src, root / "v1" / CORPUS)
    v2 = _copy(src, root / "v2" / CORPUS)
    changed = v2 / CHANGED
    text = changed.read_text(encoding="utf-8")
    assert OLD_SENTENCE in text
    text = text.replace(OLD_SENTENCE, NEW_SENTENCE, 1)
    changed.write_text(
        text
        + f"\n### Ownership in version two\n\nThe {NEW_TERM} hands ownership from one owner to the next.\n",
        encoding="utf-8",
    )
    (v2 / REMOVED).unlink()
    (v2 / ADDED).write_text(
        f"# Zebra allocators\n\nA {NEW_TERM} allocates stripes.\n\n## Striped arenas\n\nArenas of stripes.\n",
        encoding="utf-8",
    )
    return v1, v2
