"""Addresses Python 3.11's `ipaddress` calls public but an HTTP tool must not reach.

6to4 (2002::/16), NAT64 (64:ff9b::/96), IPv4-compatible and Teredo addresses embed an
IPv4 address and are judged by it; site-local fec0::/10 and 192.0.0.0/24 are refused.
"""

from __future__ import annotations

import ipaddress

import pytest

from forge.tools.config._network import address_refusal
from tests.unit.tools.config.test_http_tools import STRING, http_tool

REFUSED = {
    "2002:7f00:1::": "loopback",  # 6to4 of 127.0.0.1
    "2002:a00:1::": "private",  # 6to4 of 10.0.0.1
    "2002:a9fe:a9fe::": "link-local",  # 6to4 of 169.254.169.254
    "64:ff9b::7f00:1": "loopback",  # NAT64 of 127.0.0.1
    "64:ff9b::a9fe:a9fe": "link-local",
    "64:ff9b:1::a00:1": "reserved",  # local-use NAT64
    "::127.0.0.1": "loopback",  # IPv4-compatible
    "::ffff:10.1.2.3": "private",  # IPv4-mapped
    "2001:0:4136:e378:8000:63bf:80ff:fffe": "loopback",  # Teredo, client 127.0.0.1
    "fec0::1": "site-local",
    "192.0.0.8": "reserved",
    "192.0.0.9": "reserved",
    "192.0.0.1": "reserved",
}


@pytest.mark.parametrize(("text", "reason"), REFUSED.items())
def test_embedded_and_special_forms_are_refused(text: str, reason: str) -> None:
    """Each form is refused for the address it reaches."""
    assert address_refusal(ipaddress.ip_address(text)) == reason


@pytest.mark.parametrize("text", ["2002:808:808::", "::ffff:8.8.8.8", "8.8.4.4"])
def test_forms_embedding_a_public_address_are_allowed(text: str) -> None:
    """An embedding of a public IPv4 address stays reachable."""
    assert address_refusal(ipaddress.ip_address(text)) is None


@pytest.mark.parametrize("host", ["[2002:7f00:1::]", "[fec0::1]", "192.0.0.8", "[64:ff9b::7f00:1]"])
def test_first_hop_to_an_embedded_private_address_is_refused(host: str) -> None:
    """An HTTP tool whose URL is such an address is denied before connecting."""
    registry = http_tool({"url": f"http://{host}:9/x"}, allow=False)
    result = registry.execute("call_api", {})
    assert not result.success
    assert result.error_kind == "denied"
    assert "refused to connect" in (result.error or "")


@pytest.mark.parametrize("host", ["[2002:7f00:1::]", "[fec0::1]", "192.0.0.8", "[::127.0.0.1]"])
def test_redirect_to_an_embedded_private_address_is_refused(http_server: str, host: str) -> None:
    """A redirect to such an address is refused like the first hop."""
    registry = http_tool({"url": http_server + "/redirect", "query": ["to"]}, {"to": STRING})
    result = registry.execute("call_api", {"to": f"http://{host}:9/x"})
    assert not result.success
    assert result.error_kind == "denied"
    assert "refused to connect" in (result.error or "")
