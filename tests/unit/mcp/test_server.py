"""`forge-tools serve` driven by the official `mcp` client over real stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import jsonschema
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.slow  # real server subprocesses

T = TypeVar("T")
BOTH = pytest.mark.parametrize("target", ["stdio", "http"], indirect=True)
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


def run(fn: Callable[[], Awaitable[T]]) -> T:
    """Run one async test body with an overall bound, so a hang fails instead of blocking."""

    async def bounded() -> T:
        return await asyncio.wait_for(fn(), 60)

    return asyncio.run(bounded())


async def call(target: Any, name: str, arguments: dict[str, Any], mode: str = "auto") -> Any:
    """Connect, call one tool, disconnect."""
    async with Client(target, mode=mode) as client:
        return await client.call_tool(name, arguments)


@BOTH
@MODES
def test_initialize_declares_tools_with_list_changed(target: Any, mode: str) -> None:
    """The handshake (or discovery) names the server and declares tools with listChanged."""

    async def body() -> None:
        async with Client(target, mode=mode) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
            assert client.protocol_version == expected

    run(body)


@BOTH
def test_list_carries_names_titles_schemas_and_annotations(target: Any) -> None:
    """tools/list has every tool with its title, input and output schemas and MCP hints."""

    async def body() -> dict[str, types.Tool]:
        async with Client(target) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(body)
    assert {"add", "slow", "stats", "register_echo"} <= tools.keys()
    add = tools["add"]
    assert add.title == "Add"
    assert add.description == "Add two integers."
    assert add.input_schema["required"] == ["a", "b"]
    assert add.input_schema["properties"]["a"] == {
        "type": "integer",
        "description": "The first number.",
    }
    assert add.annotations is not None
    assert add.annotations.model_dump(by_alias=True, exclude_none=True) == {
        "title": "Add", "readOnlyHint": True, "idempotentHint": True,
    }  # fmt: skip
    assert add.output_schema == {  # from ``-> int``; not an object, so wrapped
        "type": "object", "properties": {"result": {"type": "integer"}},
        "required": ["result"], "additionalProperties": False,
    }  # fmt: skip
    assert add.meta == {"forge-tools/wrapped": True}
    assert tools["stats"].output_schema is not None
    assert tools["stats"].output_schema["required"] == ["count", "mean"]
    assert tools["slow"].annotations is None


@BOTH
def test_successful_call_returns_text(target: Any) -> None:
    """A good call returns the value as text and, wrapped, as structuredContent; isError false."""
    result = run(lambda: call(target, "add", {"a": 2, "b": 40}))
    assert result.is_error is False
    assert [c.text for c in result.content] == ["42"]
    assert result.structured_content == {"result": 42}  # not an object: wrapped
    assert result.meta is not None
    assert result.meta["forge-tools/wrapped"] is True


@BOTH
def test_invalid_arguments_are_an_error_result_naming_the_field(target: Any) -> None:
    """Bad arguments give isError with a message naming each bad field, not a protocol error."""
    result = run(lambda: call(target, "add", {"a": "two"}))
    assert result.is_error is True
    text = result.content[0].text
    assert "Invalid arguments for tool 'add'" in text
    assert "a: " in text
    assert "b: missing" in text
    assert result.meta is not None
    assert result.meta["forge-tools/errorKind"] == "invalid_arguments"


@BOTH
def test_unknown_tool_is_a_protocol_error(target: Any) -> None:
    """Calling a tool that does not exist is the JSON-RPC error -32602, listing the tools."""

    async def body() -> MCPError:
        async with Client(target) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("no_such_tool", {})
            assert (await client.call_tool("add", {"a": 1, "b": 2})).is_error is False
            return caught.value

    error = run(body)
    assert error.error.code == types.INVALID_PARAMS
    assert "Unknown tool: no_such_tool" in error.error.message
    assert "add" in error.error.message


@BOTH
def test_a_tool_that_times_out_is_an_error_result(target: Any) -> None:
    """A call past the tool's timeout comes back as isError with the timeout kind."""
    result = run(lambda: call(target, "slow", {"seconds": 30}))
    assert result.is_error is True
    assert "did not finish within 0.5 s" in result.content[0].text
    assert result.meta is not None
    assert result.meta["forge-tools/errorKind"] == "timeout"


@BOTH
@MODES
def test_structured_output_matches_the_output_schema(target: Any, mode: str) -> None:
    """A tool with an output schema returns structuredContent valid against it, plus JSON text."""

    async def body() -> tuple[types.Tool, types.CallToolResult]:
        async with Client(target, mode=mode) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return listed["stats"], await client.call_tool("stats", {"numbers": [1, 2, 6]})

    spec, result = run(body)
    assert result.is_error is False
    assert result.structured_content == {"count": 3, "mean": 3.0}
    assert spec.output_schema is not None
    jsonschema.validate(result.structured_content, spec.output_schema)
    assert result.content[0].text == '{"count": 3, "mean": 3.0}'


@BOTH
def test_output_breaking_its_schema_is_an_error_result(target: Any) -> None:
    """A handler whose output breaks its declared schema yields isError, not bad data."""
    result = run(lambda: call(target, "broken_output", {}))
    assert result.is_error is True
    assert "does not match its output schema" in result.content[0].text


@BOTH
def test_list_changed_reaches_a_listening_client(target: Any) -> None:
    """On 2026-07-28, a runtime registration is announced on the subscriptions/listen stream."""

    async def body() -> list[str]:
        async with Client(target) as client, client.listen(tools_list_changed=True) as events:
            await client.call_tool("register_echo", {"name": "echo_modern"})
            async for _event in events:
                break
            return [t.name for t in (await client.list_tools()).tools]

    assert "echo_modern" in run(body)


@BOTH
def test_list_changed_reaches_a_handshake_client(target: Any) -> None:
    """On 2025-11-25, a runtime registration sends notifications/tools/list_changed."""

    async def body() -> list[str]:
        changed = asyncio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with Client(target, mode="legacy", message_handler=on_message) as client:
            await client.call_tool("register_echo", {"name": "echo_legacy"})
            await asyncio.wait_for(changed.wait(), 20)
            return [t.name for t in (await client.list_tools()).tools]

    assert "echo_legacy" in run(body)


@BOTH
def test_sync_tools_do_not_block_the_event_loop(target: Any) -> None:
    """While a sync tool sleeps in its thread, another call completes; leaving does not wait."""

    async def body() -> None:
        async with Client(target) as client:
            sleeper = asyncio.ensure_future(client.call_tool("blocking_sleep", {"seconds": 30}))
            quick = asyncio.ensure_future(client.call_tool("add", {"a": 1, "b": 1}))
            done, _ = await asyncio.wait({sleeper, quick}, return_when=asyncio.FIRST_COMPLETED)
            assert quick in done
            assert sleeper not in done
            sleeper.cancel()

    run(body)


NUMBERS_LISTED = {
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
    "required": ["result"],
    "additionalProperties": False,
}


@BOTH
@MODES
def test_a_non_object_output_schema_is_wrapped_and_never_breaks_the_listing(
    target: Any, mode: str
) -> None:
    """An array output schema is listed under ``result``; the official client checks the output."""

    async def body() -> tuple[dict[str, types.Tool], types.CallToolResult]:
        async with Client(target, mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools, await client.call_tool("numbers", {"n": 3})

    tools, result = run(body)
    assert {"add", "stats", "numbers"} <= tools.keys()
    assert tools["numbers"].output_schema == NUMBERS_LISTED
    assert tools["numbers"].meta == {"forge-tools/wrapped": True}
    assert result.structured_content == {"result": [1, 2, 3]}
