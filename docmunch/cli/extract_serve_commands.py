"""``docmunch extract`` and ``docmunch serve``: one page's main content, and the MCP server.

``extract`` runs the extractor on one web page or file without indexing it
(:func:`docmunch.sources.web.extract_source`); ``serve`` runs the MCP server
(:func:`docmunch.serve.run`). Both are loaded only when run (:mod:`docmunch.cli.optional`).
:func:`add_commands` registers them.
"""

from __future__ import annotations

import argparse
import json
import sys

from docmunch.cli.optional import load_optional
from docmunch.cli.parser import Register, host_port
from docmunch.cli.password import add_password_arguments, read_password

__all__ = ["add_commands"]


def _cmd_extract(args: argparse.Namespace) -> int:
    extract = load_optional("docmunch.sources.web", "extract_source", "extract")
    password = read_password(args, prog="docmunch extract")
    result = extract(args.source, format=args.format, allow_private=args.allow_private, password=password)
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, indent=2)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    run = load_optional("docmunch.serve", "run", "serve")
    return int(run(http=args.http, allow_remote=args.allow_remote, allow_private=args.allow_private))


def add_commands(cmd: Register) -> None:
    """Register ``extract`` and ``serve`` through ``cmd`` (:data:`docmunch.cli.parser.Register`)."""
    sp = cmd("extract", _cmd_extract, "extract the main content of a web page or file")
    sp.add_argument("source", metavar="URL|FILE")
    sp.add_argument("--format", choices=("markdown", "json", "html"), default="markdown")
    sp.add_argument("--allow-private", action="store_true")
    add_password_arguments(sp, what="an encrypted PDF file")

    sp = cmd("serve", _cmd_serve, "run the MCP server (stdio, or streamable HTTP with --http)")
    sp.add_argument("--http", metavar="HOST:PORT", type=host_port)
    sp.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback HOST (needs DOCMUNCH_TOKEN)"
    )
    sp.add_argument(
        "--allow-private",
        action="store_true",
        help="let index_url/extract_url fetch private/loopback addresses (= DOCMUNCH_ALLOW_PRIVATE=1)",
    )
