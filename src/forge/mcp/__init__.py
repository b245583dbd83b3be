"""MCP beside the library: serve a registry over MCP, and import a remote server's tools.

This package needs the ``mcp`` extra (``pip install '.[mcp]'`` in a checkout, or the wheel
with ``[mcp]``); without it, importing it raises `forge.core.errors.MissingDependencyError`.
Nothing in `forge.tools` imports it; it uses only the library's public API.

* `MCPToolServer` / `serve`: a `ToolRegistry` served with the official SDK's
  low-level server, over stdio or streamable HTTP; its calls run through a `ToolExecutor`.
* `SearchOnlyServer`: a server whose sessions see a search tool and the tools it revealed.
* `MCPClient` / `import_tools`: the tools of a running MCP server registered in
  a registry and called through it like local tools.

Many servers served as one (``forge-tools serve --servers``) is `forge.gateway`.
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401 - fail early, naming the extra
except ImportError as exc:  # pragma: no cover - the dev environment has the extra
    from forge.core.errors import MissingDependencyError

    raise MissingDependencyError("mcp", "mcp") from exc

from typing import TYPE_CHECKING

from forge.core.lazy import lazy_face
from forge.mcp.serve import DEFAULT_PORT, TOKEN_ENV, InsecureBindError, serve
from forge.mcp.server import MCPToolServer

if TYPE_CHECKING:
    from forge.mcp._channel import call_context
    from forge.mcp._outcomes import MCPConnectionError
    from forge.mcp.client import MCPClient, import_tools
    from forge.mcp.credentials import HeaderValueError
    from forge.mcp.limits import HttpLimits
    from forge.mcp.search_only import SearchOnlyServer

# A server started for one session (``forge-tools serve`` over stdio) needs neither the
# client, nor search-only sessions, nor what only a call or HTTP needs: each is imported
# on first use.
__getattr__, __dir__ = lazy_face(__name__, {
    "MCPClient": "forge.mcp.client",
    "import_tools": "forge.mcp.client",
    "SearchOnlyServer": "forge.mcp.search_only",
    "call_context": "forge.mcp._channel",
    "MCPConnectionError": "forge.mcp._outcomes",
    "HeaderValueError": "forge.mcp.credentials",
    "HttpLimits": "forge.mcp.limits",
})  # fmt: skip


__all__ = [
    "DEFAULT_PORT",
    "TOKEN_ENV",
    "HeaderValueError",
    "HttpLimits",
    "InsecureBindError",
    "MCPClient",
    "MCPConnectionError",
    "MCPToolServer",
    "SearchOnlyServer",
    "call_context",
    "import_tools",
    "serve",
]
