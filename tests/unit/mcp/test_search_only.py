"""`SearchOnlyServer` in process: one `DeferredSession` per MCP session, driven by real clients."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from forge.mcp import SearchOnlyServer
from forge.tools import ToolCall, ToolRegistry, tool


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


@tool
def get_time() -> str:
    """Tell the current time of day."""
    return "12:00"


def _server(**options: Any) -> SearchOnlyServer:
    return SearchOnlyServer(ToolRegistry([get_weather, convert_currency, get_time]), **options)


@pytest.fixture
def server() -> SearchOnlyServer:
    """A search-only server over three tools."""
    return _server()


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def _names(client: Client) -> list[str]:
    return [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]


class Session:
    """A handshake-era client of the server, counting the list changes it is sent."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.told = 0

    async def search(self, query: str) -> list[str]:
        """Call search_tools; the names it revealed."""
        found = await self.client.call_tool("search_tools", {"query": query})
        assert not found.is_error, _text(found)
        return [row["name"] for row in json.loads(_text(found))["tools"]]

    async def told_after(self, before: int) -> None:
        """Wait until a list change past ``before`` arrived."""
        async with asyncio.timeout(10):
            while self.told <= before:
                await asyncio.sleep(0.01)


@asynccontextmanager
async def sessions(server: SearchOnlyServer, count: int) -> AsyncIterator[list[Session]]:
    """``count`` legacy clients connected to ``server`` at once."""
    async with server.announcing_changes():
        made: list[Session] = []

        def counter(index: int) -> Callable[[Any], Any]:
            async def on_message(message: Any) -> None:
                if isinstance(message, types.ToolListChangedNotification):
                    made[index].told += 1

            return on_message

        async with Client(server.lowlevel, mode="legacy", message_handler=counter(0)) as a:
            made.append(Session(a))
            if count == 1:
                yield made
                return
            async with Client(server.lowlevel, mode="legacy", message_handler=counter(1)) as b:
                made.append(Session(b))
                yield made


def test_a_search_reveals_to_the_searching_session_only(server: SearchOnlyServer) -> None:
    """A's search joins A's list, with list_changed to A alone; B neither sees nor may call it."""

    async def body() -> None:
        async with sessions(server, 2) as (a, b):
            assert await _names(a.client) == ["search_tools"]
            refused = await a.client.call_tool("get_weather", {"city": "Oslo"})
            assert refused.is_error
            assert "call search_tools" in _text(refused)
            assert "get_weather" in await a.search("weather forecast")
            await a.told_after(0)
            assert "get_weather" in await _names(a.client)
            assert _text(await a.client.call_tool("get_weather", {"city": "Oslo"})) == (
                "sunny in Oslo"
            )
            assert await _names(b.client) == ["search_tools"]
            assert (await b.client.call_tool("get_weather", {"city": "Oslo"})).is_error
            await asyncio.sleep(0.1)
            assert b.told == 0

    asyncio.run(body())


def test_bad_searches_are_results_for_the_model(server: SearchOnlyServer) -> None:
    """A search without a query, or with an argument it does not take, is an error result."""

    async def body() -> list[types.CallToolResult]:
        async with sessions(server, 1) as (a,):
            return [
                await a.client.call_tool("search_tools", {}),
                await a.client.call_tool("search_tools", {"query": "weather", "limit": 3}),
                await a.client.call_tool("search_tools", {"query": "?!"}),
            ]

    missing, extra, nothing = asyncio.run(body())
    assert missing.is_error
    assert "query" in _text(missing)
    assert extra.is_error
    assert "limit" in _text(extra)
    assert not nothing.is_error
    assert "No tool matches" in _text(nothing)


def test_an_unknown_tool_is_a_protocol_error(server: SearchOnlyServer) -> None:
    """A name no tool has is -32602, as for any MCP server."""

    async def body() -> None:
        async with sessions(server, 1) as (a,):
            with pytest.raises(MCPError, match="Unknown tool: nope"):
                await a.client.call_tool("nope", {})

    asyncio.run(body())


def test_results_show_first_sentences(server: SearchOnlyServer) -> None:
    """A search answers names and first sentences, as text and structured content."""

    async def body() -> types.CallToolResult:
        async with sessions(server, 1) as (a,):
            return await a.client.call_tool("search_tools", {"query": "weather forecast"})

    found = asyncio.run(body())
    rows = json.loads(_text(found))["tools"]
    assert rows[0] == {
        "name": "get_weather",
        "description": "Get the current weather forecast for a city.",
    }
    assert found.structured_content is not None
    assert found.structured_content["tools"] == rows


def test_session_options_pass_through() -> None:
    """Pinned tools are listed at once; search_limit and max_active bound what stays active."""
    server = _server(pinned=["get_time", "not_a_tool"], search_limit=1, max_active=1)

    async def body() -> None:
        async with sessions(server, 1) as (a,):
            assert await _names(a.client) == ["search_tools", "get_time"]
            assert _text(await a.client.call_tool("get_time", {})) == "12:00"
            assert await a.search("weather forecast for a city") == ["get_weather"]
            assert await a.search("convert money into another currency") == ["convert_currency"]
            assert await _names(a.client) == ["search_tools", "get_time", "convert_currency"]

    asyncio.run(body())


def test_invalid_session_options_are_refused_at_once() -> None:
    """Options DeferredSession refuses fail when the server is made, not at the first client."""
    with pytest.raises(ValueError, match="max_active must be a whole number"):
        _server(max_active=0)
    with pytest.raises(ValueError, match="more than max_active"):
        _server(search_limit=5, max_active=2)


def test_withdrawn_tools_leave_every_session_and_can_be_found_again() -> None:
    """A tool leaving the registry leaves both sessions (both told); back, it is found anew."""
    registry = ToolRegistry([get_weather, convert_currency, get_time])
    server = SearchOnlyServer(registry)

    async def body() -> None:
        async with sessions(server, 2) as (a, b):
            for session in (a, b):
                assert "get_weather" in await session.search("weather forecast")
            await a.told_after(0)
            await b.told_after(0)
            registry.deregister("get_weather")
            await a.told_after(1)
            await b.told_after(1)
            assert "get_weather" not in await _names(a.client)
            registry.register(get_weather)
            assert "get_weather" not in await _names(b.client)
            assert "get_weather" in await b.search("weather forecast")
            assert "get_weather" in await _names(b.client)

    asyncio.run(body())


def test_sessionless_requests_share_what_they_revealed(server: SearchOnlyServer) -> None:
    """2026-07-28 requests carry no session: a reveal is seen by the next client, via listen."""
    events: list[Any] = []

    async def body() -> tuple[list[str], list[str]]:
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
    assert "convert_currency" in server.session().active()


def test_toolkit_siblings_and_usage_pins_reach_the_sessions() -> None:
    """The sessions' newer options pass through: a search adds its match's toolkit siblings,
    and the most used tool is pinned from the start."""
    registry = ToolRegistry()
    for server, topic in (("wx", "weather forecast"), ("wx", "rain radar"), ("fx", "currency")):
        registry.register(tool(lambda: topic, name=f"{server}__{topic.split()[0]}",
                               description=f"Show the {topic}."))  # fmt: skip
    server = SearchOnlyServer(registry, search_limit=1, groups="__", siblings=2,
                              usage={"fx__currency": 7}, pin_used=1)  # fmt: skip

    async def body() -> None:
        async with sessions(server, 1) as (a,):
            assert await _names(a.client) == ["search_tools", "fx__currency"]
            assert await a.search("weather forecast") == ["wx__weather", "wx__rain"]
            assert set(await _names(a.client)) == {"search_tools", "fx__currency",
                                                    "wx__weather", "wx__rain"}  # fmt: skip

    asyncio.run(body())


def test_clearing_the_registry_empties_every_session_and_tells_them() -> None:
    """A cleared registry: revealed tools leave, and sessions with pinned tools are told too."""
    registry = ToolRegistry([get_weather, convert_currency, get_time])
    server = SearchOnlyServer(registry, pinned=["get_time"])

    async def body() -> None:
        async with sessions(server, 2) as (a, b):
            assert await _names(b.client) == ["search_tools", "get_time"]
            assert "get_weather" in await a.search("weather forecast")
            await a.told_after(0)
            registry.clear()
            await a.told_after(1)
            await b.told_after(0)  # b revealed nothing, but its pinned tool is gone
            assert await _names(a.client) == ["search_tools"]
            assert await _names(b.client) == ["search_tools"]

    asyncio.run(body())


def test_a_pin_that_arrives_past_max_tokens_leaves_new_sessions_working() -> None:
    """A pinned tool absent when the server was made (a gateway's server not up yet) and
    too large for max_tokens when it arrives is left out of new sessions, which still start
    (each one used to fail with the budget's ValueError)."""
    registry = ToolRegistry([convert_currency, get_time])
    budget = registry.deferred("mcp").estimated_tokens() + 20
    server = SearchOnlyServer(registry, pinned=["get_weather"], max_tokens=budget)
    registry.register(get_weather)

    class Client:
        """Stands for an MCP session (any weakly referable object)."""

    key = Client()
    session = server.session(key)
    assert session.pinned == ()
    assert session.estimated_tokens() <= budget
    assert server.session(key) is session


def test_pins_past_max_tokens_at_the_start_are_refused() -> None:
    """Pins present when the server is made and over max_tokens still fail at once."""
    registry = ToolRegistry([get_weather, convert_currency, get_time])
    budget = registry.deferred("mcp").estimated_tokens() + 20
    with pytest.raises(ValueError, match="less than the pinned tools"):
        SearchOnlyServer(registry, pinned=["get_weather"], max_tokens=budget)


def test_tools_one_client_uses_together_are_revealed_to_another(server: SearchOnlyServer) -> None:
    """The sessions share one CoUse: A's calls, one request each, make B's search for the
    weather also reveal the currency converter."""

    async def body() -> None:
        async with sessions(server, 2) as (a, b):
            assert await b.search("weather forecast") == ["get_weather"]
            await a.search("weather forecast")
            await a.search("convert currency")
            for _ in range(2):
                await a.client.call_tool("get_weather", {"city": "Oslo"})
                await a.client.call_tool("convert_currency", {"amount": 1, "to": "EUR"})
            assert server.co_use is not None
            assert server.co_use.count("get_weather", "convert_currency") >= 2
            assert await b.search("weather forecast") == ["get_weather", "convert_currency"]

    asyncio.run(body())


def test_co_use_none_turns_the_shared_store_off() -> None:
    """co_use=None: nothing is counted, a search reveals its matches only."""
    server = _server(co_use=None)
    assert server.co_use is None
    session = server.session()
    for _ in range(2):
        session.reveal(["get_weather", "convert_currency"])
        weather = ToolCall.create("get_weather", {"city": "Oslo"})
        session.execute_all(
            [weather, ToolCall.create("convert_currency", {"amount": 1, "to": "EUR"})]
        )
    assert [t.name for t in session.search("weather forecast")] == ["get_weather"]
