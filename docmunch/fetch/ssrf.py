"""SSRF guard: which URLs and IP addresses docmunch may connect to.

Three layers, all driven by one :class:`AddressPolicy`:

1. :func:`check_url` — before any request and on every redirect hop: only ``http``/``https``;
   a host that *is* an address, however spelled (``2130706433``, ``0177.0.0.1``, ``0x7f.1``,
   ``127.1``, ``[::ffff:127.0.0.1]``), is parsed the way browsers parse it (WHATWG URL Standard,
   "IPv4 parser", the same rules as BSD ``inet_aton``) and checked; ``localhost`` and
   ``*.localhost`` are loopback names (RFC 6761 §6.3) and refused without a DNS query.
2. :func:`resolve` — resolves a host name once (``getaddrinfo``) and checks **every** answer;
   one bad answer refuses the host (an attacker's DNS must not mix a public and a private
   address and win a race).
3. :mod:`docmunch.fetch.transport` connects only to the addresses :func:`resolve` returned, so a
   second DNS answer (DNS rebinding) is never consulted.

Refused ranges come from the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and
updates); IPv6 forms that embed an IPv4 address (IPv4-mapped/compatible, NAT64 RFC 6052,
6to4 RFC 3056, Teredo RFC 4380) are judged by the address they embed.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass

from docmunch.errors import BlockedAddress, FetchError, InvalidURL, NetworkError

__all__ = ["AddressPolicy", "IPAddress", "IPNetwork", "check_url", "classify", "parse_host", "resolve"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_HINT = "use --allow-private to fetch from private networks"
ALLOW_PRIVATE_ENV = "DOCMUNCH_ALLOW_PRIVATE"

# (network, phrase) — first match wins; phrase completes "<ip> is a ...".
# Source: IANA IPv4 Special-Purpose Address Registry.
_V4_RULES: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), phrase)
    for net, phrase in (
        ("0.0.0.0/32", "unspecified address"),
        ("0.0.0.0/8", "'this network' address (RFC 791)"),
        ("10.0.0.0/8", "private address (RFC 1918)"),
        ("100.64.0.0/10", "carrier-grade NAT address (RFC 6598)"),
        ("127.0.0.0/8", "loopback address"),
        ("169.254.169.254/32", "link-local address (the cloud metadata service)"),
        ("169.254.0.0/16", "link-local address"),
        ("172.16.0.0/12", "private address (RFC 1918)"),
        ("192.0.0.0/24", "IETF protocol assignment address (RFC 6890)"),
        ("192.0.2.0/24", "documentation address (TEST-NET-1)"),
        ("192.88.99.0/24", "6to4 relay anycast address (RFC 7526)"),
        ("192.168.0.0/16", "private address (RFC 1918)"),
        ("198.18.0.0/15", "benchmarking address (RFC 2544)"),
        ("198.51.100.0/24", "documentation address (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation address (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast address"),
        ("255.255.255.255/32", "broadcast address"),
        ("240.0.0.0/4", "reserved address (RFC 1112)"),
    )
)
# Source: IANA IPv6 Special-Purpose Address Registry. Embedded-IPv4 forms are handled in code.
_V6_RULES: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), phrase)
    for net, phrase in (
        ("::/128", "unspecified address"),
        ("::1/128", "loopback address"),
        ("::ffff:0:0/96", "IPv4-mapped IPv6 address"),
        ("::/96", "IPv4-compatible IPv6 address (deprecated, RFC 4291)"),
        ("::ffff:0:0:0/96", "IPv4-translated address (RFC 2765)"),
        ("64:ff9b:1::/48", "local-use NAT64 address (RFC 8215)"),
        ("100::/64", "discard-only address (RFC 6666)"),
        ("2001:db8::/32", "documentation address (RFC 3849)"),
        ("2001::/23", "IETF protocol assignment address (RFC 2928)"),
        ("3fff::/20", "documentation address (RFC 9637)"),
        ("5f00::/16", "SRv6 SID address (RFC 9602)"),
        ("fc00::/7", "unique local address (IPv6 ULA, RFC 4193)"),
        ("fe80::/10", "link-local address"),
        ("fec0::/10", "site-local address (deprecated, RFC 3879)"),
        ("ff00::/8", "multicast address"),
    )
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_TEREDO = ipaddress.IPv6Network("2001::/32")
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")


def classify(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be fetched, as a phrase ("loopback address"), or ``None`` if public.

    IPv4-mapped and IPv4-compatible addresses are always refused (a public server has no reason
    to publish them); NAT64 (``64:ff9b::/96``), 6to4 (``2002::/16``) and Teredo (``2001::/32``,
    server and client) are refused when the IPv4 address they embed would be. IPv6 outside
    ``2000::/3`` (global unicast) is refused as reserved.
    """
    if isinstance(ip, ipaddress.IPv4Address):
        for net, phrase in _V4_RULES:
            if ip in net:
                return phrase
        return None
    embedded: list[ipaddress.IPv4Address] = []
    if ip in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    elif ip in _SIX_TO_FOUR:
        embedded.append(ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF))
    elif ip in _TEREDO:
        server, client = ip.teredo or (None, None)
        embedded += [a for a in (server, client) if a is not None]
    if embedded:
        for inner in embedded:
            inner_reason = classify(inner)
            if inner_reason is not None:
                return f"IPv6 address embedding {inner}, a {inner_reason}"
        return None
    for net6, phrase in _V6_RULES:
        if ip in net6:
            return phrase
    if ip not in _GLOBAL_UNICAST:
        return "reserved IPv6 address (outside 2000::/3)"
    return None


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """What the guard lets through.

    ``allow_private=True`` turns the address checks off (only the scheme check remains); it is
    what ``--allow-private`` / ``DOCMUNCH_ALLOW_PRIVATE=1`` set. ``allowed_networks`` lifts the
    checks for just those networks — e.g. ``(ip_network("127.0.0.1/32"),)`` lets tests reach a
    loopback server while every other private address (``127.0.0.2``, ``::1``, ``10.0.0.1``) is
    still refused.
    """

    allow_private: bool = False
    """Disable the address checks entirely."""
    allowed_networks: tuple[IPNetwork, ...] = ()
    """Networks allowed even though :func:`classify` would refuse them."""

    @classmethod
    def from_env(
        cls, allow_private: bool | None = None, allowed_networks: Iterable[str | IPNetwork] = ()
    ) -> AddressPolicy:
        """Build a policy; ``allow_private=None`` reads ``DOCMUNCH_ALLOW_PRIVATE`` (``1``/``true``)."""
        if allow_private is None:
            allow_private = os.environ.get(ALLOW_PRIVATE_ENV, "").strip().lower() in {
                "1",
                "true",
                "yes",
                "on",
            }
        nets = tuple(ipaddress.ip_network(n) for n in allowed_networks)
        return cls(allow_private=allow_private, allowed_networks=nets)

    def check_address(self, ip: IPAddress, *, via: str = "", url: str | None = None) -> None:
        """Raise :class:`BlockedAddress` if ``ip`` is refused; ``via`` explains where it came from."""
        if self.allow_private or any(ip.version == n.version and ip in n for n in self.allowed_networks):
            return
        phrase = classify(ip)
        if phrase is None:
            return
        article = "an" if phrase.startswith(("a", "e", "i", "o", "I", "unspec")) else "a"
        note = f" ({via})" if via else ""
        raise BlockedAddress(f"{ip} is {article} {phrase}{note}; {_HINT}", url=url, reason=phrase)


def _ipv4_number(part: str) -> int | None:
    """WHATWG URL Standard "IPv4 number parser": ``0x`` hex, leading-``0`` octal, else decimal."""
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) >= 2 and part[0] == "0":
        part, radix = part[1:], 8
    if part == "":
        return 0
    digits = "0123456789abcdef"[:radix]
    if not all(c in digits for c in part.lower()):
        return None
    return int(part, radix)


def parse_host(host: str) -> IPAddress | None:
    """The address a URL host denotes, or ``None`` for a domain name.

    ``host`` as it appears in a URL (``[::1]`` with brackets, or ``0x7f.1``). IPv4 follows the
    WHATWG URL Standard host parser: if the last dot-separated label is a number, the whole
    host must be 1–4 numbers (decimal, ``0x`` hex, ``0`` octal) and the last one fills the
    remaining bytes, exactly like ``inet_aton``. Raises :class:`InvalidURL` for a host that is
    neither a valid address nor a name (``1.2.3.999``, ``[::zz]``).
    """
    if host.startswith("[") and host.endswith("]"):
        literal = urllib.parse.unquote(host[1:-1])
        try:
            return ipaddress.IPv6Address(literal)
        except ValueError:
            raise InvalidURL(f"invalid IPv6 address in URL host {host!r}") from None
    try:
        return ipaddress.ip_address(host)  # plain dotted quad or bare IPv6 (from a transport)
    except ValueError:
        pass
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    hex_number = last[:2].lower() == "0x" and _ipv4_number(last) is not None
    if not (last.isascii() and (last.isdigit() or hex_number)):
        return None  # "ends in a number" is false: a domain name
    numbers = [_ipv4_number(label) if label else None for label in labels]
    if len(numbers) > 4 or any(n is None for n in numbers):
        raise InvalidURL(f"invalid IPv4 address in URL host {host!r}")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise InvalidURL(f"invalid IPv4 address in URL host {host!r}")
    address = values[-1]
    for i, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - i)
    return ipaddress.IPv4Address(address)


def _is_localhost_name(host: str) -> bool:
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def check_url(url: str, *, policy: AddressPolicy | None = None, allow_private: bool = False) -> None:
    """Refuse a URL before any network traffic.

    Checks the scheme (``http``/``https`` only), a literal address host in any spelling, and
    loopback names. A domain name passes here; :func:`resolve` checks its addresses at connect
    time. ``policy`` wins over ``allow_private``. Raises :class:`BlockedAddress` (refused) or
    :class:`InvalidURL` (malformed URL, no host).
    """
    policy = policy or AddressPolicy(allow_private=allow_private)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 — raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise InvalidURL(f"invalid URL {url!r}: {exc}", url=url) from None
    if parts.scheme.lower() not in ("http", "https"):
        shown = parts.scheme or "(none)"
        message = f"URL scheme {shown!r} is not allowed; only http and https"
        raise BlockedAddress(message, url=url, reason="scheme")
    hostport = parts.netloc.rpartition("@")[2]
    if hostport.startswith("["):
        host = hostport[: hostport.find("]") + 1]
    else:
        host = hostport.rpartition(":")[0] if ":" in hostport else hostport
    if not host:
        raise InvalidURL(f"URL {url!r} has no host", url=url)
    if policy.allow_private:
        return
    try:
        ip = parse_host(urllib.parse.unquote(host))
    except FetchError as exc:
        raise InvalidURL(str(exc), url=url) from None
    if ip is not None:
        spelled = urllib.parse.unquote(host).strip("[]")
        policy.check_address(ip, via="" if spelled == str(ip) else f"spelled {host}", url=url)
    elif _is_localhost_name(host):
        raise BlockedAddress(f"{host} is a loopback name; {_HINT}", url=url, reason="loopback address")


def resolve(host: str, port: int, policy: AddressPolicy) -> list[str]:
    """Resolve ``host`` once and return its addresses (strings, in resolver order), all checked.

    A literal address is not looked up. Raises :class:`BlockedAddress` if **any** answer is
    refused by ``policy`` and :class:`NetworkError` if the name does not resolve.
    """
    literal = parse_host(host)
    if literal is not None:
        policy.check_address(literal, via="" if host == str(literal) else f"spelled {host}")
        return [str(literal)]
    if _is_localhost_name(host) and not policy.allow_private:
        raise BlockedAddress(f"{host} is a loopback name; {_HINT}", reason="loopback address")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise NetworkError(f"cannot resolve host {host!r}: {exc}") from None
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        text = str(sockaddr[0])
        if text not in addresses:
            addresses.append(text)
    if not addresses:
        raise NetworkError(f"cannot resolve host {host!r}: no addresses")
    for text in addresses:
        policy.check_address(ipaddress.ip_address(text), via=f"{host} resolves to it")
    return addresses
