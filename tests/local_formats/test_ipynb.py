"""Notebooks: Markdown cells kept, code cells fenced with the kernel language, outputs dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from docmunch.errors import ConvertError
from docmunch.formats import render_file

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "local-formats" / "loading-data.ipynb"
EXPECTED = """# Loading data

This notebook shows how to **load** a CSV file.

```python
import csv
rows = list(csv.reader(open('data.csv')))
```

## Cleaning

Drop empty rows; a fence inside code follows.

````python
doc = '''
```
not a fence end
```
'''
# a comment, not a heading
````

### 统计 Summary
"""


def test_notebook_rendition_is_exact_markdown() -> None:
    rendition = render_file(FIXTURE, FIXTURE.read_bytes())
    assert rendition.markdown.decode("utf-8") == EXPECTED
    assert rendition.title == "Loading data"
    assert rendition.source_kind == "ipynb"


def test_headings_and_code_survive_a_commonmark_parse() -> None:
    md = render_file(FIXTURE, FIXTURE.read_bytes()).markdown.decode()
    tokens = MarkdownIt("commonmark").parse(md)
    headings = [(t.tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == [("h1", "Loading data"), ("h2", "Cleaning"), ("h3", "统计 Summary")]
    fences = [(t.info, t.content) for t in tokens if t.type == "fence"]
    assert fences[1] == ("python", "doc = '''\n```\nnot a fence end\n```\n'''\n# a comment, not a heading\n")


def test_blocks_point_at_their_cells() -> None:
    rendition = render_file(FIXTURE, FIXTURE.read_bytes())
    cells = [b.positions[0]["index"] for b in rendition.blocks]
    assert cells == [0, 1, 3, 4, 5]  # the raw cell (2) is dropped
    for block in rendition.blocks:
        text = rendition.markdown[block.md_start:block.md_end].decode("utf-8")
        assert " ".join(text.split()) == block.text


@pytest.mark.parametrize("payload", [b"{not json", b"[1, 2]", b'{"metadata": {}}', b"\xff\xfe"])
def test_bad_notebooks_raise_convert_error(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "bad.ipynb"
    with pytest.raises(ConvertError):
        render_file(path, payload)


def test_nbformat3_worksheets(tmp_path: Path) -> None:
    nb = {"nbformat": 3, "metadata": {"language": "julia"}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": ["Setup"]},
        {"cell_type": "code", "input": ["x = 1"], "outputs": [{"text": "1"}]},
    ]}]}
    path = tmp_path / "old.ipynb"
    md = render_file(path, json.dumps(nb).encode()).markdown.decode()
    assert md == "## Setup\n\n```julia\nx = 1\n```\n"
