"""``docmunch setup CLIENT``: add (or update) docmunch's entry in one client's MCP config.

:func:`plan` reads the config file, computes the new text with :func:`docmunch.setup.jsonc.set_path`
(only docmunch's entry changes; comments, order and every other server stay as they are) and
checks the result: it must parse, hold the new entry, and equal the old file everywhere else.
:func:`apply` then copies the old file to a timestamped backup beside it and replaces the
file atomically (temporary file in the same folder, fsync, rename), keeping its permissions;
a symlinked config is written through to its target. A file that does not parse, is not
UTF-8 or has a non-object top level is refused and left untouched.

The entry: ``command`` = the absolute path of the installed ``docmunch``, ``args`` =
``["serve"]``, plus ``"type": "stdio"`` where the client wants it, and ``env.DOCMUNCH_HOME``
when ``DOCMUNCH_HOME`` is set while setup runs (so the client uses the same index as this
shell). Keys the user added to an existing entry (more ``env``, ``disabled``, …) are kept.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmunch.errors import SetupError
from docmunch.setup import jsonc
from docmunch.setup.clients import SERVER_NAME, Client, server_command

__all__ = ["MAX_CONFIG_BYTES", "SetupPlan", "apply", "plan", "read_config"]

MAX_CONFIG_BYTES = 64 * 2**20
"""Largest config file read (bytes); ``~/.claude.json`` grows with history but stays far below."""


@dataclass(frozen=True, slots=True)
class SetupPlan:
    """What ``setup`` will do (``--dry-run`` prints it) or did."""

    client: Client
    path: Path
    """The config file (after following symlinks)."""
    action: str
    """``create`` (no file yet), ``add`` (no docmunch entry), ``update`` or ``unchanged``."""
    before: str | None
    """The file's text now (``None`` when it does not exist)."""
    after: str
    """The file's text after setup."""
    entry: dict[str, Any]
    """docmunch's entry as it will be."""

    def diff(self) -> str:
        """A unified diff of the change (empty when unchanged)."""
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        where = str(self.path)
        return "".join(
            difflib.unified_diff(old, new, where if self.before is not None else "/dev/null", where)
        )

    def to_json(self, *, backup: Path | None = None, dry_run: bool = False) -> dict[str, Any]:
        return {
            "client": self.client.name,
            "path": str(self.path),
            "action": self.action,
            "dry_run": dry_run,
            "backup": str(backup) if backup else None,
            "entry": self.entry,
        }


def read_config(path: Path) -> tuple[str | None, jsonc.Node | None]:
    """The text and parse tree of a config file; ``(None, None)`` when it does not exist.

    Raises:
        SetupError: unreadable, too large, not UTF-8, or not parseable (the message says where).
    """
    try:
        if not path.exists():
            return None, None
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise SetupError(
                f"{path} is larger than {MAX_CONFIG_BYTES} bytes; not reading it", path=str(path)
            )
        data = path.read_bytes()
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(f"{path} is not UTF-8 (byte {exc.start}); not changing it", path=str(path)) from None
    return text, jsonc.parse(text, where=str(path))


def plan(
    client: Client,
    *,
    env: Mapping[str, str],
    path: Path | None = None,
    command: tuple[str, list[str]] | None = None,
) -> SetupPlan:
    """Compute the change for ``client`` without writing anything.

    Args:
        client: the client.
        env: the environment (``HOME``, ``APPDATA``, ``XDG_CONFIG_HOME``, ``DOCMUNCH_HOME``).
        path: the config file (default: the client's per-user file).
        command: ``(command, args)`` to register (default: :func:`server_command`).

    Raises:
        SetupError: the file cannot be read or parsed, or its top level (or its server table) is
        not an object.
    """
    path = (path or client.user_config(env)).expanduser()
    path = path.resolve() if path.is_symlink() else path
    before, root = read_config(path)
    exe, args = command or server_command()
    extra_env = (
        {"DOCMUNCH_HOME": str(Path(env["DOCMUNCH_HOME"]).expanduser().absolute())}
        if env.get("DOCMUNCH_HOME")
        else {}
    )
    wanted = client.entry(exe, args, extra_env)
    keys = [client.table, SERVER_NAME]
    current = jsonc.get_path(root, keys)
    entry = _merged(current, wanted)
    if before is not None and current == entry:
        return SetupPlan(client, path, "unchanged", before, before, entry)
    after = jsonc.set_path(before or "", keys, entry, where=str(path))
    _check(path, root, after, keys, entry)
    action = "create" if before is None else "update" if current is not None else "add"
    return SetupPlan(client, path, action, before, after, entry)


def _merged(current: Any, wanted: dict[str, Any]) -> dict[str, Any]:
    """``wanted`` over an existing entry: the user's other keys and env variables stay."""
    if not isinstance(current, dict):
        return wanted
    out = {**copy.deepcopy(current), **wanted}
    if isinstance(current.get("env"), dict):
        out["env"] = {**current["env"], **wanted.get("env", {})}
    return out


def _check(path: Path, root: jsonc.Node | None, after: str, keys: list[str], entry: dict[str, Any]) -> None:
    """The edited text parses, holds ``entry`` at ``keys`` and is the old value elsewhere."""
    new = jsonc.loads(after, where=str(path))
    old = copy.deepcopy(root.value) if root is not None else {}
    table = old.setdefault(keys[0], {}) if isinstance(old, dict) else None
    if not isinstance(table, dict):
        raise SetupError(f"{path}: {keys[0]!r} is not a JSON object; not changing it", path=str(path))
    table[keys[1]] = entry
    if new != old:
        raise SetupError(
            f"{path}: the edit would change more than docmunch's entry; not writing it", path=str(path)
        )


def apply(setup: SetupPlan) -> Path | None:
    """Write a plan: backup of the old file (returned; ``None`` for a new file or no change), then
    an atomic replace. Raises SetupError when the file or its folder cannot be written."""
    if setup.action == "unchanged":
        return None
    path = setup.path
    backup = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(path.stat().st_mode) if setup.before is not None else 0o600
        if setup.before is not None:
            backup = _backup_name(path)
            shutil.copy2(path, backup)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(setup.after.encode("utf-8"))
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise SetupError(f"cannot write {path}: {exc.strerror or exc}", path=str(path)) from None
    return backup


def _backup_name(path: Path) -> Path:
    """``NAME.docmunch-YYYYMMDDTHHMMSSZ.bak`` beside ``path`` (``-2``, ``-3``… when taken)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.docmunch-{stamp}.bak")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.docmunch-{stamp}-{n}.bak")
        n += 1
    return candidate
