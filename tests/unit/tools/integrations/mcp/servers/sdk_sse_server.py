"""An MCP server of the official SDK over the deprecated HTTP+SSE transport (``/sse``).

Run as ``python sdk_sse_server.py PORT``; the gateway tests reach it by ``"type": "sse"``.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("sse-test")


@server.tool()
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


if __name__ == "__main__":
    server.run("sse", host="127.0.0.1", port=int(sys.argv[1]))
