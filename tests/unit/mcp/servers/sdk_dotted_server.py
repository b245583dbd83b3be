"""An MCP server written directly on the `mcp` SDK, with tool names our rule rejects."""

from __future__ import annotations

import math

from mcp.server.mcpserver import MCPServer

server = MCPServer("dotted")


@server.tool(name="math.factorial", description="Return n! for a small n.")
def factorial(n: int) -> int:
    return math.factorial(n)


@server.tool(name="math_factorial", description="The same, under the name the dotted one maps to.")
def factorial_twin(n: int) -> int:
    return -math.factorial(n)


@server.tool(name="text." + "x" * 70, description="A name longer than 64 characters.")
def shout(text: str) -> str:
    return text.upper()


if __name__ == "__main__":
    server.run("stdio")
