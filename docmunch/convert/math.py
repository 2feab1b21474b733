"""Math: MathML (with a TeX annotation), KaTeX, MathJax 2 scripts and MathJax 3 containers.

TeX is written ``$...$`` inline and as a ``$$`` block (``$$`` lines around the TeX, with line
breaks collapsed so no TeX line can start a Markdown block) for display math; this is the
``dollarmath`` syntax of markdown-it-py's plugins. TeX is not escaped. Without a TeX
annotation the MathML text content is used. Rendered duplicates (KaTeX ``katex-html``,
MathJax 2 ``MathJax_Preview``/``MathJax`` spans, MathJax 3 ``mjx-math``) are skipped.
"""

from __future__ import annotations

from lxml import etree

from docmunch.convert.escaping import HTML_WHITESPACE
from docmunch.convert.inline import subtree_text
from docmunch.convert.state import State, class_tokens, element_tag

__all__ = ["is_math_duplicate", "is_math_script", "start_math", "start_math_script"]

_DUPLICATE_CLASSES = frozenset({"katex-html", "MathJax_Preview", "MathJax", "MathJax_Display", "MathJax_SVG"})
_TEX_ENCODINGS = frozenset({"application/x-tex", "tex", "text/x-tex", "application/x-latex"})
_DISPLAY_CLASSES = frozenset({"katex-display", "math-display", "MathJax_Display", "math display"})
_MAX_ANCESTORS = 4


def is_math_duplicate(tag: str, tokens: frozenset[str]) -> bool:
    """Whether an element (local ``tag``, class ``tokens``) is a rendered copy of math whose
    source is kept elsewhere."""
    if tag in {"mjx-container", "mjx-assistive-mml"}:
        return False
    if tag.startswith("mjx-"):
        return True
    return not _DUPLICATE_CLASSES.isdisjoint(tokens)


def is_math_script(element: etree._Element) -> bool:
    """Whether a ``<script>`` holds TeX (MathJax 2 ``type="math/tex"``)."""
    return (element.get("type") or "").lower().startswith("math/tex")


def _is_display(element: etree._Element) -> bool:
    if (element.get("display") or "").lower() in {"block", "true"}:
        return True
    if "mode=display" in (element.get("type") or "").lower():
        return True
    ancestor = element.getparent()
    for _ in range(_MAX_ANCESTORS):
        if ancestor is None:
            return False
        if element_tag(ancestor) == "mjx-container" and ancestor.get("display") == "true":
            return True
        if not _DISPLAY_CLASSES.isdisjoint(class_tokens(ancestor)):
            return True
        ancestor = ancestor.getparent()
    return False


def _tex_of(math: etree._Element) -> str:
    for node in math.iter():
        if element_tag(node) == "annotation" and (node.get("encoding") or "").lower() in _TEX_ENCODINGS:
            return node.text or ""
    return subtree_text(math)


def _write(state: State, tex: str, display: bool) -> None:
    tex = HTML_WHITESPACE.sub(" ", tex).strip()
    if not tex:
        return
    if display and not state.cell_depth:
        state.add_block("math", f"$$\n{tex}\n$$")
    else:
        state.add_markdown(f"${tex}$")


def start_math(state: State, element: etree._Element) -> None:
    """``<math>``."""
    state.skip()
    _write(state, _tex_of(element), _is_display(element))


def start_math_script(state: State, element: etree._Element) -> None:
    """``<script type="math/tex">`` (``; mode=display`` for display math)."""
    state.skip()
    _write(state, element.text or "", _is_display(element))
