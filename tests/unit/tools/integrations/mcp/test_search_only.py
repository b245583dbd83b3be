"""`SearchOnlyServer` in process: search_tools reveals per session; everything else is refused."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from forge.tools import ToolRegistry, tool
from forge.tools.integrations.mcp import SearchOnlyServer


@tool
def get_weather(city: str) -> str:
    """Get the current weather forecast for a city. It answers from a fixed table.

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


@pytest.fixture
def server() -> SearchOnlyServer:
    """A search-only server over two tools."""
    return SearchOnlyServer(ToolRegistry([get_weather, convert_currency]))


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def _names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}


def test_bad_searches_are_results_for_the_model(server: SearchOnlyServer) -> None:
    """An empty query, a bad limit and a query matching nothing say what to do."""

    async def body() -> list[types.CallToolResult]:
        async with server.announcing_changes(), Client(server.lowlevel, mode="legacy") as c:
            return [
                await c.call_tool("search_tools", {"query": "  "}),
                await c.call_tool("search_tools", {"query": "weather", "limit": 99}),
                await c.call_tool("search_tools", {"query": "?!"}),
            ]

    empty, limit, nothing = asyncio.run(body())
    assert empty.is_error
    assert "needs a 'query'" in _text(empty)
    assert limit.is_error
    assert "from 1 to 20" in _text(limit)
    assert not nothing.is_error
    assert "No tool matches '?!'" in _text(nothing)


def test_an_unknown_tool_is_a_protocol_error(server: SearchOnlyServer) -> None:
    """A name no tool has is -32602, as for any MCP server."""

    async def body() -> None:
        async with server.announcing_changes(), Client(server.lowlevel, mode="legacy") as c:
            with pytest.raises(MCPError, match="Unknown tool: nope"):
                await c.call_tool("nope", {})

    asyncio.run(body())


def test_results_show_first_sentences(server: SearchOnlyServer) -> None:
    """A search answers names and first sentences, as text and structured content."""

    async def body() -> types.CallToolResult:
        async with server.announcing_changes(), Client(server.lowlevel, mode="legacy") as c:
            return await c.call_tool("search_tools", {"query": "weather forecast", "limit": 1})

    found = asyncio.run(body())
    rows = json.loads(_text(found))["revealed"]
    assert rows == [
        {"name": "get_weather", "description": "Get the current weather forecast for a city."}
    ]
    assert found.structured_content == {"revealed": rows}


def test_sessionless_requests_share_what_they_revealed(server: SearchOnlyServer) -> None:
    """2026-07-28 requests carry no session: a reveal is seen by the next client, via listen."""
    events: list[Any] = []

    async def body() -> tuple[set[str], set[str]]:
        async with server.announcing_changes():
            async with Client(server.lowlevel) as first:
                async with first.listen(tools_list_changed=True) as stream:
                    await first.call_tool("search_tools", {"query": "currency"})
                    async with asyncio.timeout(10):
                        events.append(await anext(aiter(stream)))
                seen_first = await _names(first)
            async with Client(server.lowlevel) as second:
                return seen_first, await _names(second)

    seen_first, seen_second = asyncio.run(body())
    assert "convert_currency" in seen_first
    assert seen_second == seen_first
    assert events
    assert server.revealed() >= {"convert_currency"}
