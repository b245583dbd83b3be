"""MCP: the official ``mcp.Client`` (Streamable HTTP) against a stub server built on ours.

Here the roles turn around: our tools go out in the ``tools/list`` result, the client
sends ``tools/call`` requests, we parse them, execute through the registry, and our
``CallToolResult`` goes back, validated by the client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from forge.tools import ToolRegistry, format_results, parse_tool_calls

PROTOCOL = "2025-11-25"


def _server(registry: ToolRegistry) -> Any:
    def handle(request: Any) -> tuple[int, dict[str, str], bytes]:
        if request.method != "POST":
            return 405, {}, b""
        message = request.body
        method = message.get("method")
        if "id" not in message:  # a notification
            return 202, {}, b""
        if method == "initialize":
            result: Any = {
                "protocolVersion": PROTOCOL,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "forge-stub", "version": "0.1"},
            }
        elif method == "tools/list":
            result = {"tools": registry.to_provider("mcp")}
        elif method == "tools/call":
            results = registry.execute_all(parse_tool_calls(message))
            (result,) = format_results(results, "mcp", tools=registry)
        else:
            body = {"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": -32601, "message": f"no method {method}"}}  # fmt: skip
            return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()
        body = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        headers = {"Content-Type": "application/json", "Mcp-Session-Id": "s-1"}
        return 200, headers, json.dumps(body).encode()

    return handle


def test_tools_list_and_call_round_trip(stub: Any, registry: ToolRegistry) -> None:
    """Our tools list validates in the client; calls come back as typed CallToolResults."""
    from mcp import Client

    stub.handler = _server(registry)

    async def session() -> tuple[Any, Any, Any, Any]:
        async with Client(f"{stub.url}/mcp", mode="legacy", read_timeout_seconds=10) as client:
            listed = await client.list_tools()
            weather = await client.call_tool("get_weather", {"city": "Paris"})
            total = await client.call_tool("add", {"a": 2, "b": 40})
            bad = await client.call_tool("add", {"a": "two"})
            return listed, weather, total, bad

    listed, weather, total, bad = asyncio.run(asyncio.wait_for(session(), timeout=30))

    ours = registry.to_provider("mcp")
    assert [t.name for t in listed.tools] == [t["name"] for t in ours]
    assert [t.input_schema for t in listed.tools] == [t["inputSchema"] for t in ours]
    assert weather.is_error is False
    assert weather.structured_content == {"city": "Paris", "temperature": 21, "unit": "celsius"}
    assert json.loads(weather.content[0].text) == weather.structured_content
    assert total.is_error is False
    assert total.content[0].text == "42"
    assert bad.is_error is True
    assert "a" in bad.content[0].text
    calls = [r.body for r in stub.requests if r.body and r.body.get("method") == "tools/call"]
    assert [c["params"]["name"] for c in calls] == ["get_weather", "add", "add"]
