"""The oracle of the block parser: markdown-it-py's own block parse, as sectioning read it
before :mod:`docmunch.section.blocks` (tokens at nesting level 0, paragraphs at any level)."""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token

from docmunch.section.blocks import Block
from docmunch.section.outline import MD


def mdit_blocks(text: str) -> tuple[list[Block], dict[str, dict[str, Any]]]:
    """:func:`docmunch.section.blocks.outline_blocks`, computed by markdown-it-py's block parser."""
    env: dict[str, Any] = {}
    tokens: list[Token] = []
    MD.block.parse(text, MD, env, tokens)
    blocks: list[Block] = []
    for i, token in enumerate(tokens):
        if token.map is None or (token.level != 0 and token.type != "paragraph_open"):
            continue
        if token.type == "heading_open":
            blocks.append(Block("heading", token.map[0], int(token.tag[1]), tokens[i + 1].content))
        elif token.type == "html_block":
            blocks.append(Block("html", token.map[0], 0, token.content))
        elif token.type == "paragraph_open":
            blocks.append(Block("paragraph", token.map[0], 0, tokens[i + 1].content))
    references: dict[str, dict[str, Any]] = env.get("references", {})
    return blocks, references
