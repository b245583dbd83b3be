"""MCP integration: serve a registry over MCP, and import a remote server's tools.

This package needs the ``mcp`` extra (``pip install '.[mcp]'`` in a checkout, or the wheel
with ``[mcp]``); without it, importing it raises `forge.core.errors.MissingDependencyError`.
Nothing in `forge.tools` imports it.

* `MCPToolServer` / `serve`: a `ToolRegistry` served with the official SDK's
  low-level server, over stdio or streamable HTTP (IN-1).
* `MCPClient` / `import_tools`: the tools of a running MCP server registered in
  a registry and called through it like local tools (IN-2).
* `Gateway` / `load_servers`: the servers of an ``mcpServers`` file served as one
  (``forge-tools serve --servers``), optionally search-only (`SearchOnlyServer`).
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401 - fail early, naming the extra
except ImportError as exc:  # pragma: no cover - the dev environment has the extra
    from forge.core.errors import MissingDependencyError

    raise MissingDependencyError("mcp", "mcp") from exc

from forge.tools.integrations.mcp._outcomes import MCPConnectionError
from forge.tools.integrations.mcp._secrets import HeaderValueError
from forge.tools.integrations.mcp.client import MCPClient, import_tools
from forge.tools.integrations.mcp.gateway import Gateway
from forge.tools.integrations.mcp.gateway_config import (
    GatewayConfig,
    ServerConfig,
    ServersFileError,
    load_servers,
)
from forge.tools.integrations.mcp.limits import HttpLimits
from forge.tools.integrations.mcp.runner import (
    CallRunner,
    call_context,
    executor_runner,
    registry_runner,
)
from forge.tools.integrations.mcp.search_only import SearchOnlyServer
from forge.tools.integrations.mcp.serve import DEFAULT_PORT, TOKEN_ENV, InsecureBindError, serve
from forge.tools.integrations.mcp.server import MCPToolServer

__all__ = [
    "DEFAULT_PORT",
    "TOKEN_ENV",
    "CallRunner",
    "Gateway",
    "GatewayConfig",
    "HeaderValueError",
    "HttpLimits",
    "InsecureBindError",
    "MCPClient",
    "MCPConnectionError",
    "MCPToolServer",
    "SearchOnlyServer",
    "ServerConfig",
    "ServersFileError",
    "call_context",
    "executor_runner",
    "import_tools",
    "load_servers",
    "registry_runner",
    "serve",
]
