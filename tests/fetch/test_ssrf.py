"""SSRF guard units: host parsing in every spelling, address classification, policies."""

from __future__ import annotations

import ipaddress

import pytest

from docmunch.errors import BlockedAddress, FetchError
from docmunch.fetch import AddressPolicy, check_url
from docmunch.fetch.ssrf import classify, parse_host, resolve

# host as written in a URL -> the address a browser (WHATWG URL Standard) would use
SPELLINGS = [
    ("127.0.0.1", "127.0.0.1"),
    ("2130706433", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"),
    ("0x7F.0.0.1", "127.0.0.1"),
    ("127.1", "127.0.0.1"),
    ("127.0.1", "127.0.0.1"),
    ("0x7f000001", "127.0.0.1"),
    ("017700000001", "127.0.0.1"),
    ("127.0.0.1.", "127.0.0.1"),
    ("0", "0.0.0.0"),
    ("10.0.0.1", "10.0.0.1"),
    ("0xa.0.0.1", "10.0.0.1"),
    ("169.254.169.254", "169.254.169.254"),
    ("2852039166", "169.254.169.254"),
    ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
    ("[::1]", "::1"),
    ("[0:0:0:0:0:0:0:1]", "::1"),
    ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
    ("[64:ff9b::a00:1]", "64:ff9b::a00:1"),
    ("[2002:7f00:1::]", "2002:7f00:1::"),
]


@pytest.mark.parametrize(("host", "address"), SPELLINGS)
def test_parse_host_reads_odd_spellings(host, address):
    assert parse_host(host) == ipaddress.ip_address(address)


@pytest.mark.parametrize(
    "host", ["example.com", "docs.python.org", "1.2.3.4.example", "0x7f.example", "xn--bcher-kva.de"]
)
def test_parse_host_leaves_names_alone(host):
    assert parse_host(host) is None


@pytest.mark.parametrize(
    "host", ["1.2.3.999", "0x100000000", "1.2.3.4.5", "0x7g.1", "08.1.1.1", "[::zz]", "1..2"]
)
def test_parse_host_rejects_invalid_numeric_hosts(host):
    with pytest.raises(FetchError, match="invalid"):
        parse_host(host)


@pytest.mark.parametrize(
    ("address", "phrase"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.255", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "this network"),
        ("192.0.2.1", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("fc00::1", "unique local"),
        ("fd12:3456::1", "unique local"),
        ("fe80::1", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "IPv4-mapped"),
        ("::ffff:8.8.8.8", "IPv4-mapped"),  # refused even when the embedded address is public
        ("::127.0.0.1", "IPv4-compatible"),
        ("64:ff9b::a00:1", "embedding 10.0.0.1"),
        ("64:ff9b::7f00:1", "embedding 127.0.0.1"),
        ("64:ff9b::a9fe:a9fe", "embedding 169.254.169.254"),
        ("64:ff9b:1::a00:1", "local-use NAT64"),
        ("2002:7f00:1::", "embedding 127.0.0.1"),
        ("2002:a00:1::1", "embedding 10.0.0.1"),
        ("2002:a9fe:a9fe::", "embedding 169.254.169.254"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "embedding 127.0.0.1"),  # Teredo client 127.0.0.1
        ("2001:0:a00:1::1", "embedding 10.0.0.1"),  # Teredo server 10.0.0.1
        ("2001:db8::1", "documentation"),
        ("100::1", "discard-only"),
        ("4000::1", "outside 2000::/3"),
    ],
)
def test_classify_refuses(address, phrase):
    reason = classify(ipaddress.ip_address(address))
    assert reason is not None and phrase in reason


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "93.184.216.34",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ],
)
def test_classify_allows_public(address):
    assert classify(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0x7f.1/",
        "http://127.1/",
        "https://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a00:1]/",
        "http://[2002:7f00:1::]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://user:pw@10.0.0.1/",
        "http://localhost:8000/",
        "http://LOCALHOST./",
        "http://api.localhost/",
        "http://[fe80::1%25eth0]/",
        "http://%31%32%37.0.0.1/",
        "http://127.0.0.1%2e/",
        "http://[::ffff:7f00:1]/",
    ],
)
def test_check_url_refuses_private_hosts(url):
    with pytest.raises(BlockedAddress, match="use --allow-private") as info:
        check_url(url, allow_private=False)
    assert info.value.url == url and info.value.reason


def test_refusal_message_names_address_and_spelling():
    with pytest.raises(BlockedAddress) as info:
        check_url("http://0x7f.1/", allow_private=False)
    assert str(info.value) == (
        "127.0.0.1 is a loopback address (spelled 0x7f.1); use --allow-private to fetch from private networks"
    )
    with pytest.raises(BlockedAddress) as info:
        check_url("http://127.0.0.1/", allow_private=False)
    assert (
        str(info.value)
        == "127.0.0.1 is a loopback address; use --allow-private to fetch from private networks"
    )


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.com/", "gopher://x/", "javascript:alert(1)", "example.com/page"],
)
def test_check_url_refuses_other_schemes(url):
    with pytest.raises(BlockedAddress, match="only http and https") as info:
        check_url(url, allow_private=True)
    assert info.value.reason == "scheme"


@pytest.mark.parametrize(
    "url", ["https://docs.python.org/3/", "http://8.8.8.8/", "http://[2606:4700::1111]:8443/x"]
)
def test_check_url_passes_public(url):
    check_url(url, allow_private=False)


def test_allow_private_lifts_address_checks():
    check_url("http://127.0.0.1/", allow_private=True)
    check_url("http://localhost/", policy=AddressPolicy(allow_private=True))
    assert resolve("10.0.0.1", 80, AddressPolicy(allow_private=True)) == ["10.0.0.1"]


def test_allowed_networks_lift_only_those_networks():
    policy = AddressPolicy.from_env(False, ["127.0.0.1/32"])
    check_url("http://127.0.0.1:9/", policy=policy)
    for url in ("http://127.0.0.2/", "http://[::1]/", "http://10.0.0.1/", "http://[::ffff:127.0.0.1]/"):
        with pytest.raises(BlockedAddress):
            check_url(url, policy=policy)


def test_policy_from_env(monkeypatch):
    monkeypatch.setenv("DOCMUNCH_ALLOW_PRIVATE", "1")
    assert AddressPolicy.from_env().allow_private
    assert not AddressPolicy.from_env(False).allow_private
    monkeypatch.setenv("DOCMUNCH_ALLOW_PRIVATE", "")
    assert not AddressPolicy.from_env().allow_private
    monkeypatch.delenv("DOCMUNCH_ALLOW_PRIVATE")
    assert not AddressPolicy.from_env().allow_private


def test_resolve_literals_without_dns_and_refuses_localhost_name():
    policy = AddressPolicy()
    assert resolve("8.8.8.8", 80, policy) == ["8.8.8.8"]
    with pytest.raises(BlockedAddress, match=r"spelled 0x7f\.1"):
        resolve("0x7f.1", 80, policy)
    with pytest.raises(BlockedAddress, match="loopback name"):
        resolve("localhost", 80, policy)
