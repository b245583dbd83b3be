"""An MCP server written on the `mcp` SDK's low-level API, whose tools use older-draft schemas.

Real servers still ship draft 4 and draft 7 forms (``"exclusiveMinimum": true``,
``definitions``, tuple ``items``); the client must import them, not refuse them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="scale",
        description="Multiply a strictly positive factor by a pair of numbers.",
        input_schema={
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {
                "factor": {"$ref": "#/definitions/Positive"},
                "pair": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                         "additionalItems": False},
            },
            "required": ["factor", "pair"],
            "definitions": {"Positive": {"type": "number", "minimum": 0,
                                         "exclusiveMinimum": True}},
        },
    ),
]  # fmt: skip


async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    scaled = [args["factor"] * x for x in args["pair"]]
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(scaled))])


server = Server("old-drafts", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
