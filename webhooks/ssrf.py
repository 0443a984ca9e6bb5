"""The SSRF guard: a webhook URL may only lead to a public address on the internet.

A user chooses the URL the server will POST to, so without a guard anyone
could make the server call its own admin, a database on the private network or
the cloud provider's metadata service. The guard is applied when an endpoint
is registered (a clear refusal) and again before every delivery (DNS may have
changed since):

- the scheme is ``https`` (``http`` only where ``WEBHOOK_ALLOW_HTTP`` is set,
  in development and tests), and the URL carries no user name or password;
- a host written as a number in any form other than the four plain decimal
  parts (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``) is refused
  outright: resolvers read those as addresses, and no public service needs them;
- the host is resolved once, and every address it resolves to must be global:
  not loopback, private, site-local, link-local, multicast, reserved, unspecified
  or a cloud metadata service (an IPv6 one only in 2000::/3, the global unicast
  range), also when an IPv6 address carries an IPv4 one inside
  (IPv4-mapped and -compatible, 6to4, NAT64, Teredo);
- the caller connects to the checked address (``Target.addresses``), never to
  the name again, so a second DNS answer cannot point elsewhere (rebinding).

``WEBHOOK_ALLOWED_HOSTS`` and ``WEBHOOK_ALLOWED_NETWORKS`` let an operator (and
the tests) deliver to a receiver on a private network.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Metadata services of the clouds: most are link-local or private anyway, but
# some (Azure's wire server, Alibaba's) are not, and each deserves its own name.
CLOUD_METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, ...
        "169.254.170.2",  # AWS ECS task metadata
        "168.63.129.16",  # Azure wire server
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS over IPv6
    )
)
NAT64_PREFIXES = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
# A label of a number as the C resolver reads it: decimal, octal (leading 0) or hex (0x).
_NUMERIC_LABEL = re.compile(r"0[xX][0-9a-fA-F]*|[0-9]+")
_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


class UnsafeURL(Exception):
    """A URL the server will not call; ``reason`` is a stable code, the message says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Target:
    """A checked URL: connect to one of ``addresses`` (in order), and send
    ``host`` as the Host header and the TLS server name."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def resolve_host(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, in the resolver's order. Tests
    replace this function to stand in for DNS."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = str(sockaddr[0]).split("%", 1)[0]
        if address not in addresses:
            addresses.append(address)
    return addresses


def check_url(url: str) -> Target:
    """``url`` parsed, resolved and checked; raises ``UnsafeURL`` if any part is refused."""
    scheme, host, port, path = _parse(url)
    literal = _address_literal(host)
    if literal is not None:
        addresses = [literal]
    else:
        host = _ascii_name(host)  # what DNS, the Host header and the TLS server name are given
        try:
            resolved = resolve_host(host, port)
        except (OSError, UnicodeError) as error:
            raise UnsafeURL("unresolvable", f"The host {host!r} does not resolve: {error}.") from error
        if not resolved:
            raise UnsafeURL("unresolvable", f"The host {host!r} has no address.")
        addresses = [ipaddress.ip_address(address) for address in resolved]
    if host not in _allowed_hosts():
        for address in addresses:
            reason = refusal(address)
            if reason is not None and not _in_allowed_network(address):
                shown = "" if literal is not None else f" resolves to {address}, which"
                raise UnsafeURL("address_refused", f"The host {host!r}{shown} is {reason}: only public addresses.")
    return Target(scheme, host, port, path, tuple(str(address) for address in addresses))


def refusal(address: IPAddress) -> str | None:
    """Why the server must not connect to ``address``, or None if it may."""
    if address in CLOUD_METADATA:
        return "a cloud metadata service"
    if isinstance(address, ipaddress.IPv6Address):
        embedded, form = _embedded_ipv4(address)
        if embedded is not None:
            inner = refusal(embedded)
            if inner is not None:
                return f"{inner} ({embedded}) inside {form}"
            if form in ("an IPv4-mapped IPv6 address", "an IPv4-compatible IPv6 address"):
                return f"{form}; give the IPv4 address itself"
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("site-local", isinstance(address, ipaddress.IPv6Address) and address.is_site_local),
        ("not globally routable", not address.is_global),
        # IPv6 unicast on the internet is 2000::/3 alone; whatever else the
        # ipaddress tables miss (fec0::/10 is deprecated, not "private") stays out.
        ("not globally routable", isinstance(address, ipaddress.IPv6Address) and address not in GLOBAL_UNICAST_V6),
    )
    return next((f"a {name} address" if name != "not globally routable" else name for name, hit in checks if hit), None)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address | None, str]:
    """The IPv4 address an IPv6 address carries (and which form), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped, "an IPv4-mapped IPv6 address"
    if address.sixtofour is not None:
        return address.sixtofour, "a 6to4 address"
    if address.teredo is not None:
        server, client = address.teredo
        return (client if refusal(client) is not None else server), "a Teredo address"
    for prefix in NAT64_PREFIXES:
        if address in prefix:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "a NAT64 address"
    if address in IPV4_COMPATIBLE and int(address) > 1:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "an IPv4-compatible IPv6 address"
    return None, ""


def _parse(url: str) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise UnsafeURL("bad_url", f"This is not a valid URL: {error}.") from error
    scheme = parts.scheme.lower()
    allowed = ("https", "http") if settings.WEBHOOK_ALLOW_HTTP else ("https",)
    if scheme not in allowed:
        raise UnsafeURL("scheme_refused", "Webhook URLs must use https.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("credentials_in_url", "A webhook URL may not carry a user name or password.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise UnsafeURL("bad_url", "The URL has no host.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, host, port or (443 if scheme == "https" else 80), path


def _address_literal(host: str) -> IPAddress | None:
    """The address if ``host`` is written as one (None for a name); refuses numbers in other forms."""
    if ":" in host:  # an IPv6 literal (urlsplit has removed the brackets)
        try:
            return ipaddress.IPv6Address(host)
        except ValueError as error:
            raise UnsafeURL("bad_url", f"{host!r} is not a valid IPv6 address.") from error
    labels = host.split(".")
    if all(_NUMERIC_LABEL.fullmatch(label) for label in labels):
        try:
            return ipaddress.IPv4Address(host)  # four plain decimal parts only
        except ValueError:
            decoded = _legacy_ipv4(labels)
            means = f" (read as {decoded})" if decoded is not None else ""
            raise UnsafeURL(
                "numeric_host", f"The host {host!r}{means} is a number in an unusual form: write a host name."
            ) from None
    return None


def _ascii_name(host: str) -> str:
    """A host name in its ASCII (IDNA) form, letters, digits and hyphens only."""
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as error:
        raise UnsafeURL("bad_url", f"{host!r} is not a valid host name.") from error
    if not _HOST_NAME.fullmatch(ascii_host):
        raise UnsafeURL("bad_url", f"{host!r} is not a valid host name.")
    return ascii_host


def _legacy_ipv4(labels: list[str]) -> ipaddress.IPv4Address | None:
    """The address ``inet_aton`` makes of 1 to 4 numeric parts (the last fills the rest), or None."""
    if not 1 <= len(labels) <= 4:
        return None
    values = []
    for label in labels:
        if label[:2].lower() == "0x":
            values.append(int(label[2:] or "0", 16))
        elif len(label) > 1 and label.startswith("0"):
            if not set(label) <= set("01234567"):
                return None
            values.append(int(label, 8))
        else:
            values.append(int(label))
    *leading, last = values
    if any(value > 255 for value in leading) or last >= 256 ** (4 - len(leading)):
        return None
    number = 0
    for value in leading:
        number = number * 256 + value
    return ipaddress.IPv4Address(number * 256 ** (4 - len(leading)) + last)


def _allowed_hosts() -> set[str]:
    return {host.lower().rstrip(".") for host in settings.WEBHOOK_ALLOWED_HOSTS}


def _in_allowed_network(address: IPAddress) -> bool:
    return any(address in ipaddress.ip_network(network, strict=False) for network in settings.WEBHOOK_ALLOWED_NETWORKS)
