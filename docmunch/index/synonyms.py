"""Query expansion with general technical-English variants (delete/remove, run/execute, …).

Questions name things in their own words ("remove", "launch", "settings") where the docs use
others ("delete", "start", "configuration"). Each query term of a group also brings the
group's other words in at :data:`SYNONYM_WEIGHT` of its own weight, as a weighted query
expansion (Voorhees, "Query expansion using lexical-semantic relations", SIGIR 1994; weighted
so that an expansion never counts as much as the word the user typed).

The groups are general vocabulary of software documentation — verbs of operations, states,
sizes, common nouns — written from general knowledge, never a mapping made for one question
or one corpus: no product, API or domain word appears. Matching is on stems
(:func:`docmunch.index.analyze.stem`), so ``deleting`` meets ``removed``. The dev set's
numbers for the table as a whole, with and without it, are in ``docs/search.md``.
"""

from __future__ import annotations

from functools import cache

from docmunch.index.analyze import stem

__all__ = ["GROUPS", "SYNONYM_WEIGHT", "expansions", "variants"]

SYNONYM_WEIGHT = 0.3
"""Weight of an expansion term relative to the query term it comes from (dev set MRR@10:
0.621 without expansion, 0.665 at 0.3, 0.656 at 0.5, lower above)."""

GROUPS: tuple[str, ...] = (
    "delete remove erase destroy purge",
    "create add generate",
    "start launch begin boot spawn",
    "run execute invoke",
    "stop halt terminate shutdown kill",
    "restart reboot reload",
    "update upgrade modify change edit alter",
    "install setup",
    "configure configuration config settings setting options customize",
    "error failure fail problem issue fault",
    "crash panic abort",
    "fix repair resolve solve troubleshoot",
    "show display print view",
    "list enumerate",
    "find search lookup locate discover",
    "get fetch retrieve obtain",
    "set assign specify",
    "send transmit emit",
    "receive accept consume",
    "connect attach bind",
    "detach disconnect unbind",
    "allow permit enable grant authorize",
    "deny block forbid prevent reject restrict disallow",
    "disable deactivate",
    "enable activate",
    "copy duplicate clone replicate",
    "move transfer migrate relocate",
    "limit cap quota maximum",
    "size capacity",
    "big large bigger larger huge",
    "small tiny smaller",
    "fast quick faster quickly speed",
    "many multiple several numerous",
    "share shared common",
    "merge combine",
    "split divide partition separate",
    "wait pause sleep",
    "retry repeat",
    "timeout deadline",
    "test check verify validate",
    "ignore skip omit exclude bypass",
    "hide mask conceal",
    "secret password credential token",
    "permission privilege authorization",
    "user account",
    "machine host node server",
    "app application program",
    "function method procedure routine",
    "argument parameter param arg",
    "return result output",
    "type kind",
    "string text",
    "number integer numeric",
    "list array vector sequence",
    "map dictionary hashmap",
    "folder directory dir",
    "log logging logs",
    "monitor watch observe track",
    "metric measurement statistic",
    "memory ram",
    "cpu processor",
    "disk storage drive",
    "request query",
    "response reply answer",
    "version release",
    "old previous prior legacy outdated older",
    "new latest newer recent",
    "default standard",
    "automatic automatically auto",
    "manual manually",
    "temporary temp ephemeral scratch transient",
    "permanent persistent durable",
    "concurrent parallel simultaneous simultaneously",
    "async asynchronous",
    "lock mutex",
    "pointer reference",
    "compare comparison difference versus vs",
    "why reason purpose motivation",
    "example sample demo",
    "tutorial guide walkthrough",
    "overview introduction summary",
    "rollback revert undo",
    "expose publish",
    "scale resize",
    "increase raise grow extend expand",
    "decrease reduce lower shrink",
    "replace swap substitute",
    "package library module dependency",
    "build compile",
    "environment env",
    "address ip",
    "broken corrupt invalid",
    "missing absent lost",
    "stuck hang hung frozen freeze",
)
"""Variant groups, one string of space-separated words each (stemmed when the table is built)."""


@cache
def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for group in GROUPS:
        stems = list(dict.fromkeys(stem(word) for word in group.split()))
        for s in stems:
            bucket = table.setdefault(s, [])
            bucket.extend(x for x in stems if x != s and x not in bucket)
    return {s: tuple(others) for s, others in table.items()}


def expansions(terms: list[str] | tuple[str, ...]) -> dict[str, float]:
    """``{expansion term: weight}`` for analysed query ``terms`` (the terms themselves excluded)."""
    table = _table()
    out: dict[str, float] = {}
    given = set(terms)
    for term in terms:
        for other in table.get(term, ()):
            if other not in given:
                out[other] = SYNONYM_WEIGHT
    return out


def variants(term: str) -> tuple[str, ...]:
    """The other stems of ``term``'s variant groups (``remov`` → ``delet``, ``eras``, …); ``()``
    for a term in no group."""
    return _table().get(term, ())
