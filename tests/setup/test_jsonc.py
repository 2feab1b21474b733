"""The JSONC reader/editor: equal to ``json`` on JSON, tolerant of comments and trailing commas,
and an edit changes exactly one member and no other character."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docmunch.errors import SetupError
from docmunch.setup.jsonc import get_path, loads, parse, set_path

scalars = st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
objects = st.dictionaries(st.text(max_size=8), values, max_size=5)
indents = st.sampled_from([None, 2, 4, "\t"])


LINE_COMMENT = ' // note, with "quotes" and } ]'
BLOCK_COMMENT = "/* k */"


def commented(text: str) -> str:
    """``text`` with a line comment after every line ending in ``{ [ ,`` and a block comment
    before every key: still JSONC, same value."""
    text = re.sub(r"([{\[,])\n", lambda m: m.group(1) + LINE_COMMENT + "\n", text)
    return text.replace('\n  "', "\n  " + BLOCK_COMMENT + ' "')


@given(values, indents)
@settings(max_examples=200, deadline=None)
def test_equal_to_json_on_json(value: object, indent: object) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)  # type: ignore[arg-type]
    assert loads(text) == json.loads(text)


@given(objects, st.sampled_from([2, 4]))
@settings(max_examples=150, deadline=None)
def test_comments_do_not_change_the_value(value: dict[str, object], indent: int) -> None:
    text = commented(json.dumps(value, indent=indent, ensure_ascii=False))
    assert loads(text) == value


@given(objects, st.sampled_from([None, 2, "\t"]), st.booleans(), values)
@settings(max_examples=150, deadline=None)
def test_set_path_changes_one_member_only(
    value: dict[str, object], indent: object, comments: bool, entry: object
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)  # type: ignore[arg-type]
    if comments and indent is not None:
        text = commented(text)
    table = value.get("servers")
    if table is not None and not isinstance(table, dict):
        with pytest.raises(SetupError, match="not a JSON object"):
            set_path(text, ["servers", "docmunch"], entry)
        return
    edited = set_path(text, ["servers", "docmunch"], entry)
    want = json.loads(json.dumps(value))
    want.setdefault("servers", {})["docmunch"] = entry
    assert loads(edited) == want
    assert get_path(parse(edited), ["servers", "docmunch"]) == entry
    if comments and indent is not None:
        # Every comment `commented` inserted survives (keys and strings may hold "//" too).
        for line in text.splitlines():
            if line.endswith(LINE_COMMENT) or BLOCK_COMMENT in line:
                assert line.rstrip(",") in edited


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": 1,,}', "line 1 column 9"),
        ('{"a" 1}', "line 1 column 6"),
        ('{\n  "a": tru\n}', "line 2 column 8"),
        ('{"a": "x\n"}', "line 1 column 7"),
        ('{"a": 1} /* open', "unterminated /* comment"),
        ('{"a": "\\q"}', "invalid string"),
        ("[" * 300 + "]" * 300, "nested deeper than 256"),
    ],
)
def test_syntax_errors_say_where(text: str, where: str) -> None:
    with pytest.raises(SetupError, match=re.escape(where)):
        loads(text, where="cfg.json")


def test_blank_and_comment_only_files_are_empty() -> None:
    assert loads("") is None and loads("  // nothing yet\n/* still nothing */\n") is None
    assert json.loads(
        set_path("// nothing yet\n", ["mcpServers", "docmunch"], {"command": "x"}).split("\n", 1)[1]
    ) == {"mcpServers": {"docmunch": {"command": "x"}}}


def test_last_duplicate_key_wins_and_is_the_one_edited() -> None:
    text = '{"servers": {"a": 1}, "servers": {"b": 2}}'
    assert loads(text) == {"servers": {"b": 2}}
    assert loads(set_path(text, ["servers", "c"], 3)) == {"servers": {"b": 2, "c": 3}}
    assert set_path(text, ["servers", "c"], 3).startswith('{"servers": {"a": 1}, ')
