"""Per-repo ordering of tool calls: a later read of a repo waits for earlier writes of it.

The SDK runs every request of a session concurrently, so ``index_local`` followed at once by
``search_sections`` could be answered before the index existed. :class:`CallOrder` restores
the order a client can rely on without serialising everything — a FIFO reader/writer rule per
repo, in **arrival order**:

- each ``tools/call`` gets a :class:`Footprint` (:func:`footprint`): the repos it reads or
  writes (``None`` = every repo, e.g. ``list_repos`` or a search without ``repo``; a section
  read without ``repo`` reads the repos its ids name);
- a call starts once every *earlier-arrived, conflicting* call has finished. Two calls
  conflict when one of them writes and their repos may overlap. So writes of one repo run one
  after another, a read of R waits for earlier writes of R, and reads never wait for reads:
  reads of other repos, and reads of R that arrived before a write of R, run at once (that
  write waits for them to finish).

Arrival order is the transport's: stdio admits each request when its line is read
(:meth:`CallOrder.admit`), before the SDK dispatches it; a call that was not admitted (HTTP,
where separate POSTs have no order on the wire) is admitted when its handler starts.

Repo names compare without their ``@version`` (over-serialising two versions of one repo is
harmless). A writer without an explicit ``name`` touches a repo named after its source, which
the source decides (folder name, host, GitHub name): the footprint then lists every name the
source could produce — for a URL, every repo whose name starts with its host — so a guess
can only make a call wait longer, never let it overtake.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio

from docmunch.errors import DocmunchError
from docmunch.serve._handlers import github_spec

__all__ = ["CallOrder", "Footprint", "RepoKey", "footprint"]

logger = logging.getLogger("docmunch.serve")

_INDEXERS = frozenset({"index_local", "index_url", "index_repo"})
"""Writers named by ``name`` (default: derived from their source)."""
_WRITERS = _INDEXERS | {"delete_index"}
_UNORDERED = frozenset({"extract_url"})
"""Tools that touch no repo (``extract_url`` only fetches a page)."""
_SECTION_READERS = {
    "get_section": "section_id",
    "get_section_context": "section_id",
    "get_sections": "section_ids",
}
"""Readers whose section ids name their repos (``{repo}::{doc_path}::{slug_path}#{level}``), so a
call without ``repo`` reads those repos only, not every repo."""


@dataclass(frozen=True, slots=True)
class RepoKey:
    """A repo name, or (``prefix=True``) every repo whose name starts with it at a word boundary."""

    name: str
    """Repo name without ``@version``."""
    prefix: bool = False
    """Also match ``name`` followed by a non-alphanumeric character (``127.0.0.1:8080``)."""

    def overlaps(self, other: RepoKey) -> bool:
        """True when some repo name could match both keys."""
        if self.name == other.name:
            return True
        shorter, longer = (self, other) if len(self.name) < len(other.name) else (other, self)
        if not shorter.prefix or not longer.name.startswith(shorter.name):
            return False
        return not longer.name[len(shorter.name)].isalnum()


@dataclass(frozen=True, slots=True)
class Footprint:
    """What one tool call touches."""

    write: bool
    """The call changes the repos it names."""
    repos: tuple[RepoKey, ...] | None
    """The repos touched; ``None`` means every repo."""

    def conflicts(self, other: Footprint) -> bool:
        """True when the two calls must not overlap in time (one writes, repos may overlap)."""
        if not (self.write or other.write):
            return False
        if self.repos is None or other.repos is None:
            return True
        return any(a.overlaps(b) for a in self.repos for b in other.repos)


def _key(repo: str) -> RepoKey:
    return RepoKey(repo.partition("@")[0])


def _local_names(path: str) -> tuple[RepoKey, ...] | None:
    """Names ``index_local(path)`` may give its repo (folder name, or a file's folder name)."""
    try:
        resolved = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    names = {resolved.name or "root", resolved.parent.name or "root"}
    return tuple(RepoKey(n) for n in sorted(names))


def _url_names(url: str) -> tuple[RepoKey, ...] | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return (RepoKey(host, prefix=True),) if host else None


def _github_names(url: str) -> tuple[RepoKey, ...] | None:
    try:
        owner, _, name = github_spec(url, None).removeprefix("github:").partition("/")
    except DocmunchError:
        return None
    return (RepoKey(name, prefix=True), RepoKey(owner, prefix=True))


def _id_repos(ids: Any) -> tuple[RepoKey, ...] | None:
    """The repos that section ids name (one id or a list), or ``None`` (every repo) when some id
    names none (the call fails on it anyway, after waiting like a read of every repo)."""
    listed = [ids] if isinstance(ids, str) else ids
    if not isinstance(listed, list) or not listed:
        return None
    names: set[str] = set()
    for sid in listed:
        repo, sep, _ = sid.partition("::") if isinstance(sid, str) else ("", "", "")
        if not (sep and repo):
            return None
        names.add(repo)
    return tuple(_key(name) for name in sorted(names))


def footprint(tool: str, args: Mapping[str, Any]) -> Footprint | None:
    """The :class:`Footprint` of calling ``tool`` with ``args``; ``None`` for unordered tools.

    Arguments are taken as sent (not yet validated): anything unexpected widens the footprint
    to every repo rather than failing.
    """
    if tool in _UNORDERED:
        return None
    writes = tool in _WRITERS
    name = args.get("name") if tool in _INDEXERS else args.get("repo")
    if isinstance(name, str) and name:
        return Footprint(writes, (_key(name),))
    if tool in _SECTION_READERS:
        return Footprint(False, _id_repos(args.get(_SECTION_READERS[tool])))
    source = args.get("path") if tool == "index_local" else args.get("url")
    if tool not in _INDEXERS or not isinstance(source, str):
        return Footprint(writes, None)  # list_repos, a search of every repo, or a bad argument
    guess = {"index_local": _local_names, "index_url": _url_names, "index_repo": _github_names}[tool]
    return Footprint(True, guess(source))


@dataclass(eq=False)
class _Ticket:
    footprint: Footprint
    blockers: list[_Ticket]
    done: anyio.Event = field(default_factory=anyio.Event)
    started: bool = False


class CallOrder:
    """Admits tool calls in arrival order and lets each start when its conflicts are done.

    Must be used from one event loop (the server's).
    """

    def __init__(self) -> None:
        self._live: list[_Ticket] = []
        self._by_id: dict[Any, deque[_Ticket]] = {}

    def _new_ticket(self, fp: Footprint) -> _Ticket:
        self._live = [t for t in self._live if not t.done.is_set()]
        blockers = [t for t in self._live if t.footprint.conflicts(fp)]
        ticket = _Ticket(fp, blockers)
        self._live.append(ticket)
        return ticket

    def admit(self, request_id: Any, method: str, params: Mapping[str, Any] | None) -> None:
        """Record a request as it arrives (stdio calls this for each line, in order)."""
        if method != "tools/call" or not isinstance(params, Mapping):
            return
        tool, args = params.get("name"), params.get("arguments")
        if not isinstance(tool, str):
            return
        fp = footprint(tool, args if isinstance(args, Mapping) else {})
        if fp is not None:
            self._by_id.setdefault(request_id, deque()).append(self._new_ticket(fp))

    def finish(self, request_id: Any) -> None:
        """The reply to ``request_id`` went out: its call (if admitted) no longer blocks others.

        Covers requests the SDK answered without running a handler (bad params, cancelled).
        """
        queue = self._by_id.get(request_id)
        if not queue:
            return
        queue.popleft().done.set()
        if not queue:
            del self._by_id[request_id]

    @asynccontextmanager
    async def turn(self, request_id: Any, tool: str, args: Mapping[str, Any]) -> AsyncIterator[None]:
        """Wait until the call may run, run the block, then release the call's waiters."""
        queue = self._by_id.get(request_id)
        ticket = next((t for t in queue or () if not t.started), None)
        if ticket is None:
            fp = footprint(tool, args)
            if fp is None:
                yield
                return
            ticket = self._new_ticket(fp)
        ticket.started = True
        try:
            waiting = [b for b in ticket.blockers if not b.done.is_set()]
            if waiting:
                logger.debug("%s (id %r) waits for %d earlier call(s)", tool, request_id, len(waiting))
            for blocker in waiting:
                await blocker.done.wait()
            yield
        finally:
            ticket.done.set()
