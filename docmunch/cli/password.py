"""``--password PW`` and ``--password-stdin``: the password of encrypted PDF files (an
encrypted DOCX is refused whatever the password).

``index`` and ``extract`` take both (:func:`add_password_arguments`), one or the other. A
password given as ``--password PW`` is part of the command line, which every user of the
machine can read while the command runs (``ps``, ``/proc/PID/cmdline``) and which the shell
may keep in its history. ``--password-stdin`` reads it from standard input instead, as
``docker login --password-stdin`` does (:func:`read_password`):

- a pipe or a file (``pass show manual.pdf | docmunch index manual.pdf --password-stdin``,
  ``< secret.txt``): its first line, without the line ending (``\\n`` or ``\\r\\n``);
- a terminal: a prompt on the terminal that does not echo what is typed
  (:func:`getpass.getpass`).

An empty password, or standard input closed or at its end, is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from docmunch.cli.parser import UsageError

__all__ = ["PROMPT", "add_password_arguments", "read_password"]

PROMPT = "docmunch: password: "
"""What a terminal shows before the password is typed (``--password-stdin`` at a terminal)."""


def add_password_arguments(sp: argparse.ArgumentParser, *, what: str) -> None:
    """Add ``--password PW`` and ``--password-stdin`` (mutually exclusive) to ``sp``.

    Args:
        sp: the parser of a command that opens encrypted files.
        what: what the password opens, for the help (``"encrypted PDF files"``).
    """
    group = sp.add_mutually_exclusive_group()
    group.add_argument(
        "--password",
        metavar="PW",
        help=f"password of {what}; other users can see it in process lists (ps): "
        "prefer --password-stdin",
    )
    group.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input (asked for, without "
        "echo, when standard input is a terminal)",
    )


def read_password(args: argparse.Namespace, *, prog: str) -> str | None:
    """The password the command line gives: ``--password``'s value, the one read from
    standard input for ``--password-stdin``, else ``None``.

    Args:
        args: parsed arguments of a parser set up by :func:`add_password_arguments`.
        prog: the command, for error messages (``"docmunch index"``).

    Raises:
        UsageError: ``--password-stdin`` and standard input is closed, at its end, not text
            in the locale's encoding, or gives an empty password.
    """
    if not args.password_stdin:
        password: str | None = args.password
        return password
    stdin = sys.stdin
    if stdin is None or stdin.closed:
        raise _no_password(prog, "standard input is closed")
    terminal = stdin.isatty()
    try:
        raw = getpass.getpass(PROMPT) if terminal else stdin.readline()
    except EOFError:  # Ctrl-D at the prompt
        raw = ""
    except UnicodeDecodeError as exc:
        raise _no_password(prog, f"standard input is not text in the {exc.encoding} encoding") from None
    line = raw.removesuffix("\n").removesuffix("\r")
    if line:
        return line
    if terminal:
        raise _no_password(prog, "no password was typed")
    why = "standard input is empty" if not raw else "the first line of standard input is empty"
    raise _no_password(prog, why)


def _no_password(prog: str, why: str) -> UsageError:
    return UsageError(
        f"{prog}: --password-stdin: {why}; pipe the password in, or run at a terminal to be "
        f"asked for it (see '{prog} --help')"
    )
