"""A remote tool's structured output through the gateway: checked by the client, then the server.

The gateway's upstream client (the `mcp` SDK's, Python ``jsonschema``) and the gateway's
server (forge-tools', ``jsonschema_rs``) both check a result against the same schema. They
are not the same check: the second asserts ``format`` in drafts 4 to 7, which the first
reads as an annotation. These tests guard both halves: a result the client rejects keeps
the client's message, and one only the server rejects is still stopped at the gateway.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from forge.gateway.config import parse_servers
from forge.gateway.gateway import Gateway
from forge.mcp import import_tools
from forge.tools import ToolRegistry

pytestmark = pytest.mark.slow  # a real MCP server subprocess

ODD_SERVER = [
    sys.executable,
    str(Path(__file__).parents[1] / "mcp" / "servers" / "sdk_odd_server.py"),
]


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    """A gateway over the odd server (prefix ``odd__``), started; closed in teardown."""
    document = {"mcpServers": {"odd": {"command": ODD_SERVER[0], "args": ODD_SERVER[1:]}}}
    with Gateway(parse_servers(document, os.environ)) as started:
        yield started


def _call(
    gateway: Gateway, name: str, arguments: dict[str, Any] | None = None
) -> types.CallToolResult:
    """One ``tools/call`` by the official client through the gateway's MCP server."""

    async def call() -> types.CallToolResult:
        server = gateway.mcp_server()
        try:
            async with Client(server.lowlevel) as client:
                await client.list_tools()
                return await client.call_tool(name, arguments or {})
        finally:
            server.close()

    return asyncio.run(call())


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def test_a_result_breaking_the_schema_keeps_the_clients_message(gateway: Gateway) -> None:
    """The upstream client's check names the remote fault; the server adds no second verdict."""
    result = _call(gateway, "odd__liar")
    assert result.is_error
    text = _text(result)
    assert "breaks its own output schema: Invalid structured content returned by tool liar" in text
    assert "fault in the remote tool; retrying will not help" in text
    assert "does not match its output schema" not in text


def test_a_format_only_the_servers_check_asserts_is_still_stopped(gateway: Gateway) -> None:
    """A draft-07 'format' the client lets through is caught by the gateway's own check."""
    registry = ToolRegistry()
    with import_tools(registry, ODD_SERVER, timeout=10):
        direct: Any = registry.execute("contact", {})
    assert direct.success  # the SDK client's check reads 'format' as an annotation
    assert direct.output == {"email": "nope"}
    through = _call(gateway, "odd__contact")
    assert through.is_error
    assert through.structured_content is None
    text = _text(through)
    assert "'odd__contact' returned output that does not match its output schema" in text
    assert "email" in text
    engine = asyncio.run(gateway.run("odd__contact", {}))
    assert engine.success  # the engine passes it on: the MCP server is what checks outputs


def test_an_ordinary_tool_is_unaffected(gateway: Gateway) -> None:
    """A tool without an output schema answers through the gateway as before."""
    result = _call(gateway, "odd__echo", {"text": "still here"})
    assert not result.is_error
    assert _text(result) == "still here"
