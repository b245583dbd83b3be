"""The tools both MCP servers in `bench_mcp.py` serve, and the SDK peer server itself.

``forge-tools serve --tools _mcp_servers:registry`` serves them with forge-tools;
``python _mcp_servers.py PORT`` serves the same functions with the SDK's `MCPServer` over
streamable HTTP, ``python _mcp_servers.py stdio`` over stdio.
"""

from __future__ import annotations

import asyncio
import sys

IO_DELAY_S = 0.01


def add(a: int, b: int) -> int:
    """Add two integers (a sync tool)."""
    return a + b


async def io_add(a: int, b: int) -> int:
    """Add two integers after a short wait, like a tool that calls a service."""
    await asyncio.sleep(IO_DELAY_S)
    return a + b


def registry() -> object:
    """The forge-tools registry of the benchmark tools."""
    from forge.tools import ToolRegistry, tool

    return ToolRegistry([tool(add), tool(io_add)])


def serve_peer(port: int | None) -> None:
    """Serve the same tools with the mcp SDK's own high-level server (``None``: stdio)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sdk-peer", log_level="WARNING")
    server.add_tool(add)
    server.add_tool(io_add)
    if port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    serve_peer(None if sys.argv[1] == "stdio" else int(sys.argv[1]))
