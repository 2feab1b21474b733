"""A local server answering the GitHub REST endpoints docmunch uses, with tarballs built here."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web import siteserver  # shared loopback server helper

SHA = "0123456789abcdef0123456789abcdef01234567"
SKIP = {"NOTICE.md"}
"""The corpus attribution file, skipped here as the index tests skip it (LICENSE files have no
indexable suffix and are dropped by the suffix filter anyway)."""


def tarball_of(folder: Path, top: str) -> bytes:
    """A GitHub-style ``.tar.gz`` of ``folder`` under one top directory ``top``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=top, filter=lambda info: None if Path(info.name).name in SKIP else info)
    return buffer.getvalue()


class GitHubServer:
    """``/repos/{o}/{n}/commits/{ref}`` → SHA text; ``/repos/{o}/{n}/tarball/{sha}`` → 302 → bytes."""

    sha = SHA
    tarball_of = staticmethod(tarball_of)

    def __init__(self) -> None:
        self.server = siteserver.SiteServer()
        self.Reply = siteserver.Reply

    @property
    def api(self) -> str:
        return self.server.base

    def publish(self, owner: str, name: str, tarball: bytes, *, sha: str = SHA, ref: str = "HEAD") -> None:
        reply = self.Reply
        routes = self.server.routes
        routes[f"/repos/{owner}/{name}/commits/{ref}"] = reply(
            200, {"Content-Type": "text/plain"}, sha.encode()
        )
        routes[f"/repos/{owner}/{name}/tarball/{sha}"] = reply(
            302, {"Location": f"/codeload/{owner}/{name}/{sha}"}
        )
        routes[f"/codeload/{owner}/{name}/{sha}"] = reply(
            200, {"Content-Type": "application/x-gzip"}, tarball
        )

    def count(self, prefix: str) -> int:
        return sum(1 for path in self.server.paths() if path.startswith(prefix))


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[GitHubServer]:
    gh = GitHubServer()
    monkeypatch.setenv("DOCMUNCH_GITHUB_API", gh.api)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    yield gh
    gh.server.close()
