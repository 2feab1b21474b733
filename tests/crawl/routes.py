"""Small hand-made sites for crawl tests: pages as routes of a real loopback ``SiteServer``."""

from __future__ import annotations

from collections.abc import Iterable

from tests.web.siteserver import Reply, SiteServer

WORDS = "Words of the page body, long enough to be its main content for the extractor. " * 6


def html(title: str, links: Iterable[str] = (), *, extra_head: str = "") -> bytes:
    """A page with a heading, a paragraph and ``links`` (hrefs as given)."""
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (
        f"<!doctype html><html><head><title>{title}</title>{extra_head}</head><body>"
        f"<main><article><h1>{title}</h1><p>{title}: {WORDS}</p><ul>{anchors}</ul></article></main>"
        "</body></html>"
    ).encode()


def page(title: str, links: Iterable[str] = (), *, etag: str | None = None, extra_head: str = "") -> Reply:
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if etag:
        headers["ETag"] = etag
    return Reply(200, headers, html(title, links, extra_head=extra_head))


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, {"Location": location})


PLAIN = "text/plain; charset=utf-8"


def text(body: str | bytes, content_type: str | None = PLAIN, status: int = 200) -> Reply:
    data = body.encode() if isinstance(body, str) else body
    return Reply(status, {"Content-Type": content_type} if content_type else {}, data)


def serve(routes: dict[str, Reply]) -> SiteServer:
    """A server answering ``routes`` (everything else 404)."""
    server = SiteServer()
    server.routes.update(routes)
    return server
