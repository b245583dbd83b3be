"""`SearchOnlyServer`: what one session shows stays its own, and what is not a session's.

Sessions here are raw JSON-RPC exchanges with the server in process (a client that skips
``notifications/initialized``), or the official client; the catalog is the one the
server is served with.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_harness import SERVERS, HttpServer

from forge.mcp import HttpLimits, SearchOnlyServer
from forge.mcp._catalog import with_catalog
from forge.tools import ToolRegistry, tool


@tool
def get_weather(city: str) -> str:
    """Get the current weather forecast for a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@tool
def convert_currency(amount: float, to: str) -> str:
    """Convert an amount of money into another currency.

    Args:
        amount: How much.
        to: The currency code.
    """
    return f"{amount} {to}"


@tool
def search_tools(query: str) -> str:
    """A registry tool that happens to have the search tool's name.

    Args:
        query: Anything.
    """
    return "the registry's own search_tools"


def _registry() -> ToolRegistry:
    return ToolRegistry([get_weather, convert_currency])


class RawSession:
    """A handshake-era client speaking JSON-RPC itself: it never sends ``initialized``."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write
        self._next = 0

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request; return its result, or raise `MCPError` with its error."""
        self._next += 1
        ask = types.JSONRPCRequest(jsonrpc="2.0", id=self._next, method=method, params=params)
        await self._write.send(SessionMessage(message=ask))
        async with asyncio.timeout(30):
            while True:
                item = await self._read.receive()
                message = item.message if isinstance(item, SessionMessage) else item
                if isinstance(message, types.JSONRPCResponse) and message.id == self._next:
                    return message.result
                if isinstance(message, types.JSONRPCError) and message.id == self._next:
                    raise MCPError(message.error.code, message.error.message)

    async def names(self) -> list[str]:
        """The tool names its tools/list shows."""
        return [t["name"] for t in (await self.request("tools/list"))["tools"]]

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call result."""
        result: dict[str, Any] = await self.request(
            "tools/call", {"name": name, "arguments": arguments}
        )
        return result


@asynccontextmanager
async def _raw(server: SearchOnlyServer) -> AsyncIterator[RawSession]:
    """A raw session that sent ``initialize`` and nothing else."""
    async with InMemoryTransport(server.lowlevel) as (read, write):
        session = RawSession(read, write)
        await session.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        })  # fmt: skip
        yield session


def test_sessions_that_never_send_initialized_each_have_their_own() -> None:
    """Two clients that skip ``notifications/initialized``: what A reveals, B neither
    lists nor may call."""
    server = SearchOnlyServer(_registry())

    async def body() -> tuple[list[str], list[str], dict[str, Any]]:
        async with server.announcing_changes(), _raw(server) as a, _raw(server) as b:
            found = await a.call("search_tools", {"query": "weather forecast"})
            assert not found.get("isError"), found
            return await a.names(), await b.names(), await b.call("get_weather", {"city": "X"})

    seen_a, seen_b, called_b = asyncio.run(body())
    server.close()
    assert "get_weather" in seen_a
    assert seen_b == ["search_tools"]
    assert called_b["isError"] is True
    assert "call search_tools" in called_b["content"][0]["text"]


def test_an_unknown_tool_names_only_what_the_session_can_see() -> None:
    """A misspelt name is answered with the session's tools, not with hidden close matches."""
    server = SearchOnlyServer(_registry())

    async def body() -> tuple[str, str]:
        async with server.announcing_changes(), Client(server.lowlevel, mode="legacy") as a:
            with pytest.raises(MCPError) as before:
                await a.call_tool("get_wether", {"city": "X"})
            await a.call_tool("search_tools", {"query": "convert money currency"})
            with pytest.raises(MCPError) as after:
                await a.call_tool("convert_curency", {"amount": 1, "to": "EUR"})
            return str(before.value), str(after.value)

    before, after = asyncio.run(body())
    server.close()
    assert "Unknown tool: get_wether" in before
    assert "get_weather" not in before
    assert "convert_currency" not in before
    assert "search_tools" in before
    assert "Did you mean 'convert_currency'?" in after
    assert "get_weather" not in after


def test_the_catalog_runs_the_tools_of_a_search_only_server() -> None:
    """The catalog is not a model session: it runs any served tool, revealed or not."""
    server = SearchOnlyServer(_registry())

    async def nothing(scope: Any, receive: Any, send: Any) -> None:
        """Stands for the MCP app at /mcp (not reached here)."""

    _, catalog = with_catalog(nothing, "/mcp", server, None, HttpLimits())
    outcome = asyncio.run(
        catalog.run("get_weather", {"arguments": {"city": "Oslo"}, "confirm": True})
    )
    catalog.close()
    server.close()
    assert outcome["ok"] is True, outcome
    assert outcome["result"] == "sunny in Oslo"


@pytest.mark.slow  # a gateway subprocess and its server
def test_the_catalog_of_a_search_only_gateway_runs_its_tools(tmp_path: Path) -> None:
    """``forge-tools serve --servers --search-only --transport http``: the catalog beside
    ``/mcp`` runs a tool no session revealed (it used to answer "not loaded yet")."""
    entry = {"command": sys.executable,
             "args": [str(SERVERS / "named_tools_server.py"), "solo", "echo_text"]}  # fmt: skip
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"solo": entry}}))
    gateway = HttpServer("--servers", str(path), "--search-only", token="t" * 32)
    try:
        base = gateway.url.removesuffix("/mcp")
        with httpx.Client(base_url=base, timeout=30,
                          headers={"Authorization": "Bearer " + "t" * 32}) as client:  # fmt: skip
            ran = client.post(
                "/api/tools/solo__echo_text/run",
                json={"arguments": {"text": "hi"}, "confirm": True},
            )
    finally:
        gateway.stop()
    assert ran.status_code == 200, ran.text
    outcome = ran.json()
    assert outcome["ok"] is True, outcome
    assert "solo:echo_text:hi" in json.dumps(outcome["result"])


def test_a_registry_tool_named_like_the_search_tool_is_not_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One that arrives after the start leaves new sessions working, with a warning; the
    name stays the search tool's."""
    registry = _registry()
    server = SearchOnlyServer(registry)

    async def body() -> tuple[list[str], dict[str, Any]]:
        async with server.announcing_changes():
            registry.register(search_tools)
            async with Client(server.lowlevel, mode="legacy") as a:
                names = [t.name for t in (await a.list_tools()).tools]
                found = await a.call_tool("search_tools", {"query": "weather"})
                return names, json.loads(found.content[0].text)  # type: ignore[union-attr]

    with caplog.at_level(logging.WARNING, "forge.mcp.server"):
        names, found = asyncio.run(body())
    server.close()
    assert names == ["search_tools"]
    assert [row["name"] for row in found["tools"]] == ["get_weather"]
    assert any("has the name of the search tool" in r.getMessage() for r in caplog.records)
