"""The body of ``forge-tools serve --servers FILE``: run the gateway, turn failures into codes."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from forge.tools.integrations.mcp.command import EXIT_ERROR, EXIT_OK
from forge.tools.integrations.mcp.gateway import Gateway
from forge.tools.integrations.mcp.gateway_config import ServersFileError, load_servers
from forge.tools.integrations.mcp.serve import TOKEN_ENV, InsecureBindError, Transport, serve

__all__ = ["EXIT_CONFIG", "run_gateway"]

EXIT_CONFIG = 4
"""The servers file is missing or invalid."""


def run_gateway(
    servers: Path,
    *,
    transport: Transport,
    host: str,
    port: int,
    allowed_hosts: Sequence[str] = (),
    search_only: bool = False,
    separator: str | None = None,
) -> int:
    """Serve every server of ``servers`` as one MCP server until stopped; the exit code.

    The token for HTTP comes from ``$FORGE_TOOLS_TOKEN``. An invalid servers file prints
    why (server and field named) and returns 4; a refused bind returns 1.
    """
    try:
        config = load_servers(servers, separator=separator)
        if search_only:
            config = dataclasses.replace(config, search_only=True)
        gateway = Gateway(config)
    except ServersFileError as exc:
        print(f"forge-tools: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    for name in config.disabled:
        print(f"forge-tools: server {name!r} is disabled; skipped", file=sys.stderr)
    try:
        gateway.start()
        _report(gateway)
        server = gateway.mcp_server()
        try:
            serve(
                gateway.view, transport=transport, host=host, port=port,
                token=os.environ.get(TOKEN_ENV), server=server, allowed_hosts=allowed_hosts,
            )  # fmt: skip
        finally:
            server.close()
    except (InsecureBindError, ValueError) as exc:
        print(f"forge-tools: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        print(f"forge-tools: error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        gateway.close()
    return EXIT_OK


def _report(gateway: Gateway) -> None:
    for name, upstream in gateway.upstreams.items():
        if upstream.state == "up":
            count = sum(1 for t in gateway.registry if gateway.owner(t.name) is upstream)
            print(f"forge-tools: server {name!r}: {count} tools", file=sys.stderr)
        else:
            why = upstream.error or "still starting"
            print(
                f"forge-tools: server {name!r} is not up ({why}); retrying in the background",
                file=sys.stderr,
            )
