"""robots.txt per RFC 9309: the spec cases in ``fixtures/robots.txt.cases``, plus limits and delays."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmunch.sources.robots import MAX_ROBOTS_BYTES, Robots, normalise_path

CASES = Path(__file__).parent / "fixtures" / "robots.txt.cases"


def _cases() -> list[tuple[str, str, str, bool]]:
    """``(id, robots text, path, allowed)`` for every expectation line of the cases file."""
    lines = CASES.read_text(encoding="utf-8").splitlines()
    out: list[tuple[str, str, str, bool]] = []
    i = 0
    while i < len(lines):
        title = lines[i].strip()
        if not title or title.startswith("#"):
            i += 1
            continue
        assert lines[i + 1] == ".", f"line {i + 2}: expected '.' after the title"
        end_robots = lines.index(".", i + 2)
        end_paths = lines.index(".", end_robots + 1)
        text = "\n".join(lines[i + 2 : end_robots]) + "\n"
        for offset, row in enumerate(lines[end_robots + 1 : end_paths]):
            path, verdict = row.rsplit(maxsplit=1)
            assert verdict in ("allow", "disallow"), row
            number = end_robots + 2 + offset
            out.append((f"line {number}: {title} | {path}", text, path.strip(), verdict == "allow"))
        i = end_paths + 1
    return out


CASE_LIST = _cases()


def test_the_cases_file_has_cases() -> None:
    assert len(CASE_LIST) > 60  # a parser bug reading no cases must fail loudly


@pytest.mark.parametrize(
    ("robots", "path", "allowed"), [c[1:] for c in CASE_LIST], ids=[c[0] for c in CASE_LIST]
)
def test_spec_case(robots: str, path: str, allowed: bool) -> None:
    rules = Robots.parse(robots)
    assert rules.allowed("https://example.org" + path) is allowed
    assert rules.allowed(path) is allowed  # a bare path reads the same


def test_verdict_names_the_deciding_rule() -> None:
    robots = Robots.parse("User-agent: *\nDisallow: /\nAllow: /docs/\n")
    allowed, rule = robots.verdict("https://ex.org/blog/")
    assert not allowed and rule is not None and rule.line == 2
    assert robots.why("https://ex.org/blog/") == "robots.txt: Disallow: / (line 2)"
    assert robots.verdict("https://ex.org/docs/x") == (True, robots.rules[1])


def test_crawl_delay_of_the_applicable_group_and_sitemaps() -> None:
    robots = Robots.parse(
        "User-agent: *\nCrawl-delay: 5\n\nUser-agent: docmunch\nDisallow: /x\nCrawl-delay: 0.25\n"
        "Sitemap: https://ex.org/sitemap.xml\nCrawl-delay: nonsense\n"
    )
    assert robots.crawl_delay() == 0.25
    assert robots.sitemaps == ("https://ex.org/sitemap.xml",)
    assert Robots.parse("User-agent: *\nCrawl-delay: 2\n").crawl_delay() == 2.0
    assert Robots.parse("User-agent: *\nCrawl-delay: -1\n").crawl_delay() is None
    merged = Robots.parse("User-agent: docmunch\nCrawl-delay: 1\n\nUser-agent: docmunch\nCrawl-delay: 3\n")
    assert merged.crawl_delay() == 3.0  # the most polite of merged groups


def test_only_the_first_500_kib_are_parsed() -> None:
    filler = b"# " + b"x" * 97 + b"\n"
    head = b"User-agent: *\nDisallow: /early/\n"
    body = head + filler * (MAX_ROBOTS_BYTES // len(filler)) + b"Disallow: /late/\n"
    assert len(body) > MAX_ROBOTS_BYTES
    robots = Robots.from_bytes(body)
    assert not robots.allowed("/early/x") and robots.allowed("/late/x")
    # A body cut at the cap mid-line loses that partial line (it could be a shortened pattern).
    padding = b"#" * (MAX_ROBOTS_BYTES - len(head) - 20) + b"\n"
    cut = (head + padding + b"Disallow: /abcdefghijklmnop\n")[:MAX_ROBOTS_BYTES]
    assert cut.endswith(b"Disallow: /abcdefgh")  # the cap falls inside the last rule
    assert [r.pattern for r in Robots.from_bytes(cut).rules] == ["/early/"]
    assert Robots.from_bytes(b"\xef\xbb\xbfUser-agent: *\nDisallow: /bom\n").allowed("/bom") is False


def test_unavailable_and_unreachable() -> None:
    assert Robots.allow_all().allowed("/anything")
    closed = Robots.disallow_all("robots.txt answered HTTP 503")
    assert closed.unreachable and not closed.allowed("/") and closed.allowed("/robots.txt")
    assert closed.why("/x") == "robots.txt answered HTTP 503"


def test_normalise_path() -> None:
    assert normalise_path("/foo/bar/%62%61%7A") == "/foo/bar/baz"
    assert normalise_path("/ツ") == "/%E3%83%84"
    assert normalise_path("/a%2fb") == "/a%2Fb"  # reserved: stays encoded
    assert normalise_path("/a b<c>") == "/a%20b%3Cc%3E"
    assert normalise_path("/plain/path?q=1&r=*") == "/plain/path?q=1&r=*"
