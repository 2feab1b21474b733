"""Versioned doc sets: ``NAME@VERSION`` repo names, their rules, and what a name means.

A repo's *full name* is ``NAME`` (unversioned) or ``NAME@VERSION`` (``httpx@0.27.0``). The full
name is the ``{repo}`` part of every section id (``httpx@0.27.0::docs/api.md::client#2``), so
two versions never share an id. All repos with one ``NAME`` form a *group*.

:func:`resolve` is the one place a repo argument is turned into a stored repo; every CLI
command and MCP tool goes through it (via :class:`docmunch.index.Index`):

1. ``NAME@VERSION`` (or a bare ``NAME``) that is stored under exactly that full name → that repo.
   Every name indexed before versions existed keeps meaning what it meant.
2. ``NAME@*`` → every version of NAME; only :func:`scope` (search, delete) accepts it.
3. ``NAME@VERSION`` not stored → :class:`~docmunch.errors.UnknownVersion`, listing NAME's
   versions (:class:`~docmunch.errors.RepoNotFound` when NAME has none).
4. A bare ``NAME`` that is not itself stored → the group's *default*: the version pinned with
   ``docmunch default NAME@VERSION``, else the version indexed first most recently (highest
   row id: refreshing an older version never moves the default).
5. With a section id (section reads), a bare ``NAME`` also accepts ids of any of NAME's
   versions: a handle found by searching ``NAME`` stays readable after a newer version lands.

An unversioned ``NAME`` next to versions of it stays what the bare name means (rule 1), so a
version can only be pinned as default in a group without an unversioned repo.

Naming rules (checked when a repo is created; older names are never re-checked):
``NAME`` is 1–:data:`MAX_NAME_CHARS` characters without surrounding spaces, control
characters, ``::``, ``@`` or ``*``; ``VERSION`` matches :data:`VERSION_PATTERN` (a letter or
digit, then letters, digits, ``. _ + -``), at most :data:`MAX_VERSION_CHARS` characters.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from docmunch.errors import InvalidRepoName, RepoExists, RepoNotFound, SectionNotFound, UnknownVersion

__all__ = [
    "ALL_VERSIONS",
    "MAX_NAME_CHARS",
    "MAX_VERSION_CHARS",
    "SEPARATOR",
    "VERSION_PATTERN",
    "RepoRow",
    "check_new_name",
    "default_of",
    "group",
    "pin_default",
    "rename",
    "repo_named_by",
    "resolve",
    "scope",
    "split_name",
    "version_from_ref",
    "with_version",
]

SEPARATOR = "@"
"""Between a name and its version: ``httpx@0.27.0``."""
ALL_VERSIONS = "*"
"""``NAME@*``: every version of NAME (search and delete)."""
MAX_NAME_CHARS = 200
"""Longest repo name (characters, without the version)."""
MAX_VERSION_CHARS = 64
"""Longest version (characters): room for a 40-hex commit SHA or ``v1.30.0-rc.1+build.5``."""
VERSION_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
"""What a version looks like: semver, tags, branch names with ``/`` replaced, dates, SHAs."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class RepoRow:
    """One stored repo as the resolver sees it."""

    id: int
    """Row id in ``repos`` (also the creation order)."""
    name: str
    """Full name (``NAME`` or ``NAME@VERSION``), the prefix of its section ids."""
    base: str
    """``NAME`` without the version."""
    version: str | None
    """``VERSION``, or ``None`` for an unversioned repo."""
    pinned: bool
    """Marked as its group's default with ``docmunch default``."""


def split_name(full: str) -> tuple[str, str | None]:
    """``(NAME, VERSION)`` of a full name, leniently: a name whose part after the first ``@`` is
    not a valid version is unversioned (names stored before versions existed)."""
    base, sep, version = full.partition(SEPARATOR)
    if sep and base and _valid_version(version):
        return base, version
    return full, None


def _valid_version(version: str) -> bool:
    return len(version) <= MAX_VERSION_CHARS and VERSION_PATTERN.fullmatch(version) is not None


def check_new_name(full: str) -> tuple[str, str | None]:
    """Validate the full name of a repo about to be created; returns ``(NAME, VERSION)``.

    Raises:
        InvalidRepoName: the name or version breaks a rule (the message says which).
    """
    base, sep, version = full.partition(SEPARATOR)
    bad = _name_problem(base)
    if bad:
        raise InvalidRepoName(f"invalid repo name {full!r}: {bad}", repo=full)
    if not sep:
        return base, None
    if version == ALL_VERSIONS:
        raise InvalidRepoName(
            f"invalid repo name {full!r}: '@*' means every version and cannot name a new repo", repo=full
        )
    if not _valid_version(version):
        raise InvalidRepoName(f"invalid version in {full!r}: {_version_rule(version)}", repo=full)
    return base, version


def _name_problem(base: str) -> str | None:
    if not base:
        return "the name before '@' must not be empty"
    if base != base.strip():
        return "it must not start or end with spaces"
    if len(base) > MAX_NAME_CHARS:
        return f"at most {MAX_NAME_CHARS} characters"
    if "::" in base:
        return "it must not contain '::' (section ids use it as separator)"
    if "*" in base:
        return "it must not contain '*'"
    if _CONTROL.search(base):
        return "it must not contain control characters"
    return None


def _version_rule(version: str) -> str:
    if len(version) > MAX_VERSION_CHARS:
        return f"a version has at most {MAX_VERSION_CHARS} characters"
    return (
        f"{version!r} is not a version: it must start with a letter or digit and contain only "
        "letters, digits, '.', '_', '+' and '-'"
    )


def with_version(name: str, version: str | None) -> str:
    """``name`` with ``version`` attached (``--repo httpx --version 0.27.0`` → ``httpx@0.27.0``).

    ``name`` may already carry the same version. Raises InvalidRepoName on a bad version or
    when ``name`` carries a different one.
    """
    if version is None:
        return name
    if not _valid_version(version):
        raise InvalidRepoName(f"invalid --version {version!r}: {_version_rule(version)}", repo=name)
    base, sep, own = name.partition(SEPARATOR)
    if sep and own != version:
        raise InvalidRepoName(
            f"repo {name!r} already names version {own!r}, which differs from --version {version!r}",
            repo=name,
        )
    return f"{base}{SEPARATOR}{version}"


def version_from_ref(ref: str) -> str:
    """The version a git ref becomes (``v0.27.0`` → ``v0.27.0``, ``release/1.2`` → ``release-1.2``).

    Raises InvalidRepoName (with a hint to pass ``--version``) when the result is no valid version.
    """
    version = ref.replace("/", "-")
    if not _valid_version(version):
        raise InvalidRepoName(
            f"the ref {ref!r} cannot be used as a version ({_version_rule(version)}); "
            "pass --version VERSION or --repo NAME",
            repo=ref,
        )
    return version


# --- resolution ---------------------------------------------------------------------------
_COLUMNS = "id, name, base, version, pinned"


def _row(values: tuple[Any, ...]) -> RepoRow:
    rid, name, base, version, pinned = values
    return RepoRow(int(rid), str(name), str(base), None if version is None else str(version), bool(pinned))


def _exact(conn: sqlite3.Connection, name: str) -> RepoRow | None:
    found = conn.execute(f"SELECT {_COLUMNS} FROM repos WHERE name = ?", (name,)).fetchone()
    return _row(found) if found is not None else None


def group(conn: sqlite3.Connection, base: str) -> list[RepoRow]:
    """Every repo called ``base`` (any version), in creation order."""
    rows = conn.execute(f"SELECT {_COLUMNS} FROM repos WHERE base = ? ORDER BY id", (base,)).fetchall()
    return [_row(r) for r in rows]


def default_of(members: list[RepoRow]) -> RepoRow:
    """The default of a non-empty group: its unversioned repo, else the pinned version, else
    the one created last."""
    for row in members:
        if row.version is None:
            return row
    pinned = [row for row in members if row.pinned]
    return pinned[-1] if pinned else max(members, key=lambda row: row.id)


def _known(members: list[RepoRow]) -> list[str]:
    default = default_of(members)
    return [row.name + (" (default)" if row.id == default.id else "") for row in reversed(members)]


def not_found(conn: sqlite3.Connection, text: str) -> RepoNotFound:
    """A :class:`RepoNotFound` for ``text`` whose did-you-mean draws on every stored name."""
    names: dict[str, None] = {}
    for name, base in conn.execute("SELECT name, base FROM repos ORDER BY id"):
        names[str(base)] = None
        names[str(name)] = None
    return RepoNotFound(text, known=names)


def repo_named_by(section_id: str) -> str:
    """The ``{repo}`` part of ``section_id`` (before its first ``::``): the repo argument a
    section read without one means (``docmunch section ID``, ``get_section`` without ``repo``).

    Raises:
        SectionNotFound: the id names no repo (no ``::``, or nothing before it).
    """
    repo, sep, _ = section_id.partition("::")
    if not repo or not sep:
        raise SectionNotFound("", section_id)
    return repo


def resolve(conn: sqlite3.Connection, text: str, *, section_id: str | None = None) -> RepoRow:
    """The stored repo ``text`` means (rules 1–5 of the module docstring).

    Raises:
        RepoNotFound: no repo by that name. UnknownVersion: NAME is stored, that version is not.
        InvalidRepoName: ``NAME@*`` where one repo is needed.
    """
    base, sep, version = text.partition(SEPARATOR)
    if section_id is not None:
        prefix = section_id.split("::", 1)[0]
        if prefix != text and (not sep or version == ALL_VERSIONS):
            owner = _exact(conn, prefix)
            if owner is not None and owner.base == base:
                return owner
    found = _exact(conn, text)
    if found is not None:
        return found
    members = group(conn, base)
    if sep and version == ALL_VERSIONS:
        if not members:
            raise not_found(conn, text)
        raise InvalidRepoName(
            f"{text!r} means every version of {base!r}; this command reads one, name it "
            f"({', '.join(_known(members))})",
            repo=text,
        )
    if not members:
        raise not_found(conn, text)
    if sep:
        raise UnknownVersion(text, _known(members))
    return default_of(members)


def scope(conn: sqlite3.Connection, text: str | None) -> list[RepoRow] | None:
    """The repos a search (or delete) over ``text`` covers.

    ``None`` → the default version of every name, returned as ``None`` when that is every
    stored repo (no filter needed); ``NAME@*`` → every version of NAME; anything else → the
    one repo :func:`resolve` gives.

    Raises:
        RepoNotFound, UnknownVersion: as :func:`resolve`.
    """
    if text is None:
        rows = [_row(r) for r in conn.execute(f"SELECT {_COLUMNS} FROM repos ORDER BY id").fetchall()]
        groups: dict[str, list[RepoRow]] = {}
        for row in rows:
            groups.setdefault(row.base, []).append(row)
        if len(groups) == len(rows):
            return None
        return [default_of(members) for members in groups.values()]
    base, sep, version = text.partition(SEPARATOR)
    if sep and version == ALL_VERSIONS and _exact(conn, text) is None:
        members = group(conn, base)
        if not members:
            raise not_found(conn, text)
        return members
    return [resolve(conn, text)]


# --- writes (inside the caller's write transaction) ------------------------------------------
def pin_default(conn: sqlite3.Connection, repo: str | None, *, base: str | None = None) -> None:
    """Pin the version ``repo`` (a full name) as its group's default; ``repo=None`` unpins ``base``.

    Raises:
        RepoNotFound, UnknownVersion: no such repo. InvalidRepoName: ``repo`` is unversioned,
        or its name is also stored unversioned (the bare name always means that repo).
    """
    if repo is None:
        if not group(conn, base or ""):
            raise not_found(conn, base or "")
        conn.execute("UPDATE repos SET pinned = 0 WHERE base = ?", (base,))
        return
    row = _exact(conn, repo)
    if row is None:
        resolve(conn, repo)  # UnknownVersion with the known list, or RepoNotFound
        raise not_found(conn, repo)
    if row.version is None:
        raise InvalidRepoName(
            f"{repo!r} is not a version; pin one with `docmunch default {repo}@VERSION`", repo=repo
        )
    if _exact(conn, row.base) is not None:
        raise InvalidRepoName(
            f"{row.base!r} is also indexed without a version, and a bare {row.base!r} always means "
            f"that repo; give it a version first (`docmunch rename {row.base} {row.base}@VERSION`) "
            "or delete it",
            repo=repo,
        )
    conn.execute("UPDATE repos SET pinned = (name = ?) WHERE base = ?", (repo, row.base))


def rename(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Store the repo ``old`` (exact full name) under the full name ``new``.

    Section ids ``old::…`` become ``new::…`` (``parent_sid`` too); search rows are keyed by row
    id and stay as they are. The pin is dropped (a renamed repo is no longer what was pinned).

    Raises:
        RepoNotFound: ``old`` is not stored. RepoExists: ``new`` is taken. InvalidRepoName.
    """
    base, version = check_new_name(new)
    row = _exact(conn, old)
    if row is None:
        raise not_found(conn, old)
    if new == old:
        raise RepoExists(f"repo {old!r} already has that name; nothing to rename", repo=new)
    if _exact(conn, new) is not None:
        raise RepoExists(f"repo {new!r} already exists; delete it first", repo=new)
    cut = len(old) + 1
    conn.execute(
        "UPDATE sections SET sid = ? || substr(sid, ?), "
        "parent_sid = CASE WHEN parent_sid IS NULL THEN NULL ELSE ? || substr(parent_sid, ?) END "
        "WHERE doc_id IN (SELECT id FROM docs WHERE repo_id = ?)",
        (new, cut, new, cut, row.id),
    )
    conn.execute(
        "UPDATE repos SET name = ?, base = ?, version = ?, pinned = 0 WHERE id = ?",
        (new, base, version, row.id),
    )
