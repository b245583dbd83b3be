"""The body of ``forge-tools serve --servers FILE``: run the gateway, turn failures into codes."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from forge.gateway.config import ServersFileError, load_servers
from forge.gateway.gateway import Gateway
from forge.mcp.command import print_error, serving
from forge.mcp.serve import TOKEN_ENV, Transport, serve

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
    search: Mapping[str, Any] | None = None,
) -> int:
    """Serve every server of ``servers`` as one MCP server until stopped; the exit code.

    ``search`` holds `DeferredSession` options of the search-only sessions (over the
    file's ``search``). The token for HTTP comes from ``$FORGE_TOOLS_TOKEN``. An invalid
    servers file or invalid search options print why (server and field named) and
    return 4; a refused bind returns 1.
    """
    try:
        config = load_servers(servers, separator=separator)
        if search_only:
            config = dataclasses.replace(config, search_only=True)
        if search:
            config = dataclasses.replace(config, search={**config.search, **search})
        if config.search and not config.search_only:
            raise ServersFileError(
                "search options (--search-limit, --max-active, --pin, ..., or 'forge.search') "
                "apply to search-only sessions: add --search-only or 'forge.search_only': true"
            )
        gateway = Gateway(config)
    except ServersFileError as exc:
        print_error(str(exc))
        return EXIT_CONFIG
    try:
        server = gateway.mcp_server()  # before any server starts: its options are checked
    except ValueError as exc:
        gateway.close()
        print_error(f"invalid search options: {exc}")
        return EXIT_CONFIG
    for name in config.disabled:
        print(f"forge-tools: server {name!r} is disabled; skipped", file=sys.stderr)

    def run() -> None:
        gateway.start()
        _report(gateway)
        try:
            serve(
                gateway.view, transport=transport, host=host, port=port,
                token=os.environ.get(TOKEN_ENV), server=server, allowed_hosts=allowed_hosts,
            )  # fmt: skip
        finally:
            server.close()

    try:
        return serving(run, host=host, port=port)
    finally:
        gateway.close()


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
