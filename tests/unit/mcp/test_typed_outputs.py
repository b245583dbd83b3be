"""Typed returns over MCP (issue 14, item 2): ``outputSchema``, ``structuredContent``, values back.

`forge-tools serve` runs as a real subprocess over stdio and streamable HTTP; the official
`mcp` client checks every ``structuredContent`` against the listed ``outputSchema`` (it
raises when one is missing or wrong), and our client gets the Python values back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp_harness import FORGE_TOOLS, HttpServer, server_env

from forge.mcp import import_tools
from forge.tools import ErrorKind, ToolRegistry

pytestmark = pytest.mark.slow  # real server subprocesses

SPEC = "typed_tools:registry"
WEATHER = {"city": "Paris", "tempC": 21.5}
CALLS: list[tuple[str, dict[str, Any], Any]] = [
    ("add", {"a": 1, "b": 2}, {"result": 3}),
    ("weather", {"city": "Paris"}, WEATHER),
    ("totals", {"numbers": [1, 2.5]}, {"count": 2, "total": 3.5}),
    ("forecast", {"days": 2}, {"result": [{"city": "Paris", "tempC": 20.0},
                                           {"city": "Paris", "tempC": 21.0}]}),
    ("lookup", {"found": True}, {"result": {"city": "Oslo", "tempC": -3.0}}),
    ("lookup", {"found": False}, {"result": None}),
    ("greet", {"name": "Ada"}, {"result": "Hello, Ada!"}),
]  # fmt: skip


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """One HTTP server serving the typed tools for the module."""
    server = HttpServer("--tools", SPEC)
    yield server.url
    server.stop()


@pytest.fixture(params=["stdio", "http"])
def target(request: pytest.FixtureRequest, http_url: str) -> Any:
    """What the official client connects to."""
    if request.param == "http":
        return http_url
    return StdioServerParameters(
        command=FORGE_TOOLS,
        args=["serve", "--tools", SPEC],
        env={"PYTHONPATH": server_env()["PYTHONPATH"]},
    )


def _run(body: Any) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 60))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_official_client_accepts_every_typed_result(target: Any, mode: str) -> None:
    """Each typed tool lists an object outputSchema and answers with structuredContent the
    client validates, plus the same JSON as text for clients that read only text."""

    async def body() -> tuple[dict[str, types.Tool], list[types.CallToolResult]]:
        async with Client(target, mode=mode) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return listed, [await client.call_tool(n, a) for n, a, _ in CALLS]

    listed, results = _run(body)
    assert listed["weather"].output_schema == {
        "type": "object", "title": "Weather", "description": "The weather in a city.",
        "properties": {"city": {"type": "string"}, "tempC": {"type": "number"}},
        "required": ["city", "tempC"],
    }  # fmt: skip
    assert listed["add"].meta == {"forge-tools/wrapped": True}
    assert listed["untyped_listing"].output_schema is None
    for (name, _, expected), result in zip(CALLS, results, strict=True):
        assert result.is_error is False, name
        assert result.structured_content == expected, name
        (text,) = result.content
        assert isinstance(text, types.TextContent)
        if name != "greet":
            structured = result.structured_content
            inner = structured["result"] if name not in ("weather", "totals") else structured
            assert json.loads(text.text) == inner, name


def test_output_that_breaks_its_return_type_is_a_tool_error(target: Any) -> None:
    """A handler returning text for ``-> int`` gets isError naming the mismatch, never bad data."""

    async def body() -> types.CallToolResult:
        async with Client(target, mode="legacy") as client:
            return await client.call_tool("liar", {})

    result = _run(body)
    assert result.is_error is True
    (text,) = result.content
    assert isinstance(text, types.TextContent)
    assert "does not match its output schema" in text.text
    assert '"three" is not of type "integer"' in text.text


def test_forge_to_mcp_to_forge_returns_python_values() -> None:
    """Imported into a registry, typed tools answer with values (3, a dict), not JSON text,
    and keep the local output schema, unwrapped."""
    registry = ToolRegistry()
    client = import_tools(registry, [FORGE_TOOLS, "serve", "--tools", SPEC],
                          env={"PYTHONPATH": server_env()["PYTHONPATH"]}, timeout=20)  # fmt: skip
    try:
        assert registry.execute("add", {"a": 1, "b": 2}).output == 3
        assert registry.execute("weather", {"city": "Paris"}).output == WEATHER
        assert registry.execute("forecast", {"days": 1}).output == [
            {"city": "Paris", "tempC": 20.0}
        ]
        assert registry.execute("lookup", {"found": False}).output is None
        assert registry.execute("greet", {"name": "Ada"}).output == "Hello, Ada!"
        assert registry.execute("untyped_listing", {}).output == [1, 2]
        assert registry.get_or_raise("add").output_schema == {"type": "integer"}
        assert registry.get_or_raise("weather").output_schema == {
            "type": "object", "title": "Weather", "description": "The weather in a city.",
            "properties": {"city": {"type": "string"}, "tempC": {"type": "number"}},
            "required": ["city", "tempC"],
        }  # fmt: skip
        failed = registry.execute("liar", {})
        assert failed.error_kind is ErrorKind.TOOL_ERROR
        assert "does not match its output schema" in (failed.error or "")
    finally:
        client.close()


def test_an_output_schema_never_fetches_a_remote_ref() -> None:
    """A remote ``$ref`` in an output schema is refused at definition and by the server's check."""
    from types import SimpleNamespace

    from forge.core.errors import ToolDefinitionError
    from forge.mcp.server import _output_checker
    from forge.tools import tool

    remote = {"type": "object", "properties": {"n": {"$ref": "http://127.0.0.1:9/n.json"}}}
    with pytest.raises(ToolDefinitionError, match=r"invalid output schema: .*remote \$ref"):
        tool(name="count", output_schema=remote)(lambda: {"n": 1})
    # A tool that reached the server some other way (an imported definition) is checked alike.
    problems = _output_checker(SimpleNamespace(output_schema=remote))({"n": 1})  # type: ignore[arg-type]
    assert len(problems) == 1
    assert "remote $ref 'http://127.0.0.1:9/n.json' is not allowed" in problems[0]
