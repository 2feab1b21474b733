"""Article metadata the way Readability.js reports it.

Follows Mozilla Readability.js 0.6 (Apache-2.0): ``_getJSONLD``, ``_getArticleMetadata``
and ``_getArticleTitle`` (title separators ``| - \\ / > »``, the ``: `` rule with its
``<h1>``/``<h2>`` agreement check, the lone-``<h1>`` fallback for very short/long titles,
and the "too few words left → keep the original" rule). Re-implemented here on lxml.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from docmunch.extract._dom import inner_text, normalize_spaces, text_of

__all__ = ["Metadata", "article_title", "read_metadata", "text_similarity"]

_JSONLD_TYPES = re.compile(
    r"^Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|"
    r"BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|"
    r"SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|"
    r"LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference$"
)
_SCHEMA_ORG = re.compile(r"^https?://schema\.org/?$")
_CDATA = re.compile(r"^\s*<!\[CDATA\[|\]\]>\s*$")
_PROPERTY = re.compile(
    r"\s*(article|dc|dcterm|og|twitter)\s*:\s*(author|creator|description|published_time|title|site_name)\s*",
    re.IGNORECASE,
)
_NAME = re.compile(
    r"^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(article|webpage))\s*[-.:]\s*)?"
    r"(author|creator|pub-date|description|title|site_name)\s*$",
    re.IGNORECASE,
)
_WS = re.compile(r"\s+")
_SEP = re.compile(r" [|\-\\/>»] ")
_HIER_SEP = re.compile(r" [\\/>»] ")
_LEAD = re.compile(r"^[^|\-\\/>»]*[|\-\\/>»]")
_SEP_RUN = re.compile(r"[|\-\\/>»]+")
_TOKENIZE = re.compile(r"\W+", re.ASCII)  # JS \W is ASCII-only: CJK text splits apart
_ENTITY = re.compile(r"&(quot|amp|apos|lt|gt);|&#(?:x([0-9a-f]+)|([0-9]+));", re.IGNORECASE)
_NAMED = {"quot": '"', "amp": "&", "apos": "'", "lt": "<", "gt": ">"}


@dataclass(frozen=True, slots=True)
class Metadata:
    """Page metadata; every field is ``None`` when the page does not say."""

    title: str | None
    """Article title (JSON-LD, meta tags, else the cleaned ``<title>``)."""
    byline: str | None
    """Author line from JSON-LD or meta tags (the visible byline is found during scoring)."""
    excerpt: str | None
    """Description from JSON-LD or meta tags."""
    site_name: str | None
    """``og:site_name`` or the JSON-LD publisher name."""
    published_time: str | None
    """Publication time as the page writes it (not parsed)."""


def _words(text: str) -> int:
    return len(_WS.split(text))


def _unescape(text: str | None) -> str | None:
    """Readability's ``_unescapeHtmlEntities`` (a second decoding of five named + numeric refs)."""
    if not text:
        return text

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return _NAMED[m.group(1).lower()]
        number = int(m.group(2), 16) if m.group(2) else int(m.group(3))
        if number == 0 or number > 0x10FFFF or 0xD800 <= number <= 0xDFFF:
            number = 0xFFFD
        return chr(number)

    return _ENTITY.sub(sub, text)


def text_similarity(a: str, b: str) -> float:
    """Readability's ``_textSimilarity``: 1 - (length of b's tokens missing from a) / len(b)."""
    tokens_a = [t for t in _TOKENIZE.split(a.lower()) if t]
    tokens_b = [t for t in _TOKENIZE.split(b.lower()) if t]
    if not tokens_a or not tokens_b:
        return 0.0
    set_a = set(tokens_a)
    unique_b = [t for t in tokens_b if t not in set_a]
    return 1 - len(" ".join(unique_b)) / len(" ".join(tokens_b))


def document_title(root: HtmlElement) -> str:
    """DOM ``document.title``: the first ``<title>``'s text, whitespace collapsed and trimmed."""
    for title in root.iter("title"):
        return " ".join(text_of(title).split())
    return ""


def article_title(root: HtmlElement) -> str:
    """Readability's ``_getArticleTitle`` on ``root`` (the ``<html>`` element)."""
    cur = orig = document_title(root)
    hierarchical = False
    if _SEP.search(cur):
        hierarchical = bool(_HIER_SEP.search(cur))
        last = None
        for last in _SEP.finditer(orig):  # noqa: B007 - we want the last separator
            pass
        cur = orig[: last.start()] if last else orig
        if _words(cur) < 3:
            cur = _LEAD.sub("", orig, count=1)
    elif ": " in cur:
        trimmed = cur.strip()
        if not any(text_of(h).strip() == trimmed for h in root.iter("h1", "h2")):
            cur = orig[orig.rfind(":") + 1 :]
            if _words(cur) < 3:
                cur = orig[orig.find(":") + 1 :]
            elif _words(orig[: orig.find(":")]) > 5:
                cur = orig
    elif len(cur) > 150 or len(cur) < 15:
        h1s = list(root.iter("h1"))
        if len(h1s) == 1:
            cur = inner_text(h1s[0])
    cur = normalize_spaces(cur.strip())
    count = _words(cur)
    if count <= 4 and (not hierarchical or count != _words(_SEP_RUN.sub("", orig)) - 1):
        cur = orig
    return cur


def _json_ld(root: HtmlElement) -> dict[str, str]:
    for script in root.iter("script"):
        if script.get("type") != "application/ld+json":
            continue
        try:
            parsed = json.loads(_CDATA.sub("", text_of(script)))
        except ValueError:
            continue
        if isinstance(parsed, list):
            parsed = next(
                (it for it in parsed if isinstance(it, dict) and _is_article_type(it.get("@type"))), None
            )
            if parsed is None:
                continue
        if not isinstance(parsed, dict):
            continue
        context = parsed.get("@context")
        if isinstance(context, dict):
            context = context.get("@vocab")
        if not isinstance(context, str) or not _SCHEMA_ORG.match(context):
            continue
        if not parsed.get("@type") and isinstance(parsed.get("@graph"), list):
            parsed = next(
                (it for it in parsed["@graph"] if isinstance(it, dict) and _is_article_type(it.get("@type"))),
                None,
            )
        if not parsed or not _is_article_type(parsed.get("@type")):
            continue
        return _from_json_ld(parsed, root)
    return {}


def _is_article_type(value: object) -> bool:
    return isinstance(value, str) and bool(_JSONLD_TYPES.search(value))


def _from_json_ld(parsed: dict[str, Any], root: HtmlElement) -> dict[str, str]:
    out: dict[str, str] = {}
    name, headline = parsed.get("name"), parsed.get("headline")
    if isinstance(name, str) and isinstance(headline, str) and name != headline:
        title = article_title(root)
        name_matches = text_similarity(name, title) > 0.75
        headline_matches = text_similarity(headline, title) > 0.75
        out["title"] = headline if headline_matches and not name_matches else name
    elif isinstance(name, str):
        out["title"] = name.strip()
    elif isinstance(headline, str):
        out["title"] = headline.strip()
    author = parsed.get("author")
    if isinstance(author, dict) and isinstance(author.get("name"), str):
        out["byline"] = author["name"].strip()
    elif isinstance(author, list) and author and isinstance(author[0], dict):
        names = [a["name"].strip() for a in author if isinstance(a, dict) and isinstance(a.get("name"), str)]
        out["byline"] = ", ".join(names)
    if isinstance(parsed.get("description"), str):
        out["excerpt"] = parsed["description"].strip()
    publisher = parsed.get("publisher")
    if isinstance(publisher, dict) and isinstance(publisher.get("name"), str):
        out["site_name"] = publisher["name"].strip()
    if isinstance(parsed.get("datePublished"), str):
        out["published_time"] = parsed["datePublished"].strip()
    return out


def _is_url(text: str) -> bool:
    parts = urlsplit(text)
    return bool(parts.scheme and (parts.netloc or parts.path))


def read_metadata(root: HtmlElement) -> Metadata:
    """Metadata of the document ``root`` (call before scripts are removed: JSON-LD lives there)."""
    ld = _json_ld(root)
    values: dict[str, str] = {}
    for meta in root.iter("meta"):
        content = meta.get("content")
        if not content:
            continue
        prop, name = meta.get("property"), meta.get("name")
        match = _PROPERTY.search(prop) if prop else None
        if match:
            values[_WS.sub("", match.group(0).lower())] = content.strip()
        elif name and _NAME.match(name):
            values[_WS.sub("", name.lower()).replace(".", ":")] = content.strip()

    def first(*keys: str) -> str | None:
        for key in keys:
            if values.get(key):
                return values[key]
        return None

    title = ld.get("title") or first(
        "dc:title",
        "dcterm:title",
        "og:title",
        "weibo:article:title",
        "weibo:webpage:title",
        "title",
        "twitter:title",
        "parsely-title",
    )
    if not title:
        title = article_title(root)
    author = values.get("article:author")
    byline = ld.get("byline") or first("dc:creator", "dcterm:creator", "author", "parsely-author")
    if not byline and author and not _is_url(author):
        byline = author
    excerpt = ld.get("excerpt") or first(
        "dc:description",
        "dcterm:description",
        "og:description",
        "weibo:article:description",
        "weibo:webpage:description",
        "description",
        "twitter:description",
    )
    return Metadata(
        title=_unescape(title),
        byline=_unescape(byline),
        excerpt=_unescape(excerpt),
        site_name=_unescape(ld.get("site_name") or values.get("og:site_name")),
        published_time=_unescape(
            ld.get("published_time") or values.get("article:published_time") or values.get("parsely-pub-date")
        ),
    )
