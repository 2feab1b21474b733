"""``docmunch doctor``: check the install and say how to fix what is wrong. Changes nothing.

Checks, in order: the docmunch command clients should start; whether extraction runs
compiled (:mod:`docmunch.compiled`); SQLite's FTS5 module; the data
folder (``$DOCMUNCH_HOME`` or the platform default); the index in it, opened read-only
(schema version, ``PRAGMA quick_check``, every document's cached bytes present); then each
client's config file: parseable, with a docmunch entry whose command exists, is executable,
is this docmunch, runs ``serve``, and points at the same data folder.

Each check has a status: ``ok``; ``info`` (nothing to fix, e.g. a client not set up);
``warn`` (works, but probably not as meant); ``error`` (broken; ``docmunch doctor`` exits 1).
Every non-ok check carries a ``fix``: the command or step that repairs it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from docmunch import __version__, compiled
from docmunch.errors import SetupError
from docmunch.index import SCHEMA_VERSION, default_home
from docmunch.index.schema import MIGRATABLE_SCHEMAS
from docmunch.setup import jsonc
from docmunch.setup.clients import CLIENTS, SERVER_NAME, Client, server_command
from docmunch.setup.install import read_config
from docmunch.terminal import counted

__all__ = ["Check", "run_checks"]

_UPGRADABLE = MIGRATABLE_SCHEMAS
"""Index schema versions this docmunch migrates in place on first use."""


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's report."""

    check: str
    """What was checked (``index``, ``client cursor``, …)."""
    status: str
    """``ok``, ``info``, ``warn`` or ``error``."""
    message: str
    fix: str | None = None
    """How to repair it (``None`` when ok)."""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "message": self.message, "fix": self.fix}


def run_checks(env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check for the environment ``env`` (default: this process's)."""
    env = os.environ if env is None else env
    command = server_command()
    home = Path(env["DOCMUNCH_HOME"]).expanduser() if env.get("DOCMUNCH_HOME") else default_home()
    checks = [_command(command), _compiled(), _fts5(), _folder(home), *_index(home)]
    checks.extend(_client(client, env, command, home) for client in CLIENTS)
    return checks


def _command(command: tuple[str, list[str]]) -> Check:
    exe, args = command
    if args[:1] == ["-m"]:
        problem = f"no docmunch script beside {sys.executable}; clients will run {exe} -m docmunch"
        fix = "reinstall docmunch (`pip install docmunch` or `make venv`) so the `docmunch` script exists"
        return Check("command", "warn", problem, fix)
    return Check("command", "ok", f"docmunch {__version__} at {exe}")


def _compiled() -> Check:
    state, reason = compiled.status()
    if state == "compiled":
        if os.environ.get(compiled.PURE_ENV) == "1":
            pure = compiled.PURE_ENV
            return Check("compiled", "info", f"{reason}, not used: {pure}=1", f"unset {pure}")
        return Check("compiled", "ok", reason)
    if state == "stale":
        return Check("compiled", "warn", f"running the Python sources: {reason}", "`make compile`")
    return Check(
        "compiled", "info", f"{reason}: same output, slower (docs/speed.md)",
        "optional: `make compile` in a source checkout with a C compiler",
    )  # fmt: skip


def _fts5() -> Check:
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as conn:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.DatabaseError:
        return Check(
            "sqlite", "error", f"SQLite {sqlite3.sqlite_version} has no FTS5 full-text module",
            "use a Python built with FTS5 (python.org and distribution builds have it)",
        )  # fmt: skip
    return Check("sqlite", "ok", f"SQLite {sqlite3.sqlite_version} with FTS5")


def _folder(home: Path) -> Check:
    if not home.exists():
        return Check(
            "data folder", "info", f"{home} does not exist yet", "it is created by the first `docmunch index`"
        )
    if not home.is_dir():
        return Check("data folder", "error", f"{home} is not a folder", "set DOCMUNCH_HOME to a folder")
    if not os.access(home, os.W_OK | os.X_OK):
        return Check("data folder", "error", f"{home} is not writable", f"fix the permissions of {home}")
    return Check("data folder", "ok", str(home))


def _index(home: Path) -> list[Check]:
    db = home / "index.sqlite3"
    if not db.is_file():
        return [Check("index", "info", "no index yet", "index some docs: `docmunch index PATH`")]
    rebuild = f"move or delete {home} (or set DOCMUNCH_HOME to a new folder) and index your docs again"
    try:
        conn = sqlite3.connect("file:" + urllib.parse.quote(str(db.resolve())) + "?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        return [Check("index", "error", f"cannot open {db}: {exc}", rebuild)]
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version in _UPGRADABLE:
            return [
                Check(
                    "index", "warn", f"schema {version}; upgraded in place on next use", "run `docmunch list`"
                )
            ]
        if version != SCHEMA_VERSION:
            return [
                Check("index", "error", f"schema {version}, this docmunch needs {SCHEMA_VERSION}", rebuild)
            ]
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            return [Check("index", "error", f"damaged: {'; '.join(problems)}", rebuild)]
        repos, sections = conn.execute(
            "SELECT (SELECT count(*) FROM repos), (SELECT count(*) FROM sections)"
        ).fetchone()
        docs = conn.execute(
            "SELECT r.name, d.raw_hash FROM docs d JOIN repos r ON r.id = d.repo_id"
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        return [Check("index", "error", f"cannot read {db}: {exc}", rebuild)]
    finally:
        conn.close()
    size = f"{counted(repos, 'repo', 'repos')}, {counted(sections, 'section', 'sections')}"
    checks = [Check("index", "ok", f"schema {version}: {size}")]
    missing: dict[str, int] = {}
    for repo, digest in docs:
        if not (home / "raw" / digest[:2] / digest).is_file():
            missing[repo] = missing.get(repo, 0) + 1
    if missing:
        names = ", ".join(f"{repo} ({n})" for repo, n in sorted(missing.items()))
        fix = "; ".join(f"`docmunch refresh {repo}` or index it again" for repo in sorted(missing))
        checks.append(Check("raw cache", "error", f"documents without their cached bytes: {names}", fix))
    else:
        checks.append(Check("raw cache", "ok", f"all {len(docs)} documents' bytes present"))
    return checks


def _client(client: Client, env: Mapping[str, str], command: tuple[str, list[str]], home: Path) -> Check:
    name = f"client {client.name}"
    path = client.user_config(env)
    setup = f"docmunch setup {client.name}"
    try:
        text, root = read_config(path)
    except SetupError as exc:
        return Check(name, "error", str(exc), f"fix the file by hand (or move it away), then `{setup}`")
    if text is None:
        return Check(
            name, "info", f"not set up ({path} does not exist)", f"`{setup}` if you use {client.title}"
        )
    entry = jsonc.get_path(root, [client.table, SERVER_NAME])
    if entry is None:
        return Check(
            name, "info", f"no {SERVER_NAME} entry in {path}", f"`{setup}` if you use {client.title}"
        )
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return Check(name, "error", f"the {SERVER_NAME} entry in {path} has no command", f"`{setup}`")
    exe = Path(entry["command"])
    raw_args = entry.get("args")
    args: list[Any] = raw_args if isinstance(raw_args, list) else []
    if not exe.is_absolute():
        problem = f"command {exe} is not an absolute path (clients do not start in your shell)"
        return Check(name, "error", problem, f"`{setup}`")
    if not exe.is_file() or not os.access(exe, os.X_OK):
        return Check(name, "error", f"command {exe} does not exist or is not executable", f"`{setup}`")
    if "serve" not in args:
        return Check(
            name, "error", f"the {SERVER_NAME} entry does not run `serve` (args {args})", f"`{setup}`"
        )
    client_home = (
        (entry.get("env") or {}).get("DOCMUNCH_HOME") if isinstance(entry.get("env"), dict) else None
    )
    # Without DOCMUNCH_HOME in its entry a client starts docmunch with the platform data folder.
    used = Path(client_home).expanduser() if client_home else Path(platformdirs.user_data_dir("docmunch"))
    if used.absolute() != home.absolute():
        problem = f"uses the index at {used}, this shell uses {home}"
        return Check(name, "warn", problem, f"`{setup}` from a shell with the DOCMUNCH_HOME you want")
    if exe.absolute() != Path(command[0]).absolute():
        return Check(name, "warn", f"starts another docmunch ({exe}, this one is {command[0]})", f"`{setup}`")
    return Check(name, "ok", f"{path} runs {exe} serve")
