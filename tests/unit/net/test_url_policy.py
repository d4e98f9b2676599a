"""UrlPolicy / check_url: syntax refusals, address ranges (IPv4, IPv6, embedded IPv4) and resolution."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.errors import InvalidInput, InvalidUrl
from engines.net.urls import REFUSED_V4, REFUSED_V6, UrlPolicy, address_refusal, check_url

DEFAULT = UrlPolicy()
V4 = ipaddress.IPv4Address
V6 = ipaddress.IPv6Address

#: Networks whose every address must be refused, beyond the module's own table.
MUST_REFUSE = [
    "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
    "0.0.0.0/8", "224.0.0.0/4", "240.0.0.0/4",
    "::1/128", "::/128", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32", "fec0::/10",
]  # fmt: skip

#: Networks of well-known public services, allowed whole.
PUBLIC = ["8.8.8.0/24", "1.1.1.0/24", "151.101.0.0/16", "13.32.0.0/15", "2001:4860::/32", "2606:4700::/32", "2a00:1450::/32"]


def addresses_in(cidr: str) -> st.SearchStrategy[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    net = ipaddress.ip_network(cidr)
    return st.integers(int(net.network_address), int(net.broadcast_address)).map(lambda i: V4(i) if net.version == 4 else V6(i))


def literal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return f"http://{ip}/v.mp4" if ip.version == 4 else f"http://[{ip}]/v.mp4"


refused_networks = st.sampled_from(MUST_REFUSE + [str(n) for n, _ in REFUSED_V4 + REFUSED_V6])


@settings(max_examples=300, deadline=None)
@given(refused_networks.flatmap(addresses_in))
def test_every_address_of_a_refused_range_is_refused(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    assert address_refusal(ip) is not None
    with pytest.raises(InvalidUrl, match="is not public"):
        check_url(literal(ip), DEFAULT)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PUBLIC).flatmap(addresses_in))
def test_public_addresses_are_allowed(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    assert address_refusal(ip) is None
    assert check_url(literal(ip), DEFAULT).addresses == (ip,)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1).map(V4))
def test_embedded_ipv4_gets_the_verdict_of_the_ipv4_address(ip: ipaddress.IPv4Address) -> None:
    verdict = address_refusal(ip) is None
    mapped = V6(f"::ffff:{ip}")
    nat64 = V6(int(V6("64:ff9b::")) | int(ip))
    six_to_four = V6((0x2002 << 112) | (int(ip) << 80))
    assert [address_refusal(x) is None for x in (mapped, nat64, six_to_four)] == [verdict] * 3


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**32 - 1).map(V4))
def test_ipv4_not_global_by_the_stdlib_is_refused(ip: ipaddress.IPv4Address) -> None:
    if not ip.is_global or ip.is_multicast:
        assert address_refusal(ip) is not None


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**128 - 1).map(V6))
def test_ipv6_not_global_by_the_stdlib_is_refused(ip: ipaddress.IPv6Address) -> None:
    if ip.ipv4_mapped is None and (not ip.is_global or ip.is_multicast):
        assert address_refusal(ip) is not None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0/",
        "http://[64:ff9b::a00:1]/",
        "http://[2002:c0a8:101::1]/",
        "https://255.255.255.255/",
    ],
)
def test_default_policy_refuses_internal_literals(url: str) -> None:
    with pytest.raises(InvalidUrl, match=r"address .* is not public"):
        check_url(url, DEFAULT)
    assert check_url(url, UrlPolicy(allow_private=True)).url.startswith(url.split("/")[0])


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/v.mp4", "scheme 'ftp' is not allowed"),
        ("file:///etc/passwd", "scheme 'file' is not allowed"),
        ("gopher://example.com/", "scheme 'gopher'"),
        ("//example.com/v.mp4", "scheme '(none)'"),
        ("http:///v.mp4", "has no host"),
        ("http://user:pw@example.com/v.mp4", "credentials in the URL"),
        ("http://example.com\\@127.0.0.1/", "credentials in the URL"),
        ("http://example.com:0/", "port 0 is out of range"),
        ("http://example.com:70000/", "port 70000 is out of range"),
        ("http://example.com:abc/", "malformed URL"),
        ("http://127.1/", "non-standard IPv4"),
        ("http://2130706433/", "non-standard IPv4"),
        ("http://0x7f.0.0.1/", "non-standard IPv4"),
        ("http://[fe80::1%25eth0]/", "zone identifiers"),
        ("", "empty URL"),
        ("http://example.com/" + "a" * 9000, "longer than"),
    ],
)
def test_malformed_urls_are_refused_with_the_reason(url: str, message: str) -> None:
    with pytest.raises(InvalidUrl, match=re.escape(message)) as info:
        check_url(url, UrlPolicy(allow_private=True), resolve=False)
    assert isinstance(info.value, InvalidInput)


FakeDns = Callable[[dict[str, list[str]]], list[str]]


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    """Answer getaddrinfo from a table; unknown names fail like NXDOMAIN. Returns the query log."""
    queries: list[str] = []

    def install(table: dict[str, list[str]]) -> list[str]:
        def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
            queries.append(host)
            if host not in table:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in table[host]]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        return queries

    return install


def test_all_resolved_addresses_must_be_public(fake_dns: FakeDns) -> None:
    fake_dns({"mixed.test": ["8.8.8.8", "10.1.2.3"], "ok.test": ["8.8.8.8", "2001:4860:4860::8888"]})
    with pytest.raises(InvalidUrl, match=re.escape("'mixed.test' resolves to an address that is not public")) as info:
        check_url("https://mixed.test/v.mp4", DEFAULT)
    assert "10.1.2.3" not in str(info.value)  # internal addresses are not echoed back
    resolved = check_url("https://ok.test:8443/v.mp4#frag", UrlPolicy(allowed_ports=frozenset({443, 8443})))
    assert resolved.addresses == (V4("8.8.8.8"), V6("2001:4860:4860::8888"))
    assert (resolved.host, resolved.port, resolved.url) == ("ok.test", 8443, "https://ok.test:8443/v.mp4")


def test_localhost_and_unresolvable_names_are_refused(fake_dns: FakeDns) -> None:
    queries = fake_dns({"localhost": ["127.0.0.1", "::1"]})
    with pytest.raises(InvalidUrl, match=re.escape("not public (loopback)")):
        check_url("http://localhost/", DEFAULT)
    with pytest.raises(InvalidUrl, match=re.escape("'nowhere.test' could not be resolved")) as info:
        check_url("http://nowhere.test/", DEFAULT)
    assert isinstance(info.value.__cause__, socket.gaierror)
    assert queries == ["localhost", "nowhere.test"]


def test_allowed_hosts_exempt_only_the_named_host(fake_dns: FakeDns) -> None:
    fake_dns({"minio.internal": ["10.0.0.5"], "other.internal": ["10.0.0.6"]})
    policy = UrlPolicy(allowed_hosts=frozenset({"MinIO.internal."}))
    assert check_url("http://minio.internal:9000/b", policy).addresses == (V4("10.0.0.5"),)
    with pytest.raises(InvalidUrl):
        check_url("http://other.internal/", policy)


def test_resolve_false_checks_literals_but_not_names(fake_dns: FakeDns) -> None:
    queries = fake_dns({})
    assert check_url("https://video.test/a.mp4", DEFAULT, resolve=False).addresses == ()
    with pytest.raises(InvalidUrl):
        check_url("http://192.168.1.1/", DEFAULT, resolve=False)
    assert queries == []


def test_idn_host_is_checked_in_its_ascii_form(fake_dns: FakeDns) -> None:
    queries = fake_dns({"xn--bcher-kva.test": ["8.8.4.4"]})
    assert check_url("http://Bücher.test/x", DEFAULT).host == "xn--bcher-kva.test"
    assert queries == ["xn--bcher-kva.test"]


def test_scheme_list_is_configurable() -> None:
    with pytest.raises(InvalidUrl, match="use https"):
        check_url("http://8.8.8.8/", UrlPolicy(schemes=("https",)))
    assert check_url("https://8.8.8.8/", UrlPolicy(schemes=("https",))).port == 443


@pytest.mark.parametrize(
    "url", ["http://1.1.1.1:6379/", "https://8.8.8.8:22/", "http://example.com:25/", "https://example.com:8443/a.mp4"]
)
def test_only_web_ports_by_default(url: str) -> None:
    with pytest.raises(InvalidUrl, match=r"port \d+ is not allowed; use 80, 443"):
        check_url(url, DEFAULT, resolve=False)


def test_configured_ports_and_trusted_hosts_may_use_other_ports(fake_dns: FakeDns) -> None:
    fake_dns({"cdn.test": ["8.8.8.8"], "minio.internal": ["10.0.0.5"]})
    assert check_url("https://cdn.test:8443/a.mp4", UrlPolicy(allowed_ports=frozenset({443, 8443}))).port == 8443
    trusted = UrlPolicy(allowed_hosts=frozenset({"minio.internal"}))
    assert check_url("http://minio.internal:9000/b", trusted).port == 9000
    with pytest.raises(InvalidUrl, match="port 9000 is not allowed"):
        check_url("http://cdn.test:9000/b", trusted)  # trust is per host, not a blanket exemption
    with pytest.raises(InvalidUrl, match="port 6379 is not allowed"):
        check_url("http://1.1.1.1:6379/", UrlPolicy(allow_private=True))  # allowing private addresses keeps the port rule
