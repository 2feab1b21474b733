"""DNS pinning: the connection goes to the address validated at resolution, never to a second answer.

The only tests that fake DNS: ``socket.getaddrinfo`` is replaced in-process for ``*.test`` names
(other names go to the real resolver) so the resolver can answer differently the second time.
Every answer is a loopback address, so nothing leaves the machine.
"""

from __future__ import annotations

import datetime
import socket
import ssl
from collections.abc import Callable

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from docmunch.errors import BlockedAddress, FetchError
from docmunch.fetch import AddressPolicy, Fetcher
from docmunch.fetch.transport import PinningBackend

REAL_GETADDRINFO = socket.getaddrinfo


class FakeDNS:
    """``getaddrinfo`` for ``*.test``: the n-th lookup of a name returns ``answers[name][n]``
    (the last entry repeats)."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.lookups: list[str] = []

    def __call__(self, host, port, *args, **kwargs):
        if not isinstance(host, str) or not host.endswith(".test"):
            return REAL_GETADDRINFO(host, port, *args, **kwargs)
        count = self.lookups.count(host)
        self.lookups.append(host)
        replies = self.answers[host]
        addresses = replies[min(count, len(replies) - 1)]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses]


@pytest.fixture
def fake_dns(monkeypatch) -> Callable[[dict[str, list[list[str]]]], FakeDNS]:
    def install(answers: dict[str, list[list[str]]]) -> FakeDNS:
        dns = FakeDNS(answers)
        monkeypatch.setattr(socket, "getaddrinfo", dns)
        return dns

    return install


LOOPBACK_ONLY = AddressPolicy.from_env(False, ["127.0.0.1/32"])


def test_backend_connects_to_the_validated_answer(server, fake_dns):
    # First answer allowed; a second lookup would get 127.0.0.2, refused by the policy (and with
    # nothing listening there): a connection that succeeds proves no second lookup happened.
    dns = fake_dns({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
    backend = PinningBackend(LOOPBACK_ONLY)
    stream = backend.connect_tcp("rebind.test", server.port, timeout=1.0)
    try:
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", server.port)
    finally:
        stream.close()
    assert dns.lookups == ["rebind.test"]
    # A new connection resolves again, and that answer is validated too.
    with pytest.raises(
        BlockedAddress, match=r"127\.0\.0\.2 is a loopback address \(rebind\.test resolves to it\)"
    ):
        backend.connect_tcp("rebind.test", server.port, timeout=1.0)


def test_fetch_uses_one_lookup_and_keeps_the_host_header(server, fake_dns):
    dns = fake_dns({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
    server.route("/p", server.Reply(body=b"<p>pinned"))
    with Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=False, rate_per_host=None) as f:
        result = f.fetch(f"http://rebind.test:{server.port}/p")
    assert result.text == "<p>pinned" and result.remote_address == "127.0.0.1"
    assert dns.lookups == ["rebind.test"]
    assert server.seen[0].headers["host"] == f"rebind.test:{server.port}"


def test_one_bad_answer_refuses_the_host(server, fake_dns):
    fake_dns({"mixed.test": [["127.0.0.1", "10.0.0.1"]]})
    server.route("/", server.Reply())
    with (
        Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=False) as f,
        pytest.raises(BlockedAddress, match=r"10\.0\.0\.1 is a private address") as info,
    ):
        f.fetch(f"http://mixed.test:{server.port}/")
    assert info.value.url == f"http://mixed.test:{server.port}/"
    assert server.seen == []


def test_redirect_to_a_name_resolving_to_metadata_is_refused(server, fake_dns):
    fake_dns({"evil.test": [["169.254.169.254"]]})
    server.route("/go", server.Reply(302, {"Location": "http://evil.test/latest/meta-data/"}, b""))
    with (
        Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=False) as f,
        pytest.raises(BlockedAddress, match="cloud metadata"),
    ):
        f.fetch(server.url("/go"))
    assert server.paths() == ["/go"]


# --- TLS: SNI and certificate checks stay on the host name while the socket goes to the IP ------


def _certificates(tmp_path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throwaway CA and a leaf certificate for ``docs.test``: (server context, client context)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "docmunch test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "docs.test")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("docs.test")]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "leaf.pem", tmp_path / "leaf.key"
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert_file, key_file)
    client_ctx = ssl.create_default_context(cadata=ca.public_bytes(serialization.Encoding.PEM).decode())
    return server_ctx, client_ctx


def test_tls_sni_and_certificate_use_the_host_name(tmp_path, fake_dns, start_server):
    server_ctx, client_ctx = _certificates(tmp_path)
    sni: list[str | None] = []
    server_ctx.sni_callback = lambda _sock, name, _ctx: sni.append(name)
    srv = start_server(tls=server_ctx)
    dns = fake_dns({"docs.test": [["127.0.0.1"], ["127.0.0.2"]], "other.test": [["127.0.0.1"]]})
    srv.route("/secure", srv.Reply(body=b"<p>over TLS"))
    with Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=False, verify=client_ctx) as f:
        result = f.fetch(f"https://docs.test:{srv.port}/secure")
        assert result.text == "<p>over TLS" and result.remote_address == "127.0.0.1"
        assert sni == ["docs.test"] and dns.lookups == ["docs.test"]
        assert srv.seen[0].headers["host"] == f"docs.test:{srv.port}"
        # Same IP, another name: the certificate is checked against the name, so this fails.
        with pytest.raises(FetchError, match=r"CERTIFICATE_VERIFY_FAILED|hostname"):
            f.fetch(f"https://other.test:{srv.port}/secure")


# --- proxies from the environment --------------------------------------------------------------------


def test_env_proxy_is_used_and_targets_are_still_checked(server, fake_dns, monkeypatch):
    # The loopback server plays the proxy: an HTTP proxy receives the absolute URL as the path.
    # (public.test answers 127.0.0.1, allowed below, so even a routing bug sends nothing off-box:
    # a direct attempt would go to 127.0.0.1:80 and show up as a connection error.)
    fake_dns({"public.test": [["127.0.0.1"]], "internal.test": [["10.1.2.3"]]})
    server.route("http://public.test/doc", server.Reply(body=b"<p>via proxy"))
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
    monkeypatch.setenv("NO_PROXY", "bypass.test")
    with Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=True) as f:
        result = f.fetch("http://public.test/doc")
        assert result.text == "<p>via proxy" and server.paths() == ["http://public.test/doc"]
        with pytest.raises(BlockedAddress, match=r"10\.1\.2\.3 is a private address"):
            f.fetch("http://internal.test/")
        with pytest.raises(BlockedAddress, match="cloud metadata"):
            f.fetch("http://169.254.169.254/")
    assert server.paths() == ["http://public.test/doc"]  # refused targets never reached the proxy


def test_no_proxy_hosts_connect_directly(server, fake_dns, monkeypatch):
    fake_dns({"bypass.test": [["127.0.0.1"]]})
    server.route("/direct", server.Reply(body=b"<p>direct"))
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # would fail: nothing listens on port 9
    monkeypatch.setenv("NO_PROXY", "bypass.test")
    with Fetcher(allowed_networks=["127.0.0.1/32"], trust_env=True) as f:
        result = f.fetch(f"http://bypass.test:{server.port}/direct")
    assert result.text == "<p>direct" and result.remote_address == "127.0.0.1"
