"""Which URLs the service may fetch or call, decided before any connection.

``video_url`` and ``callback_url`` come from customers, and the service
fetches or POSTs to them from inside the cluster. Without a check, a customer
could make the service reach its own Redis, a cloud metadata endpoint
(169.254.169.254) or anything else on the private network (server-side
request forgery). :func:`check_url` therefore accepts only public http(s)
addresses: it parses the URL with httpx (the same parser that later sends the
request, so the two cannot disagree about the host), refuses credentials and
odd host spellings, resolves the host and requires *every* returned address
to be public. The caller then connects to one of those checked addresses
(see ``engines.net.fetch``), so a second DNS answer can never
swap in a private one.

The refused ranges are listed here explicitly instead of relying on
``ipaddress``'s ``is_global``/``is_private`` alone: those flags call IPv4
multicast "global", differ between Python patch releases and know nothing of
IPv4 addresses embedded in IPv6 (``::ffff:127.0.0.1``, 6to4, NAT64).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from collections.abc import Iterable

import httpx

from engines.errors import InvalidUrl

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 8192
DEFAULT_PORTS = {"http": 80, "https": 443}

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

#: IPv4 ranges that are not publicly routable unicast (IANA special-purpose registry).
REFUSED_V4: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_V4("0.0.0.0/8"), "'this network'"),
    (_V4("10.0.0.0/8"), "private"),
    (_V4("100.64.0.0/10"), "shared (carrier-grade NAT)"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("169.254.0.0/16"), "link-local"),
    (_V4("172.16.0.0/12"), "private"),
    (_V4("192.0.0.0/24"), "IETF protocol assignment"),
    (_V4("192.0.2.0/24"), "documentation"),
    (_V4("192.88.99.0/24"), "6to4 relay anycast"),
    (_V4("192.168.0.0/16"), "private"),
    (_V4("198.18.0.0/15"), "benchmarking"),
    (_V4("198.51.100.0/24"), "documentation"),
    (_V4("203.0.113.0/24"), "documentation"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("240.0.0.0/4"), "reserved"),  # includes 255.255.255.255 (broadcast)
)

#: IPv6 ranges named for the refusal message; anything outside 2000::/3 is refused too.
REFUSED_V6: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("::/128"), "unspecified"),
    (_V6("::1/128"), "loopback"),
    (_V6("::/8"), "reserved"),
    (_V6("64:ff9b:1::/48"), "local-use NAT64"),
    (_V6("100::/64"), "discard-only"),
    (_V6("2001::/23"), "IETF protocol assignment"),
    (_V6("2001:db8::/32"), "documentation"),
    (_V6("3fff::/20"), "documentation"),
    (_V6("fc00::/7"), "unique local (private)"),
    (_V6("fe80::/10"), "link-local"),
    (_V6("fec0::/10"), "site-local"),
    (_V6("ff00::/8"), "multicast"),
)

GLOBAL_UNICAST_V6 = _V6("2000::/3")
NAT64_V6 = _V6("64:ff9b::/96")
SIX_TO_FOUR_V6 = _V6("2002::/16")


@dataclasses.dataclass(frozen=True)
class UrlPolicy:
    """What a URL may point at.

    Attributes:
        allow_private: skip the address check entirely. Only for tests and
            single-machine setups that fetch from loopback servers.
        allowed_hosts: host names (lowercase, or IP literals) exempt from the
            address and port checks, for a named internal service the operator
            trusts. Not an allow-list: other public hosts remain allowed.
        allowed_ports: ports any other host may use. Only the web's ports by
            default, so a public address cannot be used to knock on a mail,
            database or cache port (``http://1.2.3.4:6379/``).
        schemes: accepted URL schemes.
    """

    allow_private: bool = False
    allowed_hosts: frozenset[str] = frozenset()
    allowed_ports: frozenset[int] = frozenset(DEFAULT_PORTS.values())
    schemes: tuple[str, ...] = ("http", "https")

    def trusts(self, host: str) -> bool:
        """Whether the operator named ``host`` as trusted."""
        return _normal_host(host) in {_normal_host(h) for h in self.allowed_hosts}

    def exempts(self, host: str) -> bool:
        """Whether ``host`` skips the address check."""
        return self.allow_private or self.trusts(host)


@dataclasses.dataclass(frozen=True)
class ResolvedUrl:
    """A URL that passed the policy, with the addresses its host resolved to.

    Attributes:
        url: the URL as httpx normalises it, without fragment.
        scheme: ``http`` or ``https`` (lowercase).
        host: ASCII host (IDNA-encoded, lowercase, no brackets, no trailing dot).
        port: the explicit port or the scheme's default.
        addresses: every address the host resolved to, all allowed; for an IP
            literal, that address. Empty only for a name checked with ``resolve=False``.
    """

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[IPAddress, ...]

    @property
    def host_is_ip(self) -> bool:
        return _ip_literal(self.host) is not None


def address_refusal(ip: IPAddress) -> str | None:
    """Why ``ip`` may not be contacted (e.g. ``"loopback"``), or None when it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = embedded_ipv4(ip)
        if embedded is not None:
            return address_refusal(embedded)
        return _refusal_v6(ip)
    for network, reason in REFUSED_V4:
        if ip in network:
            return reason
    return None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, NAT64 or 6to4 address leads to."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in NAT64_V6:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in SIX_TO_FOUR_V6:
        return ip.sixtofour
    return None


def _refusal_v6(ip: ipaddress.IPv6Address) -> str | None:
    if ip.scope_id:
        return "scoped link address"
    for network, reason in REFUSED_V6:
        if ip in network:
            return reason
    if ip not in GLOBAL_UNICAST_V6:
        return "outside global unicast 2000::/3"
    return None


def check_url(url: str, policy: UrlPolicy, *, resolve: bool = True) -> ResolvedUrl:
    """Parse, validate and (by default) resolve ``url``; raise InvalidUrl saying why not.

    With ``resolve=False`` only the syntax and an IP-literal host are checked,
    which is what a request handler can afford; the worker checks again with
    resolution right before it connects.
    """
    parsed = _parse(url)
    scheme, host, port = _parts(parsed, policy)
    if port not in policy.allowed_ports and not policy.trusts(host):
        allowed = ", ".join(str(p) for p in sorted(policy.allowed_ports))
        raise InvalidUrl(f"URL refused: port {port} is not allowed; use {allowed}")
    literal = _ip_literal(host)
    if literal is not None:
        addresses: tuple[IPAddress, ...] = (literal,)
    elif resolve:
        addresses = resolve_host(host, port)
    else:
        addresses = ()
    if not policy.exempts(host):
        _check_addresses(host, literal is not None, addresses)
    return ResolvedUrl(str(parsed.copy_with(fragment=None)), scheme, host, port, addresses)


def resolve_host(host: str, port: int) -> tuple[IPAddress, ...]:
    """Every address ``host`` resolves to (system resolver), in resolver order."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise InvalidUrl(f"URL refused: host {host!r} could not be resolved") from exc
    found = dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos)
    if not found:
        raise InvalidUrl(f"URL refused: host {host!r} has no address")
    return tuple(found)


def _parse(url: str) -> httpx.URL:
    if not isinstance(url, str) or not url.strip():
        raise InvalidUrl("URL refused: empty URL")
    if len(url) > MAX_URL_LENGTH:
        raise InvalidUrl(f"URL refused: longer than {MAX_URL_LENGTH} characters")
    try:
        return httpx.URL(url.strip())
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise InvalidUrl(f"URL refused: malformed URL ({exc})") from exc


def _parts(parsed: httpx.URL, policy: UrlPolicy) -> tuple[str, str, int]:
    scheme = parsed.scheme.lower()
    if scheme not in policy.schemes:
        raise InvalidUrl(f"URL refused: scheme {scheme or '(none)'!r} is not allowed; use {' or '.join(policy.schemes)}")
    if parsed.userinfo:
        raise InvalidUrl("URL refused: credentials in the URL are not allowed")
    host = _normal_host(parsed.raw_host.decode("ascii", errors="replace"))
    if not host:
        raise InvalidUrl("URL refused: the URL has no host")
    if "%" in host:
        raise InvalidUrl("URL refused: IPv6 zone identifiers are not allowed")
    if _ip_literal(host) is None and _legacy_ipv4(host):
        raise InvalidUrl(f"URL refused: host {host!r} is a non-standard IPv4 spelling; write it as a.b.c.d")
    port = parsed.port if parsed.port is not None else DEFAULT_PORTS.get(scheme, 0)
    if not 1 <= port <= 65535:
        raise InvalidUrl(f"URL refused: port {port} is out of range 1-65535")
    return scheme, host, port


def _check_addresses(host: str, literal: bool, addresses: Iterable[IPAddress]) -> None:
    for ip in addresses:
        reason = address_refusal(ip)
        if reason is None:
            continue
        # Only echo the address the caller wrote; a resolved internal address stays private.
        where = f"address {ip}" if literal else f"host {host!r} resolves to an address that"
        raise InvalidUrl(f"URL refused: {where} is not public ({reason})")


def _normal_host(host: str) -> str:
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _legacy_ipv4(host: str) -> bool:
    """``127.1``, ``2130706433``, ``0x7f.0.0.1``: forms inet_aton accepts but are no dotted quad."""
    try:
        socket.inet_aton(host)
    except (OSError, UnicodeError, ValueError):
        return False
    return True
