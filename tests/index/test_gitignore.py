"""gitignore pattern rules (https://git-scm.com/docs/gitignore, "PATTERN FORMAT"), one case per row."""

from __future__ import annotations

import pytest

from docmunch.index.gitignore import matches, parse_lines

# (patterns, path, is_dir, ignored)
CASES = [
    (["*.log"], "a.log", False, True),
    (["*.log"], "deep/down/a.log", False, True),
    (["*.log"], "a.log.md", False, False),
    (["# comment", "", "a.md"], "a.md", False, True),
    (["\\#hash.md"], "#hash.md", False, True),
    (["draft.md", "!draft.md"], "draft.md", False, False),
    (["*.md", "!keep.md"], "x/keep.md", False, False),
    (["*.md", "!keep.md"], "x/other.md", False, True),
    (["\\!bang.md"], "!bang.md", False, True),
    (["out/"], "out", True, True),
    (["out/"], "out", False, False),
    (["out/"], "a/out", True, True),
    (["/root.md"], "root.md", False, True),
    (["/root.md"], "sub/root.md", False, False),
    (["doc/frotz"], "doc/frotz", False, True),
    (["doc/frotz"], "a/doc/frotz", False, False),
    (["**/foo"], "foo", False, True),
    (["**/foo"], "a/b/foo", False, True),
    (["**/foo/bar.md"], "x/foo/bar.md", False, True),
    (["**/foo/bar.md"], "foo/bar.md", False, True),
    (["abc/**"], "abc/x/y.md", False, True),
    (["abc/**"], "abc", True, False),
    (["a/**/b.md"], "a/b.md", False, True),
    (["a/**/b.md"], "a/x/y/b.md", False, True),
    (["a/**/b.md"], "c/a/x/b.md", False, False),
    (["?.md"], "a.md", False, True),
    (["?.md"], "ab.md", False, False),
    (["[ab].md"], "b.md", False, True),
    (["[!ab].md"], "b.md", False, False),
    (["[!ab].md"], "c.md", False, True),
    (["a*"], "x/abc", False, True),
    (["a/*.md"], "a/b/c.md", False, False),
    (["trailing.md   "], "trailing.md", False, True),
]


@pytest.mark.parametrize(("patterns", "path", "is_dir", "ignored"), CASES)
def test_pattern(patterns: list[str], path: str, is_dir: bool, ignored: bool) -> None:
    assert matches(parse_lines(patterns), path, is_dir=is_dir) is ignored


def test_nested_gitignore_is_relative_to_its_folder_and_overrides_parent() -> None:
    rules = parse_lines(["*.md"], "") + parse_lines(["!keep.md", "/local.txt"], "sub")
    assert matches(rules, "sub/keep.md", is_dir=False) is False
    assert matches(rules, "keep.md", is_dir=False) is True
    assert matches(rules, "sub/local.txt", is_dir=False) is True
    assert matches(rules, "sub/deeper/local.txt", is_dir=False) is False
    assert matches(rules, "local.txt", is_dir=False) is False
