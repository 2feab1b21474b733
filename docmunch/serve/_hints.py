"""Error texts for the agent: CLI flag hints rewritten as what helps over MCP.

The core's messages are written for the terminal (``use --allow-private``, ``pass its password
with --password-stdin (or --password PW)``, ``--max-file-bytes N``),
but an agent can pass no CLI flag. :func:`for_agent` rewrites those hints, in tool errors and in
the per-file ``errors`` of index reports, to name the tool argument or server setting that helps:

=====================  ==========================================================================
CLI hint               over MCP
=====================  ==========================================================================
``--allow-private``    a **server setting**, not a tool argument: ``docmunch serve
                       --allow-private`` or ``DOCMUNCH_ALLOW_PRIVATE=1`` in the server's
                       environment. Deliberately so: an agent reading untrusted pages must not
                       be able to lift the SSRF guard and probe the user's network by itself.
``--password-stdin``   index the file once from a terminal (``docmunch index PATH
                       --password-stdin``, which asks for the password without echo and keeps
                       it out of process lists); tools take no passwords, which would land in
                       the agent's transcript.
``--max-file-bytes``   index the folder once from a terminal (``docmunch index PATH
                       --max-file-bytes N``): ``index_local`` takes no size option, its runs
                       keep the default cap of 5 MiB per file.
``docmunch refresh``,  in an index report's ``source_changed`` note: no command is named for a
``--repo NAME``        refresh, and the way back is ``index_local`` with ``name``.
``--replace``          in the refusal to index another source into a repo: choose another name,
                       or ``delete_index`` first (no tool replaces a repo's source).
=====================  ==========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docmunch.errors import PasswordRequired

__all__ = ["ALLOW_PRIVATE_HINT", "MAX_FILE_BYTES_HINT", "PASSWORD_HINT", "for_agent"]

ALLOW_PRIVATE_HINT = (
    "this server refuses private and loopback addresses; to allow them, restart it with "
    "`docmunch serve --allow-private` or DOCMUNCH_ALLOW_PRIVATE=1 in its environment (the MCP "
    "client's server configuration) — there is no tool argument for it"
)
"""What replaces ``use --allow-private …`` in messages sent to the agent."""

PASSWORD_HINT = (
    "encrypted files cannot be opened over MCP; index it once from a terminal with "
    "`docmunch index PATH --password-stdin`, which asks for the password"
)
"""What replaces :attr:`PasswordRequired.HINT <docmunch.errors.PasswordRequired.HINT>` (``pass its
password with --password-stdin (or --password PW)``) in messages sent to the agent."""

MAX_FILE_BYTES_HINT = (
    "index_local keeps the default size limit; to index larger files, index the folder once from "
    "a terminal with `docmunch index PATH --max-file-bytes N`"
)
"""What replaces ``--max-file-bytes N raises the size limit`` in messages sent to the agent."""

def _tool_call(found: re.Match[str]) -> str:
    """The tool call that does what a ``docmunch index SOURCE --repo NAME [flags]`` command does."""
    source, repo, flags = found["source"], found["repo"], found["flags"].split()
    if "://" in source:
        crawl = ", crawl true" if "--crawl" in flags else ""
        call = f"call index_url with url {source}, name {repo}{crawl}"
    else:
        call = f"call index_local with path {source}, name {repo}"
    return f"delete_index {repo}, then {call}" if "--replace" in flags else call


_REWRITES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"\buse --allow-private\b[^;)]*"), ALLOW_PRIVATE_HINT),
    (re.compile(re.escape(PasswordRequired.HINT)), PASSWORD_HINT),  # the core's exact wording
    (re.compile(r"--max-file-bytes N raises the size limit"), MAX_FILE_BYTES_HINT),
    # the index's refusal to replace another source's repo (docmunch.index.indexer.RepoExists)
    (
        re.compile(r"\(pass --replace to do that, or choose another name with --repo\)"),
        "(over MCP a repo's source is not replaced: choose another name, or delete_index it first)",
    ),
    # an index report's source_changed note (docmunch.index.indexer): refresh is a terminal command
    (re.compile(r"so `docmunch refresh (?P<repo>.+?)` re-reads"), "so a refresh re-reads"),
    (
        re.compile(r"run `docmunch index (?P<source>.+?) --repo (?P<repo>\S+?)(?P<flags>(?: --[\w-]+)*)`"),
        _tool_call,
    ),
)


def for_agent(message: str) -> str:
    """``message`` with every CLI-only hint replaced by its MCP equivalent (unchanged otherwise)."""
    if "--" not in message and "`docmunch refresh" not in message:
        return message
    for pattern, replacement in _REWRITES:
        message = pattern.sub(replacement, message)
    return message
