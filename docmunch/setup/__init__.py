"""Agent setup: ``docmunch setup CLIENT`` and ``docmunch doctor`` (a front, like the CLI).

Private modules:

- ``clients``: the supported MCP clients (Claude Code, Claude Desktop, Cursor, VS Code), where
  each keeps its config per platform (with the documentation that says so) and the entry
  docmunch writes; the absolute path of the installed ``docmunch``.
- ``jsonc``: a JSON-with-comments parser that records positions, and an in-place edit of one
  member that keeps every other character of the file.
- ``install``: plan (``--dry-run``: a diff) and apply a setup: backup, atomic replace.
- ``doctor``: read-only checks of the install, the index and every client's entry, each with a fix.
- ``commands``: the ``setup`` and ``doctor`` sub-commands registered by :mod:`docmunch.cli`.

Environment: ``HOME`` (``USERPROFILE`` on Windows), ``APPDATA`` (Windows) and
``XDG_CONFIG_HOME`` (Linux) locate the config files; ``DOCMUNCH_HOME``, when set, is written
into the entry so the client uses that index. Imports run one way: this package uses
:mod:`docmunch.index`, never the reverse.
"""

from docmunch.setup.clients import CLIENTS, SERVER_NAME, Client, client_by_name, server_command
from docmunch.setup.doctor import Check, run_checks
from docmunch.setup.install import SetupPlan, apply, plan

__all__ = [
    "CLIENTS",
    "SERVER_NAME",
    "Check",
    "Client",
    "SetupPlan",
    "apply",
    "client_by_name",
    "plan",
    "run_checks",
    "server_command",
]
