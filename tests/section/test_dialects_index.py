"""Dialect files through the real index: titles, search, and ``verify`` on the user's own bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from docmunch.index import Index

HUGO = (
    "---\r\ntitle: Volumes\r\n---\r\n"
    "## {{% heading \"prerequisites\" %}}\r\n\r\nA cluster.\r\n\r\n"
    "{{< tab name=\"Linux\" codelang=\"yaml\" >}}\r\n---\r\n# the mount is read-only\r\n{{< /tab >}}\r\n\r\n"
    "## persistentVolumeClaim\r\n\r\nClaims storage.\r\n\r\n"
    "## {{% heading \"whatsnext\" %}}\r\n\r\nRead more.\r\n"
)
MKDOCS = "# Setup\n\n!!! warning \"Careful\"\n    ## Inside\n    Back up first.\n\n## Run\n\nGo.\n"
README = (
    "<div align=\"center\">\n<h1 align=\"center\">Widget</h1>\n</div>\n\nA widget.\n\n"
    "<h2 id=\"install\">Install</h2>\n\npip install widget\n\n<!-- <h2>Old</h2> -->\n"
)
MDX = (
    "import Tabs from '@theme/Tabs';\n\n# Guide\n\n:::note\n## Not a section\n:::\n\n"
    "<h2>Raw HTML</h2>\n\ntext\n"
)


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "volumes.md").write_bytes(HUGO.encode("utf-8"))
    (root / "setup.md").write_text(MKDOCS, encoding="utf-8")
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "guide.mdx").write_text(MDX, encoding="utf-8")
    return root


def test_dialect_sections_verify_on_the_original_bytes(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with Index.open(tmp_path / "home") as index:
        index.index_path(root, repo="d")
        titles = {doc: [(s.level, s.title) for s in index.toc("d", doc)]
                  for doc in ("volumes.md", "setup.md", "README.md", "guide.mdx")}
        assert titles["volumes.md"] == [
            (2, "Prerequisites"), (2, "persistentVolumeClaim"), (2, "What's next"),
        ]
        assert titles["setup.md"] == [(1, "Setup"), (2, "Run")]
        assert titles["README.md"] == [(1, "Widget"), (2, "Install")]
        assert titles["guide.mdx"] == [(1, "Guide"), (2, "Raw HTML")]
        report = index.verify_repo("d")
        assert report.ok and report.sections_checked == 9 and report.originals_checked == 4
        for doc in titles:
            original = (root / doc).read_bytes()
            for section in index.toc("d", doc):
                read = index.get_section("d", section.id, verify=True)
                chunk = original[section.byte_start : section.byte_end]
                assert hashlib.sha256(chunk).hexdigest() == section.content_hash == read.section.content_hash
        install = next(s for s in index.toc("d", "README.md") if s.title == "Install")
        assert install.anchor == "install" and install.id == "d::README.md::widget/install#2"
        # the readable titles are what search sees; the masked code is still searchable text
        assert index.search("what's next", repo="d")[0].title == "What's next"
        assert index.search("prerequisites", repo="d")[0].title == "Prerequisites"
        assert index.search("read-only mount", repo="d")[0].title == "Prerequisites"
