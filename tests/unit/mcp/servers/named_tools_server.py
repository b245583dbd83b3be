"""An MCP server written on the `mcp` SDK whose tool names come from the command line.

``python named_tools_server.py LABEL NAME...`` serves one tool per NAME; each answers
``LABEL:NAME:text``, so a test sees which server and which tool a call reached.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mcp.server.mcpserver import MCPServer


def _echo(label: str, name: str) -> Callable[[str], str]:
    def echo(text: str = "") -> str:
        return f"{label}:{name}:{text}"

    return echo


def main(label: str, names: list[str]) -> None:
    """Serve ``names`` over stdio."""
    server = MCPServer(label)
    for name in names:
        server.tool(name=name, description=f"Echo through {name}.")(_echo(label, name))
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
