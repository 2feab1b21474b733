"""The MCP clients ``docmunch setup`` knows: where each keeps its config and what an entry is.

Sources (checked 2026-12; each client's own documentation):

- Claude Code — user scope, every project: the top-level ``mcpServers`` of ``~/.claude.json``
  (what ``claude mcp add -s user`` writes), entries ``{"type": "stdio", "command", "args",
  "env"}``; project scope: ``.mcp.json`` at the project root.
  https://code.claude.com/docs/en/mcp
- Claude Desktop — ``claude_desktop_config.json``, ``mcpServers``: macOS
  ``~/Library/Application Support/Claude/``, Windows ``%APPDATA%\\Claude\\``. Linux has no
  official build; community builds read ``$XDG_CONFIG_HOME/Claude/`` (``~/.config/Claude/``).
  https://modelcontextprotocol.io/quickstart/user
- Cursor — ``~/.cursor/mcp.json`` (every project) or ``.cursor/mcp.json`` in a project,
  ``mcpServers``. https://cursor.com/docs/mcp
- VS Code — ``mcp.json`` in the user profile folder (``MCP: Open User Configuration``: Linux
  ``~/.config/Code/User/``, macOS ``~/Library/Application Support/Code/User/``, Windows
  ``%APPDATA%\\Code\\User\\``) or ``.vscode/mcp.json`` in a workspace; top-level ``servers``,
  entries ``{"type": "stdio", "command", "args", "env"}``; the file is JSONC.
  https://code.visualstudio.com/docs/copilot/reference/mcp-configuration

Paths are computed from an environment mapping (``HOME``/``USERPROFILE``, ``APPDATA``,
``XDG_CONFIG_HOME``) and a platform name, so tests run against a temporary home.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmunch.errors import SetupError

__all__ = ["CLIENTS", "SERVER_NAME", "Client", "client_by_name", "home_of", "server_command"]

SERVER_NAME = "docmunch"
"""Key of docmunch's entry in every client's server table."""


def home_of(env: Mapping[str, str]) -> Path:
    """The user's home: ``$HOME`` (``%USERPROFILE%`` on Windows), else :meth:`Path.home`."""
    for key in ("HOME", "USERPROFILE"):
        if env.get(key):
            return Path(env[key])
    return Path.home()


def _app_data(env: Mapping[str, str], platform: str) -> Path:
    """Per-user application data: macOS ``~/Library/Application Support``, Windows
    ``%APPDATA%``, elsewhere ``$XDG_CONFIG_HOME`` or ``~/.config``."""
    home = home_of(env)
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    return Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"


@dataclass(frozen=True, slots=True)
class Client:
    """One MCP client."""

    name: str
    """The ``docmunch setup`` argument (``claude-code``)."""
    title: str
    """What people call it (``Claude Code``)."""
    table: str
    """Top-level key of its server table: ``mcpServers`` or ``servers``."""
    typed: bool
    """Entries carry ``"type": "stdio"``."""
    docs: str
    """The client's documentation of this file."""
    restart: str
    """What to do so the client reads the change."""

    def user_config(self, env: Mapping[str, str], platform: str = sys.platform) -> Path:
        """The config file for every project of this user."""
        home = home_of(env)
        if self.name == "claude-code":
            return home / ".claude.json"
        if self.name == "claude-desktop":
            return _app_data(env, platform) / "Claude" / "claude_desktop_config.json"
        if self.name == "cursor":
            return home / ".cursor" / "mcp.json"
        return _app_data(env, platform) / "Code" / "User" / "mcp.json"

    def project_config(self, project: Path) -> Path:
        """The config file of one project folder. Raises SetupError for Claude Desktop (it has none)."""
        if self.name == "claude-code":
            return project / ".mcp.json"
        if self.name == "cursor":
            return project / ".cursor" / "mcp.json"
        if self.name == "vscode":
            return project / ".vscode" / "mcp.json"
        raise SetupError(
            f"{self.title} has no per-project config; run `docmunch setup {self.name}` without --project"
        )

    def entry(self, command: str, args: list[str], env: Mapping[str, str]) -> dict[str, Any]:
        """docmunch's server entry for this client."""
        out: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        out["command"] = command
        out["args"] = args
        if env:
            out["env"] = dict(env)
        return out


CLIENTS: tuple[Client, ...] = (
    Client("claude-code", "Claude Code", "mcpServers", True, "https://code.claude.com/docs/en/mcp",
           "start a new Claude Code session; `/mcp` lists docmunch"),
    Client("claude-desktop", "Claude Desktop", "mcpServers", False, "https://modelcontextprotocol.io/quickstart/user",
           "quit and reopen Claude Desktop"),
    Client("cursor", "Cursor", "mcpServers", False, "https://cursor.com/docs/mcp",
           "reload Cursor (Settings → MCP shows docmunch)"),
    Client("vscode", "VS Code", "servers", True,
           "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
           "run `MCP: List Servers` in VS Code and start docmunch"),
)  # fmt: skip
"""Every supported client, in ``docmunch setup`` / ``doctor`` order."""


def client_by_name(name: str) -> Client:
    """The client called ``name``. Raises SetupError listing the known ones."""
    for client in CLIENTS:
        if client.name == name:
            return client
    raise SetupError(f"unknown client {name!r}; choose one of {', '.join(c.name for c in CLIENTS)}")


def server_command(platform: str = sys.platform) -> tuple[str, list[str]]:
    """``(command, args)`` that starts this docmunch's MCP server, with an absolute path.

    The ``docmunch`` script installed beside the running Python (a virtualenv's ``bin/`` or
    ``Scripts\\``), else the one on ``PATH``, else this Python with ``-m docmunch``.
    """
    script = "docmunch.exe" if platform == "win32" else "docmunch"
    beside = Path(sys.executable).parent / script
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute()), ["serve"]
    found = shutil.which("docmunch")
    if found:
        return str(Path(found).absolute()), ["serve"]
    return str(Path(sys.executable).absolute()), ["-m", "docmunch", "serve"]
