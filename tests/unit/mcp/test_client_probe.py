"""`MCPClient(probe_interval=...)`: a server that dies while idle is noticed and its tools go."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest
from mcp_harness import FORGE_TOOLS, TOOLS_SPEC

from forge.mcp import MCPClient, MCPConnectionError
from forge.tools import ToolRegistry


@pytest.mark.slow  # a real server subprocess
def test_an_idle_stdio_server_that_dies_is_noticed(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """No call is made after the kill: the probe alone withdraws the tools and ends the client."""
    client = connect([FORGE_TOOLS, "serve", "--tools", TOOLS_SPEC], probe_interval=0.3)
    pid = registry.execute("pid", {}).output
    assert not client.wait_gone(0.5)  # probes of a live server pass
    assert "add" in registry
    os.kill(pid, signal.SIGKILL)
    assert client.wait_gone(30)
    assert "add" not in registry
    assert client.error is not None
    assert "is gone" in client.error


@pytest.mark.parametrize("interval", [0, -1.0])
def test_a_probe_interval_must_be_positive(registry: ToolRegistry, interval: float) -> None:
    """Zero or negative seconds are refused before anything starts."""
    with pytest.raises(ValueError, match="probe_interval must be positive"):
        MCPClient("http://127.0.0.1:1/mcp", registry, probe_interval=interval)


def test_a_client_closed_before_connecting_never_connects(registry: ToolRegistry) -> None:
    """connect() after close() raises instead of starting a connection nobody will close."""
    client = MCPClient("http://127.0.0.1:1/mcp", registry)
    client.close()
    with pytest.raises(MCPConnectionError, match="this client was closed"):
        client.connect()
