"""robots.txt per RFC 9309 (Robots Exclusion Protocol), written for docmunch. Pure, no I/O.

Parsing (§2.1–§2.2): lines are ``key: value`` (keys case-insensitive, ``#`` starts a comment,
a UTF-8 BOM is ignored). A group is one or more ``User-agent`` lines followed by its rules;
a ``User-agent`` line after a rule starts the next group. ``Sitemap`` lines are not part of any
group; rules before the first ``User-agent`` and unknown keys are ignored. Only the first
:data:`MAX_ROBOTS_BYTES` are parsed (§2.5: crawlers must read at least 500 KiB).

Which group applies (§2.2.1): every group naming our product token ``docmunch`` (case-insensitive;
``docmunch/1.0`` counts) — several such groups are merged into one; else every ``*`` group,
merged; else no rules.

Matching (§2.2.2–§2.2.3): a rule's pattern is matched against the URL's path and query, both
percent-normalised the same way (non-ASCII octets percent-encoded, ``%XX`` of unreserved
characters decoded, hex digits upper-case). ``*`` matches any sequence, a final ``$`` anchors
the end. The longest matching pattern (most octets) decides; when an ``Allow`` and a
``Disallow`` pattern are equally long, ``Allow`` wins. No match allows. ``/robots.txt`` itself
is always allowed. An empty ``Disallow:`` is no rule.

Fetch outcomes (§2.3.1), applied by the caller: a 4xx robots.txt is "unavailable" →
:meth:`Robots.allow_all`; a 5xx or network failure is "unreachable" → :meth:`Robots.disallow_all`.

``Crawl-delay`` is not in RFC 9309; docmunch reads it as common practice does (fractions kept;
when merged groups disagree, the longest delay).
"""

from __future__ import annotations

import math
import re
import urllib.parse
from dataclasses import dataclass, field

__all__ = ["MAX_ROBOTS_BYTES", "USER_AGENT_TOKEN", "Robots", "Rule"]

USER_AGENT_TOKEN = "docmunch"
"""docmunch's product token in robots.txt ``User-agent`` lines (RFC 9309 §2.2.1)."""
MAX_ROBOTS_BYTES = 500 * 1024
"""robots.txt bytes parsed (500 KiB, the minimum RFC 9309 §2.5 asks crawlers to read); the rest is ignored."""

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_URI_CHARS = _UNRESERVED | frozenset(":/?#[]@!$&'()*+,;=")  # RFC 3986 §2.2–2.3, '%' aside
_PLAIN = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]*")  # nothing to normalise
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_TOKEN = re.compile(r"[A-Za-z_-]+")


def normalise_path(path: str) -> str:
    """``path`` as RFC 9309 §2.2.2 compares it: characters outside RFC 3986's unreserved and
    reserved sets (non-ASCII, space, ``<``, ``"``, …) percent-encoded as UTF-8 octets, ``%XX`` of
    an unreserved character decoded, other ``%XX`` upper-cased.

    >>> normalise_path("/foo/bar/%62%61%7A/ツ")
    '/foo/bar/baz/%E3%83%84'
    """
    if _PLAIN.fullmatch(path):
        return path
    out: list[str] = []
    i, n = 0, len(path)
    while i < n:
        char = path[i]
        if char == "%" and _PERCENT.match(path, i):
            decoded = chr(int(path[i + 1 : i + 3], 16))
            out.append(decoded if decoded in _UNRESERVED else path[i : i + 3].upper())
            i += 3
            continue
        if char in _URI_CHARS:
            out.append(char)
        else:
            out.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8", "replace")))
        i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``Allow`` / ``Disallow`` line of the applicable group."""

    allow: bool
    """True for ``Allow``."""
    pattern: str
    """The path pattern, percent-normalised (``*`` and a final ``$`` are special)."""
    line: int
    """1-based line number in robots.txt (0 for the synthetic rule of :meth:`Robots.disallow_all`)."""
    _regex: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def make(cls, allow: bool, value: str, line: int) -> Rule:
        """A rule from a robots.txt value (a pattern not starting with ``/`` or ``*`` gets a ``/``)."""
        pattern = normalise_path(value if value.startswith(("/", "*")) else "/" + value)
        regex = None
        if "*" in pattern or pattern.endswith("$"):
            anchored = pattern.endswith("$")
            body = pattern[:-1] if anchored else pattern
            source = ".*".join(re.escape(part) for part in body.split("*"))
            regex = re.compile(source + (r"\Z" if anchored else ""), re.DOTALL)
        return cls(allow, pattern, line, regex)

    def matches(self, path: str) -> bool:
        """Does the rule match a normalised path (``/a/b?q``)?"""
        if self._regex is not None:
            return self._regex.match(path) is not None
        return path.startswith(self.pattern)

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{'Allow' if self.allow else 'Disallow'}: {self.pattern}{where}"


@dataclass(slots=True)
class _Group:
    agents: list[str] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    delay: float | None = None


@dataclass(frozen=True, slots=True)
class Robots:
    """The robots.txt rules that apply to docmunch on one origin."""

    rules: tuple[Rule, ...] = ()
    """Rules of the merged applicable group, in file order."""
    sitemaps: tuple[str, ...] = ()
    """``Sitemap:`` values, in file order (absolute URLs per sitemaps.org; not checked here)."""
    delay: float | None = None
    """``Crawl-delay`` of the applicable group(s), seconds."""
    note: str = ""
    """Why these rules, when not parsed from a file ("robots.txt answered HTTP 503: …")."""
    unreachable: bool = False
    """True for :meth:`disallow_all`: robots.txt could not be read (5xx, network failure)."""
    _order: tuple[Rule, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Longest pattern first, Allow before Disallow at equal length: the first rule that
        # matches is the one RFC 9309 §2.2.2 picks, so matching can stop there.
        ranked = sorted(self.rules, key=lambda rule: (-len(rule.pattern), not rule.allow))
        object.__setattr__(self, "_order", tuple(ranked))

    @classmethod
    def parse(cls, text: str, *, agent: str = USER_AGENT_TOKEN) -> Robots:
        """Parse robots.txt text (see the module docstring); an empty text allows everything."""
        groups: list[_Group] = []
        sitemaps: list[str] = []
        current: _Group | None = None
        after_agent = False
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
            line = raw.split("#", 1)[0]
            key, colon, value = line.partition(":")
            if not colon:
                continue
            key, value = key.strip().lower(), value.strip()
            if key == "user-agent":
                if current is None or not after_agent:
                    current = _Group()
                    groups.append(current)
                current.agents.append(value)
                after_agent = True
            elif key == "sitemap":
                if value:
                    sitemaps.append(value)
            elif key in ("allow", "disallow"):
                after_agent = False
                if current is not None and value:
                    current.rules.append(Rule.make(key == "allow", value, number))
            elif key == "crawl-delay":
                after_agent = False
                seconds = _seconds(value)
                if current is not None and seconds is not None:
                    current.delay = seconds
        chosen = [g for g in groups if any(_is_agent(a, agent) for a in g.agents)]
        if not chosen:
            chosen = [g for g in groups if any(_is_star(a) for a in g.agents)]
        rules = tuple(rule for group in chosen for rule in group.rules)
        delays = [g.delay for g in chosen if g.delay is not None]
        return cls(rules, tuple(sitemaps), max(delays) if delays else None)

    @classmethod
    def from_bytes(cls, data: bytes, *, agent: str = USER_AGENT_TOKEN) -> Robots:
        """Parse the first :data:`MAX_ROBOTS_BYTES` of a robots.txt body (UTF-8; bad bytes replaced).

        A body cut at the cap loses its last, partial line.
        """
        if len(data) >= MAX_ROBOTS_BYTES:
            data = data[:MAX_ROBOTS_BYTES]
            data = data[: data.rfind(b"\n") + 1] if b"\n" in data else b""
        return cls.parse(data.decode("utf-8", errors="replace"), agent=agent)

    @classmethod
    def allow_all(cls, note: str = "") -> Robots:
        """No rules: robots.txt is unavailable (RFC 9309 §2.3.1.3, a 4xx answer)."""
        return cls(note=note)

    @classmethod
    def disallow_all(cls, note: str = "") -> Robots:
        """Complete disallow: robots.txt is unreachable (RFC 9309 §2.3.1.4, 5xx or network error)."""
        return cls(rules=(Rule.make(False, "/", 0),), note=note, unreachable=True)

    def verdict(self, url: str) -> tuple[bool, Rule | None]:
        """``(allowed, deciding rule)`` for ``url`` (an absolute URL or a ``/path?query``)."""
        parts = urllib.parse.urlsplit(url)
        path = parts.path or "/"
        if path == "/robots.txt":
            return True, None
        if parts.query:
            path += "?" + parts.query
        path = normalise_path(path)
        for rule in self._order:
            if rule.matches(path):
                return rule.allow, rule
        return True, None

    def allowed(self, url: str) -> bool:
        """May docmunch fetch ``url``?"""
        return self.verdict(url)[0]

    def why(self, url: str) -> str:
        """The reason ``url`` is refused, for a report (``"robots.txt: Disallow: /private/ (line 3)"``)."""
        _allowed, rule = self.verdict(url)
        if self.note:
            return self.note
        return f"robots.txt: {rule}" if rule is not None else "robots.txt"

    def crawl_delay(self) -> float | None:
        """``Crawl-delay`` for docmunch (or ``*``) in seconds, if any."""
        return self.delay


def _is_agent(value: str, agent: str) -> bool:
    match = _TOKEN.match(value)
    return match is not None and match.group(0).lower() == agent.lower()


def _is_star(value: str) -> bool:
    return value.split(maxsplit=1)[:1] == ["*"]


def _seconds(value: str) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
