"""The ``docmunch`` command: a thin layer over :class:`docmunch.index.Index` (design brief §6).

``main(argv) -> int`` parses arguments, calls the index, prints human output (rich) or
``--json`` for scripts on stdout. Errors are one line on stderr with exit status 1, never a
traceback (``DOCMUNCH_DEBUG=1`` shows it for internal errors); Ctrl-C exits 130.

Public surface: :func:`main` (the ``docmunch`` script, ``python -m docmunch``) and
:func:`build_parser`. Each module of sub-commands registers its commands, with their
arguments, through one ``add_commands(cmd)``; :func:`build_parser` calls them in the order
``--help`` lists the commands:

- ``index_commands``: ``index`` and ``refresh``, their report lines and progress.
- ``read_commands``: ``search``, ``toc``, ``section``, ``list``, ``delete``.
- :mod:`docmunch.cli_versions` (``default``, ``rename``, ``export``, ``import``) and
  :mod:`docmunch.setup.commands` (``setup``, ``doctor``), one layer down.
- ``provenance_commands``: ``verify`` and ``locate``.
- ``extract_serve_commands``: ``extract`` and ``serve``.

Under them, ``parser`` is the argparse layer (one-line usage errors, argument types, the
``search`` argv pass that lets a query look like an option, did-you-mean for unknown options),
``password`` the ``--password`` / ``--password-stdin`` pair of ``index`` and ``extract``, and
``optional`` imports the module behind a command only when it runs.

Environment: ``DOCMUNCH_HOME`` (the index root, read by :class:`~docmunch.index.Index`),
``DOCMUNCH_DEBUG`` (set: an internal error prints its traceback on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Callable

from docmunch import __version__, cli_versions
from docmunch.cli import extract_serve_commands, index_commands, provenance_commands, read_commands
from docmunch.cli.parser import Parser, UsageError, option_arity, parse, search_argv, utf8_argv
from docmunch.errors import DocmunchError
from docmunch.setup import commands as setup_commands
from docmunch.terminal import emit_json as _emit_json
from docmunch.terminal import one_line as _one_line

__all__ = ["build_parser", "main"]


def build_parser() -> Parser:
    """The argparse parser of every sub-command (also used for ``--help`` docs)."""
    p = Parser(prog="docmunch", description="Byte-exact documentation section index.")
    p.add_argument("--version", action="version", version=f"docmunch {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    p.commands = sub.choices

    def cmd(name: str, func: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        return sp

    index_commands.add_commands(cmd)
    read_commands.add_commands(cmd)
    cli_versions.add_commands(cmd)
    setup_commands.add_commands(cmd)
    provenance_commands.add_commands(cmd)
    extract_serve_commands.add_commands(cmd)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 error, 2 usage error, 130 interrupted,
    141 when the reader of stdout went away, as a SIGPIPE would end a C tool)."""
    parser = build_parser()
    try:
        argv = utf8_argv(list(sys.argv[1:] if argv is None else argv))
        args = parse(parser, search_argv(argv, option_arity(parser.commands["search"])))
    except UsageError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    try:
        status = int(args.func(args))
        sys.stdout.flush()  # here, so a reader that went away is seen below, not at exit
        return status
    except UsageError as exc:  # found by the command itself (--password-stdin with nothing to read)
        sys.stderr.write(f"{exc}\n")
        return 2
    except DocmunchError as exc:
        message = _one_line(str(exc))
        sys.stderr.write(f"docmunch: {message}\n")
        if getattr(args, "json", False):  # scripts get a JSON answer on stdout too
            with contextlib.suppress(OSError):
                _emit_json({"error": {"type": type(exc).__name__, "message": " ".join(str(exc).split())}})
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("docmunch: interrupted\n")
        return 130
    except BrokenPipeError:  # `docmunch … | head`: the reader left; end as SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 128 + signal.SIGPIPE
    except Exception as exc:
        if os.environ.get("DOCMUNCH_DEBUG"):
            traceback.print_exc()
        msg = _one_line(str(exc)) or type(exc).__name__
        sys.stderr.write(f"docmunch: internal error: {msg} (set DOCMUNCH_DEBUG=1 for the traceback)\n")
        return 1
