"""The MCP gateway: many MCP servers served as one (``forge-tools serve --servers``).

Needs the ``mcp`` extra, like `forge.mcp`, whose server and client it is built from.

* `Gateway`: the servers of a `GatewayConfig`, kept connected and served as one
  registry through one `ToolExecutor` (optionally search-only).
* `load_servers`: an ``mcpServers`` file (Claude Desktop, Cursor, VS Code) as a
  `GatewayConfig`; an invalid one raises `ServersFileError`.
* `Backoff`: the delays between reconnect attempts.
"""

from __future__ import annotations

from forge.gateway._backoff import Backoff
from forge.gateway.config import GatewayConfig, ServerConfig, ServersFileError, load_servers
from forge.gateway.gateway import Gateway

__all__ = [
    "Backoff",
    "Gateway",
    "GatewayConfig",
    "ServerConfig",
    "ServersFileError",
    "load_servers",
]
