"""Serving an `MCPToolServer` over streamable HTTP, with the web catalog (`serve_http`).

Kept apart from `forge.mcp.serve` so that a server started over stdio, once per client
session, does not import the HTTP stack (uvicorn, the catalog, the host and session guards).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings

from forge.mcp._bind import DEFAULT_HOST, DEFAULT_PORT, MCP_PATH, SHUTDOWN_GRACE_SECONDS, check_bind
from forge.mcp._catalog import with_catalog
from forge.mcp._connections import guarded_protocol
from forge.mcp._disconnects import CancelOnDisconnect
from forge.mcp._events import DEFAULT_RETRY_MS, RecentEvents
from forge.mcp._hosts import HostGuard, HostPolicy
from forge.mcp._http import BearerAuth, HttpServer
from forge.mcp._sessions import SessionBudget
from forge.mcp.limits import HttpLimits
from forge.mcp.server import MCPToolServer

__all__ = ["serve_http"]


async def serve_http(
    server: MCPToolServer,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    token: str | None = None,
    on_started: Callable[[str, int], None] | None = None,
    allowed_hosts: Sequence[str] = (),
    limits: HttpLimits | None = None,
    catalog: bool = True,
) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until cancelled.

    With ``catalog`` (the default) the web catalog of the tools is served at ``/``
    (`forge.catalog`): the same host check and token apply, and a browser may
    sign in with the token for a session cookie, which opens the catalog but not ``/mcp``.

    SSE responses start with a priming event and a ``retry`` interval, and the
    last events are kept so a client whose stream dropped can resume it. Requests
    must name the server by a loopback name or address (a loopback ``host``), by
    any IP address or by ``host`` itself (another bind), or by one of
    ``allowed_hosts`` (``"*"``: any); others get 421 (``Host``) or 403 (``Origin``).
    A call whose client disconnected is cancelled unless the client resumes its
    stream within ``limits.disconnect_grace``.

    Raises:
        InsecureBindError: A non-loopback ``host`` without a long enough ``token``.
        ValueError: An allowed host that is not a host name or an address.
        OSError: The address cannot be listened on.
    """
    check_bind(host, token)
    limits = limits or HttpLimits()
    sdk_app: Any = server.lowlevel.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=host,
        event_store=RecentEvents(),
        retry_interval=DEFAULT_RETRY_MS,
        session_idle_timeout=limits.session_idle_timeout,
        max_sessions=limits.max_sessions + limits.max_connections,  # ours are enforced first
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    cancelling = CancelOnDisconnect(sdk_app, limits.disconnect_grace)
    app: Any = SessionBudget(cancelling, limits)
    if token:
        app = BearerAuth(app, token)
    shelf = None
    if catalog:
        app, shelf = with_catalog(app, MCP_PATH, server, token, limits)
    app = HostGuard(app, HostPolicy(host, allowed_hosts))
    protocol, _ = guarded_protocol(limits)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", http=protocol,
        timeout_keep_alive=limits.keep_alive_timeout,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
    )  # fmt: skip
    http = HttpServer(config, on_started=on_started or partial(_announce_url, catalog=catalog))
    async with server.announcing_changes():
        if shelf is not None:
            shelf.feed.start()
        try:
            await http.serve()
        except asyncio.CancelledError:
            if shelf is not None:
                shelf.close()  # end the catalog's event streams, or shutdown waits for them
            await http.stop()
            raise
        except SystemExit:  # uvicorn exits the process when it cannot listen
            raise OSError(f"the address is in use or not available (port {port})") from None
        finally:
            if shelf is not None:
                shelf.close()
            await cancelling.aclose()


def _announce_url(host: str, port: int, *, catalog: bool = False) -> None:
    shown = f"[{host}]" if ":" in host else host
    print(
        f"forge-tools MCP server listening on http://{shown}:{port}{MCP_PATH} "
        "(streamable HTTP); press Ctrl+C to stop",
        file=sys.stderr,
        flush=True,
    )
    if catalog:
        print(f"forge-tools catalog at http://{shown}:{port}/", file=sys.stderr, flush=True)
