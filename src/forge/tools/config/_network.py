"""Which network addresses an HTTP tool may reach.

Host names are resolved first and every resolved address is checked; the
connection is then made to the checked address (the name is kept for the
``Host`` header and TLS), so a second DNS answer cannot swap in another one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from forge.core.errors import BlockedAddressError

__all__ = ["NetworkPolicy", "address_refusal", "resolve_checked"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """Which non-public addresses HTTP tools may reach: all, none, or some networks."""

    allow_all: bool = False
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def coerce(cls, value: bool | Iterable[str] | NetworkPolicy) -> NetworkPolicy:
        """Accept ``True``/``False`` or addresses and networks such as ``"10.0.0.0/8"``.

        Raises:
            ValueError: An entry is not an address or network.
        """
        if isinstance(value, NetworkPolicy):
            return value
        if isinstance(value, bool):
            return cls(allow_all=value)
        if isinstance(value, str):
            value = [value]
        return cls(networks=tuple(ipaddress.ip_network(v, strict=False) for v in value))

    def allows(self, address: IPAddress) -> bool:
        """Whether ``address`` may be reached even though it is not public."""
        return self.allow_all or any(address in net for net in self.networks)


def address_refusal(address: IPAddress) -> str | None:
    """Return why ``address`` is not a public internet address, or ``None`` if it is.

    Beyond what `ipaddress` knows (Python 3.11 calls several of these global),
    the IETF protocol block 192.0.0.0/24 and the site-local fec0::/10 are refused,
    an IPv4-mapped address is judged as the IPv4 address it is, and one that embeds
    an IPv4 address (6to4, Teredo, NAT64, IPv4-compatible) is refused when that
    address would be.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address_refusal(address.ipv4_mapped)
        embedded = _embedded_ipv4(address)
        reason = address_refusal(embedded) if embedded is not None else None
        if reason is not None:
            return reason
        if address in _SITE_LOCAL:
            return "site-local"
        if address in _LOCAL_NAT64:
            return "reserved"
    elif address in _IETF_PROTOCOL:
        return "reserved"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_unspecified:
        return "unspecified"
    if address.is_multicast:
        return "multicast"
    if address.is_private:
        return "private"
    if address.is_reserved or not address.is_global:
        return "reserved"
    return None


_IETF_PROTOCOL = ipaddress.ip_network("192.0.0.0/24")
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
_LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a 6to4, Teredo (its client), NAT64 or IPv4-compatible address reaches."""
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if (address in _NAT64 or address in _COMPATIBLE) and int(address) & 0xFFFFFFFF > 1:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


async def resolve_checked(host: str, port: int, *, policy: NetworkPolicy) -> list[str]:
    """Resolve ``host`` and return the checked addresses to connect to, in resolver order.

    Raises:
        BlockedAddressError: One of the addresses is not public and the policy
            does not allow it.
        OSError: The name does not resolve.
    """
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise OSError(f"{host!r} did not resolve to any address")
    if not policy.allow_all:
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            reason = address_refusal(address)
            if reason is not None and not policy.allows(address):
                raise BlockedAddressError(host, text, reason)
    return addresses
