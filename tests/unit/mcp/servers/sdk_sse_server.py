"""An MCP server of the official SDK over the deprecated HTTP+SSE transport (``/sse``).

Run as ``python sdk_sse_server.py``: it listens on a free port of 127.0.0.1, which it binds
itself and prints as the first line of its standard output; the gateway tests reach it by
``"type": "sse"``.
"""

from __future__ import annotations

import socket

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("sse-test")


@server.tool()
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


if __name__ == "__main__":
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    config = uvicorn.Config(server.sse_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[listener])
