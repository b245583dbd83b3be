"""Which network addresses an HTTP tool may reach (CF-5).

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
    """Return why ``address`` is not a public internet address, or ``None`` if it is."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
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


async def resolve_checked(host: str, port: int, *, policy: NetworkPolicy) -> str:
    """Resolve ``host`` and return the address to connect to.

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
    return addresses[0]
