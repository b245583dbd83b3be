"""An MCP server (low-level `mcp` SDK, stdio) serving tool definitions shaped like real servers'.

Each tool stands for one conversion problem of issue 13, with its schema sent exactly as
written here: a recursive ``$ref`` (a tree), a description over OpenAI's 1,024-character
limit, a boolean sub-schema and draft-04 ``exclusiveMinimum: true``. Every call answers
with the arguments it got, as JSON text.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

_SENTENCE = (
    "Search the knowledge base for documents that match the query, ranking them by relevance "
    "and recency, and return their titles, links and a short excerpt for each. "
)
LONG_DESCRIPTION = _SENTENCE * 16  # about 2,600 characters, as real servers ship

TOOLS: list[dict[str, Any]] = [
    {
        "name": "tree_insert",
        "description": "Insert a tree of labelled nodes; each node may have child nodes.",
        "inputSchema": {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/node"}},
            "required": ["tree"],
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string", "description": "The node's label."},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    },
                    "required": ["label"],
                }
            },
        },
    },
    {
        "name": "search_knowledge_base",
        "description": LONG_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What to look for."}},
            "required": ["query"],
        },
    },
    {
        "name": "store_anything",
        "description": "Store any JSON value under a key.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "key": {"type": "string", "description": "Where to store it."},
                "value": True,
            },
            "required": ["key", "value"],
        },
    },
    {
        "name": "positive_count",
        "description": "Record a count that must be greater than zero.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "count": {
                    "type": "integer",
                    "minimum": 0,
                    "exclusiveMinimum": True,
                    "description": "How many.",
                }
            },
            "required": ["count"],
        },
    },
]


async def _list_tools(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in TOOLS])


async def _call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = json.dumps({"tool": params.name, "arguments": params.arguments or {}})
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server: Server[Any] = Server("crafted", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def main() -> None:
    """Serve over stdio until the client closes the connection."""
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
