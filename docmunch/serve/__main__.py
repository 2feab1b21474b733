"""``python -m docmunch.serve [--http HOST:PORT] [--allow-remote]``: same as ``docmunch serve``."""

from __future__ import annotations

import argparse

from docmunch.serve import run

parser = argparse.ArgumentParser(prog="python -m docmunch.serve", description="Serve docmunch over MCP.")
parser.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP instead of stdio")
parser.add_argument(
    "--allow-remote", action="store_true", help="allow a non-loopback HOST (needs DOCMUNCH_TOKEN)"
)
ns = parser.parse_args()
raise SystemExit(run(http=ns.http, allow_remote=ns.allow_remote))
