"""The argparse layer under every ``docmunch`` sub-command.

:class:`Parser` (one-line usage errors, exit 2), the ``cmd(name, handler, help)`` callback
type every command module registers through (:data:`Register`), the argument types
(:func:`positive`, :func:`positive_at_most`, :func:`non_negative`, :func:`host_port`), and the
two passes around argparse that make its mistakes readable: :func:`search_argv` (a ``search``
query may look like an option; a near-miss option is refused) and :func:`parse` (unrecognized
arguments reported by the sub-command, with a did-you-mean from
:func:`docmunch.suggest.near_matches`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from typing import NoReturn

from docmunch.suggest import near_matches

__all__ = [
    "REPO_HELP",
    "Parser",
    "Register",
    "UsageError",
    "host_port",
    "non_negative",
    "option_arity",
    "parse",
    "positive",
    "positive_at_most",
    "search_argv",
    "utf8_argv",
]

Register = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
"""``cmd(name, handler, help)`` of :func:`docmunch.cli.build_parser`: adds sub-command ``name``
(``help`` is its one-line help and description), run by ``handler(args) -> exit status``, and
returns its parser for the command's arguments."""


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None


def positive(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def positive_at_most(maximum: int) -> Callable[[str], int]:
    """argparse type: an integer from 1 to ``maximum``; a value outside names the range
    (``--limit: must be from 1 to 200, not 500``)."""

    def in_range(text: str) -> int:
        value = _integer(text)
        if not 1 <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be from 1 to {maximum}, not {value}")
        return value

    return in_range


def non_negative(text: str) -> int:
    """argparse type: an integer ≥ 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


def host_port(text: str) -> str:
    """argparse type: ``HOST:PORT`` (``[::1]:PORT``, ``:PORT``) with a port 0–65535."""
    _host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT with a port 0-65535, e.g. 127.0.0.1:8765, not {text!r}"
        )
    return text


REPO_HELP = "NAME (its default version), NAME@VERSION or NAME@* (every version)"
"""Help text of a ``REPO`` argument that takes a version (``search``, ``delete``)."""


def utf8_argv(argv: list[str]) -> list[str]:
    """``argv`` unchanged when every argument is UTF-8 text.

    Python decodes command-line bytes that are not UTF-8 into lone surrogates
    (``surrogateescape``, PEP 383); such a string cannot be searched for, stored or printed,
    and no section title, path or id holds it (file names that are not UTF-8 are skipped when
    indexing).

    Raises:
        UsageError: for the first argument that is not UTF-8, naming its position (1 = the first
            argument after ``docmunch``) and showing its bytes (``\\xff``).
    """
    for position, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            raise UsageError(
                f"docmunch: argument {position} ('{shown}') is not valid UTF-8 text; "
                "docmunch reads its arguments as UTF-8 (check the terminal's encoding, e.g. LANG=C.UTF-8)"
            ) from None
    return argv


def option_arity(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Option string → number of values, for every option of ``parser`` (``-h`` included)."""
    table: dict[str, int] = {}
    for action in parser._actions:  # argparse has no public list of a parser's actions
        count = 0 if action.nargs == 0 else 1
        for option in action.option_strings:
            table[option] = count
    return table


class UsageError(Exception):
    """A command line docmunch cannot use: one the parser would misread, or an option whose
    input is missing (``--password-stdin`` with nothing to read); the message is printed as
    is, exit 2."""


def search_argv(argv: list[str], options: Mapping[str, int]) -> list[str]:
    """``docmunch search`` argv with every token that is not one of its options (or an
    option's value) moved behind ``--``, so a query such as ``--dry-run`` or
    ``-o=json`` is a query word and options may stand before or after the query.

    Args:
        argv: the command line without the program name; any other command is returned as is.
        options: ``search``'s option strings → how many values each takes
            (:func:`option_arity` of its parser).

    Raises:
        UsageError: a token before ``--`` is a near miss of a search option (``--limt``,
            ``--jsn``, a prefix such as ``--lim``; :func:`docmunch.suggest.near_matches`).
    """
    if not argv or argv[0] != "search":
        return argv
    kept: list[str] = []
    words: list[str] = []
    rest = iter(argv[1:])
    for token in rest:
        if token == "--":
            words.extend(rest)
            break
        name = token.split("=", 1)[0]
        arity = options.get(name if token.startswith("--") else token)
        if arity is None:
            _refuse_near_option("docmunch search", name, options)
            words.append(token)
            continue
        kept.append(token)
        if arity and "=" not in token:
            kept.extend(next(rest, "") for _ in range(arity))
    return ["search", *kept, *(["--", *words] if words else [])]


def _near_options(name: str, options: Iterable[str]) -> list[str]:
    """Long options that ``name`` (a token starting with ``-``, not a number, at least two
    letters after the dashes: ``-x`` stays a query word) likely meant."""
    core = name.lstrip("-")
    if not name.startswith("-") or len(core) < 2 or core[0].isdigit():
        return []
    return near_matches(name, [o for o in options if o.startswith("--")], strip="-")


def _refuse_near_option(prog: str, name: str, options: Iterable[str]) -> None:
    """Raise :class:`UsageError` when ``name`` is a near miss of one of ``options``."""
    near = _near_options(name, options)
    if near:
        raise UsageError(
            f"{prog}: unknown option {name!r} (did you mean {' or '.join(near)}?); "
            "to search for it, put it after '--'"
        )


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) instead of the usage block plus a line;
    ``commands`` maps each sub-command's name to its parser (set by
    :func:`docmunch.cli.build_parser`)."""

    commands: Mapping[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, with unrecognized arguments reported by the sub-command's
    parser (its name, its ``--help``) and a did-you-mean for a near-miss option (exit 2)."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    commands: Mapping[str, argparse.ArgumentParser] = getattr(parser, "commands", {})
    sub = commands.get(str(getattr(args, "command", "")), parser)
    near = next((n for t in extra if (n := _near_options(t.split("=", 1)[0], option_arity(sub)))), [])
    hint = f" (did you mean {' or '.join(near)}?)" if near else ""
    sub.error(f"unrecognized arguments: {' '.join(extra)}{hint}")  # exits 2
