"""The web catalog beside ``/mcp``: one ASGI app that routes by path (``serve_http``).

``/mcp`` (and below) goes to the MCP stack with its bearer-token check; every other
path goes to the catalog (`forge.catalog.app`), which checks the same token or
its own login cookie. The cookie never reaches the MCP check, so it cannot open
``/mcp``. Lifespan events go to the MCP stack, whose session manager needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.mcp._http import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from forge.catalog import Catalog
    from forge.mcp.limits import HttpLimits
    from forge.mcp.server import MCPToolServer

__all__ = ["PathSplit", "with_catalog"]


class PathSplit:
    """Send requests under ``prefix`` (and lifespan events) to ``inner``, the rest to ``other``."""

    def __init__(self, prefix: str, inner: ASGIApp, other: ASGIApp) -> None:
        self.prefix = prefix
        self.inner = inner
        self.other = other

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one connection by its path."""
        path: str = scope.get("path", "")
        if scope["type"] == "lifespan" or path == self.prefix or path.startswith(self.prefix + "/"):
            await self.inner(scope, receive, send)
        else:
            await self.other(scope, receive, send)


def with_catalog(
    mcp_app: ASGIApp, prefix: str, server: MCPToolServer, token: str | None, limits: HttpLimits
) -> tuple[ASGIApp, Catalog]:
    """``mcp_app`` at ``prefix``, the catalog of ``server``'s tools everywhere else.

    The catalog runs calls through the server's executor (its permission policy, timeouts,
    hooks and metrics apply) and shows that executor's metrics. Its event streams
    may hold at most half of each connection cap, so they never starve ``/mcp``.
    """
    from forge.catalog import Catalog
    from forge.catalog.app import catalog_app

    catalog = Catalog(server.registry, executor=server.executor)
    shelf = catalog_app(
        catalog,
        token=token,
        max_streams_per_client=min(
            limits.max_event_streams_per_client, limits.max_connections_per_client // 2
        ),
        max_streams=min(limits.max_event_streams, limits.max_connections // 2),
    )
    return PathSplit(prefix, mcp_app, shelf), catalog
