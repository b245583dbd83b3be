"""An MCP server (low-level `mcp` SDK, stdio) listing ``N`` small tools.

Usage: ``python _many_tools_server.py N``.

The listing comes in pages of 1,000 (as large servers page theirs). Calls echo their tool's name.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE = 1000
_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def tools(count: int) -> list[types.Tool]:
    """The ``count`` tools: ``tool_0``, ``tool_1``, ..."""
    return [
        types.Tool(name=f"tool_{i}", description=f"Tool number {i}.", input_schema=_SCHEMA)
        for i in range(count)
    ]


def server(count: int) -> Server[Any]:
    """The server listing ``count`` tools in pages of `PAGE`."""
    listed = tools(count)

    async def list_tools(
        _ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE
        more = str(end) if end < len(listed) else None
        return types.ListToolsResult(tools=listed[start:end], next_cursor=more)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    return Server("many", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(count: int) -> None:
    """Serve over stdio until the client closes the connection."""
    app = server(count)
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
