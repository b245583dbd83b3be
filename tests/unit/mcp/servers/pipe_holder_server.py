"""An MCP server (low-level `mcp` SDK, stdio) whose child process holds its stdout pipe.

``python pipe_holder_server.py PIDFILE`` starts a ``sleep``-like child that inherits the
server's stdin and stdout (as a wrapper script's or ``npx``'s children do), appends
``<server pid> <child pid>`` to ``PIDFILE`` and serves one tool, ``ping``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

_PING = types.Tool(name="ping", description="Answer pong.", input_schema={"type": "object"})


async def _list_tools(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[_PING])


async def _call_tool(_ctx: Any, _params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])


async def main() -> None:
    """Start the child, record both pids, serve over stdio until the client closes."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(sys.argv[1], "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()} {child.pid}\n")
    server: Server[Any] = Server("pipe-holder", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
