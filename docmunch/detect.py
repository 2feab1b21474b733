"""Documentation platform detection: which generator built a page, where its content is.

Evidence, strongest first: ``<meta name="generator">`` (MkDocs, Docusaurus, VitePress, Hugo,
Antora, GitBook, pdoc, Javadoc write one), DOM signatures (class/id names and asset paths a
generator or theme always emits, e.g. Sphinx's ``_static/documentation_options.js``, furo's
``styles/furo.css``, mdBook's ``#mdbook-help-container``) of which a platform needs
independent ones weighing :data:`EVIDENCE_NEEDED` (two class/id names, or one asset path),
then the host (``github.com``, ``*.readthedocs.io``, ``*.gitbook.io``). The extractor still
falls back to scoring when the platform's container is tiny next to the page's text
(:mod:`docmunch.extract._platform`). Each :class:`Platform` names the selectors of its
main-content container (tried in order) and of the chrome to remove inside it: permalink
anchors (``¶``, ``#``), "Edit this page" buttons, prev/next pagers, breadcrumbs, in-page TOCs,
version pickers, copy buttons. An unknown page is ``generic`` (the Readability scoring path).

Selectors are CSS, compiled once to XPath with ``cssselect``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

import lxml.etree as etree
from cssselect import GenericTranslator
from lxml.html import HtmlElement

__all__ = ["EVIDENCE_NEEDED", "GENERIC", "PLATFORMS", "Platform", "detect_platform", "select"]


@dataclass(frozen=True, slots=True)
class Platform:
    """A documentation generator/theme and where its pages keep content and chrome."""

    name: str
    """Short id: ``sphinx``, ``sphinx-furo``, ``mkdocs-material``, …, or ``generic``."""
    content_selectors: tuple[str, ...]
    """CSS selectors of the main-content container, best first."""
    chrome_selectors: tuple[str, ...]
    """CSS selectors of page chrome to delete inside the container."""
    evidence: str
    """Human-readable reason for the verdict (``meta generator 'mkdocs-1.6.1'``)."""


_SPHINX_CHROME = (
    "a.headerlink",
    "div.related",
    "div.sphinxsidebar",
    "div[role=navigation]",
    ".wy-breadcrumbs",
    ".rst-footer-buttons",
    ".rst-versions",
    ".prev-next-area",
    ".related-pages",
    ".edit-this-page",
    ".content-icon-container",
    ".toc-drawer",
    ".bd-toc",
    ".bd-header-article",
    "button.copybtn",
)
_SPHINX_CONTENT = (
    "div[itemprop=articleBody]",
    "article[role=main]",
    "div.body[role=main]",
    "div[role=main]",
    "article.bd-article",
    "div.body",
    "div.document",
)
_MKDOCS_CHROME = (
    "a.headerlink",
    "a.md-content__button",
    ".md-source-file",
    "nav.md-footer__inner",
    ".md-feedback",
    "button.md-clipboard",
    "div.md-sidebar",
    "nav.md-tabs",
)

PLATFORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sphinx-rtd": (_SPHINX_CONTENT, _SPHINX_CHROME),
    "sphinx-furo": (("article[role=main]", *_SPHINX_CONTENT), _SPHINX_CHROME),
    "sphinx-alabaster": (("div.body[role=main]", *_SPHINX_CONTENT), _SPHINX_CHROME),
    "sphinx": (_SPHINX_CONTENT, _SPHINX_CHROME),
    "mkdocs-material": (
        ("article.md-content__inner", "div.md-content article", "div.md-content"),
        _MKDOCS_CHROME,
    ),
    "mkdocs": (("div[role=main]", "div.col-md-9", "main", "div.content"), ("a.headerlink", ".edit-page")),
    "docusaurus": (
        ("article div.theme-doc-markdown", "div.theme-doc-markdown", "article .markdown", "main article"),
        (
            "a.hash-link",
            "nav.theme-doc-breadcrumbs",
            "footer.theme-doc-footer",
            "nav.pagination-nav",
            ".theme-doc-toc-mobile",
            ".theme-doc-version-badge",
            "button.clean-btn",
        ),
    ),
    "vitepress": (
        ("div.vp-doc", "main .vp-doc", "main"),
        (
            "a.header-anchor",
            "span.lang",
            "button.copy",
            "div.line-numbers-wrapper",
            ".edit-link",
            ".prev-next",
            "nav.prev-next",
            ".VPDocFooter",
        ),
    ),
    "mdbook": (
        ("main", "#content"),
        (".nav-chapters", "nav.nav-wrapper", "#menu-bar", ".buttons"),
    ),
    "gitbook": (
        ("main [data-testid='page.contentEditor']", "main .page-inner section.markdown-section", "main"),
        (
            "a[aria-label='Direct link to heading']",
            ".page-footer",
            "nav[aria-label=Breadcrumb]",
            "[data-testid=table-of-contents]",
        ),
    ),
    "docsy": (
        ("div.td-content", "main"),
        (
            "a.td-heading-self-link",
            ".td-page-meta",
            "nav[aria-label=breadcrumb]",
            ".td-toc",
            "#td-page-toc",
            ".td-page-meta__lastmod",
            ".feedback--title",
            ".d-print-none",
        ),
    ),
    "hugo": (
        ("article", "main", "div.content"),
        ("a.anchor", "nav#TableOfContents", ".edit-page", ".pagination"),
    ),
    "antora": (
        ("article.doc", "main.article"),
        ("a.anchor", "nav.breadcrumbs", ".edit-this-page", "nav.pagination", "aside.toc", ".page-versions"),
    ),
    "github": (
        ("article.markdown-body", "div.markdown-body", "#readme"),
        ("a.anchor", "a.heading-link", ".octicon", "clipboard-copy"),
    ),
    "pdoc": (
        ("main.pdoc", "main", "section#module-list"),
        (
            "a.headerlink",
            "nav.pdoc",
            "a.view-source-button",
            "label.view-source-button",
            "a.git-button",
            "a.edit-button",
        ),
    ),
    "pydoc": (("body",), ("td.extra",)),
    "javadoc": (
        ("main[role=main]", "div.contentContainer", "div.content-container"),
        (
            "nav",
            "header.flex-header",
            "div.subNav",
            "div.sub-nav",
            ".skip-nav",
            "#navbar-top",
            "#navbar-bottom",
        ),
    ),
}

GENERIC = Platform("generic", (), (), "no documentation-generator signature found")

_GENERATOR_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"mkdocs-material|mkdocs.*material", re.I), "mkdocs-material"),
    (re.compile(r"\bmkdocs\b", re.I), "mkdocs"),
    (re.compile(r"docusaurus", re.I), "docusaurus"),
    (re.compile(r"vitepress", re.I), "vitepress"),
    (re.compile(r"antora", re.I), "antora"),
    (re.compile(r"gitbook", re.I), "gitbook"),
    (re.compile(r"\bpdoc\b", re.I), "pdoc"),
    (re.compile(r"javadoc", re.I), "javadoc"),
    (re.compile(r"\bsphinx\b", re.I), "sphinx"),
    (re.compile(r"\bhugo\b", re.I), "hugo"),
)

# DOM signatures, checked in order when no generator meta decides: (platform, kind, needle).
# kind: "class" / "id" = a class token / id present anywhere (weight 1); "href" / "src" =
# substring of a <link href> / <script src>, the generator's own asset (weight 2). A platform
# is taken when its matching signatures weigh at least EVIDENCE_NEEDED: never on one class
# name alone (a news page with one "content-container" class is not javadoc). Gathered in one
# pass of four C-level XPath queries.
_SIGNATURES: tuple[tuple[str, str, str], ...] = (
    ("sphinx-furo", "href", "styles/furo.css"),
    ("sphinx-rtd", "class", "wy-nav-content"),
    ("sphinx-rtd", "class", "wy-nav-side"),
    ("sphinx-rtd", "href", "sphinx_rtd_theme"),
    ("sphinx-alabaster", "href", "alabaster.css"),
    ("sphinx", "src", "documentation_options.js"),
    ("sphinx", "class", "sphinxsidebar"),
    ("sphinx", "class", "sphinxsidebarwrapper"),
    ("sphinx", "href", "_static/pygments.css"),
    ("mkdocs-material", "class", "md-content__inner"),
    ("mkdocs-material", "class", "md-container"),
    ("mkdocs-material", "class", "md-sidebar"),
    ("docusaurus", "id", "__docusaurus"),
    ("docusaurus", "class", "theme-doc-markdown"),
    ("docusaurus", "id", "__docusaurus_skipToContent_fallback"),
    ("vitepress", "id", "VPContent"),
    ("vitepress", "class", "vp-doc"),
    ("vitepress", "class", "VPDoc"),
    ("mdbook", "id", "mdbook-help-container"),
    ("mdbook", "id", "sidebar-toggle"),
    ("mdbook", "src", "book.js"),
    ("gitbook", "class", "book-summary"),
    ("gitbook", "class", "gitbook-root"),
    ("gitbook", "class", "book-body"),
    ("docsy", "class", "td-content"),
    ("docsy", "class", "td-main"),
    ("docsy", "class", "td-sidebar"),
    ("antora", "class", "doc"),
    ("antora", "class", "nav-menu"),
    ("antora", "class", "sectionbody"),
    ("github", "class", "markdown-body"),
    ("github", "class", "octicon"),
    ("github", "id", "js-repo-pjax-container"),
    ("github", "class", "application-main"),
    ("pdoc", "class", "pdoc"),
    ("pdoc", "class", "pdoc-code"),
    ("pdoc", "class", "modulename"),
    ("javadoc", "class", "contentContainer"),
    ("javadoc", "class", "content-container"),
    ("javadoc", "class", "class-declaration-page"),
    ("javadoc", "class", "package-declaration-page"),
    ("javadoc", "class", "sub-nav"),
    ("javadoc", "class", "subNav"),
    ("javadoc", "class", "class-description"),
    ("javadoc", "class", "flex-content"),
    ("pydoc", "class", "heading"),
    ("pydoc", "class", "decor"),
)
EVIDENCE_NEEDED = 2
"""Weight of DOM evidence a platform needs (a class or id weighs 1, an asset path 2)."""
_WEIGHTS = {"class": 1, "id": 1, "href": 2, "src": 2}
_CLASSES = etree.XPath("//@class", smart_strings=False)
_IDS = etree.XPath("//@id", smart_strings=False)
_HREFS = etree.XPath("//link/@href", smart_strings=False)
_SRCS = etree.XPath("//script/@src", smart_strings=False)


def _strings(result: object) -> list[str]:
    """The values of an attribute XPath result (a list of plain ``str`` with ``smart_strings=False``)."""
    return [value for value in result if isinstance(value, str)] if isinstance(result, list) else []


class _Evidence:
    """Class tokens, ids and asset URLs of one page, collected once."""

    __slots__ = ("class_tokens", "hrefs", "ids", "srcs")

    def __init__(self, root: HtmlElement) -> None:
        # every whitespace-separated token of every class attribute: a class needle (one token,
        # no whitespace) is on the page exactly when it is one of them
        self.class_tokens = frozenset(" ".join(_strings(_CLASSES(root))).split())
        self.ids = set(_strings(_IDS(root)))
        self.hrefs = _strings(_HREFS(root))
        self.srcs = _strings(_SRCS(root))

    def has(self, kind: str, needle: str) -> bool:
        if kind == "class":
            return needle in self.class_tokens
        if kind == "id":
            return needle in self.ids
        urls = self.hrefs if kind == "href" else self.srcs
        return any(_asset_match(url, needle) for url in urls)

    def first(self, names: tuple[str, ...] | None = None) -> tuple[str, str] | None:
        """The first platform (signature order) whose matched signatures weigh enough."""
        found: dict[str, list[str]] = {}
        weight: dict[str, int] = {}
        for name, kind, needle in _SIGNATURES:
            if names is not None and name not in names:
                continue
            if self.has(kind, needle):
                found.setdefault(name, []).append(f"{kind} {needle!r}")
                weight[name] = weight.get(name, 0) + _WEIGHTS[kind]
        for name, signs in found.items():  # insertion order = signature order
            if weight[name] >= EVIDENCE_NEEDED:
                return name, "DOM signatures " + ", ".join(signs)
        return None


def _asset_match(url: str, needle: str) -> bool:
    """Whether ``needle`` (a generator's asset path) is in ``url`` starting at a path segment.

    ``book.js`` is mdBook's script, ``cardozafacebook.js`` is not; ``styles/furo.css`` matches
    ``_static/styles/furo.css?v=1``.
    """
    start = url.find(needle)
    while start >= 0:
        if start == 0 or url[start - 1] == "/":
            return True
        start = url.find(needle, start + 1)
    return False


_HOST_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(^|\.)github\.com$"), "github"),
    (re.compile(r"(^|\.)readthedocs\.(io|org)$"), "sphinx"),
    (re.compile(r"(^|\.)gitbook\.io$"), "gitbook"),
)

_GENERATOR = etree.XPath(
    "//meta[translate(@name,'GENERATOR','generator')='generator']/@content", smart_strings=False
)


@lru_cache(maxsize=256)
def _compiled(selector: str) -> etree.XPath:
    return etree.XPath(GenericTranslator().css_to_xpath(selector))


def select(root: HtmlElement, selector: str) -> list[HtmlElement]:
    """Elements under ``root`` matching the CSS ``selector`` (document order)."""
    found = _compiled(selector)(root)
    return [el for el in found if isinstance(el, HtmlElement)] if isinstance(found, list) else []


def _platform(name: str, evidence: str) -> Platform:
    content, chrome = PLATFORMS[name]
    return Platform(name, content, chrome, evidence)


def _refine_sphinx(evidence: _Evidence, name: str, why: str) -> Platform:
    theme = evidence.first(("sphinx-furo", "sphinx-rtd", "sphinx-alabaster"))
    if theme is not None:
        return _platform(theme[0], f"{why}; theme {theme[1]}")
    return _platform(name, why)


def detect_platform(root: HtmlElement, *, url: str | None = None) -> Platform:
    """Identify the documentation generator of the page ``root`` (the ``<html>`` element).

    ``url`` (optional) adds host evidence. Returns :data:`GENERIC` when nothing matches.
    Cost: five C-level XPath queries over the tree, then set look-ups.
    """
    evidence = _Evidence(root)
    for content in _strings(_GENERATOR(root)):
        for pattern, name in _GENERATOR_RULES:
            if pattern.search(content):
                why = f"meta generator {content.strip()!r}"
                if name == "hugo" and evidence.has("class", "td-content"):
                    return _platform("docsy", why + "; Docsy class 'td-content'")
                if name == "sphinx":
                    return _refine_sphinx(evidence, name, why)
                return _platform(name, why)
    found = evidence.first()
    if found is not None:
        name, why = found
        return _refine_sphinx(evidence, name, why) if name == "sphinx" else _platform(name, why)
    if url:
        host = (urlsplit(url).hostname or "").lower()
        for pattern, name in _HOST_RULES:
            if pattern.search(host):
                return _platform(name, f"host {host!r}")
    return GENERIC
