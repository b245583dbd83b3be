"""The body of ``forge-tools serve``: run the server, turn failures into exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from forge.tools import ToolRegistry
from forge.tools.integrations.mcp.serve import TOKEN_ENV, InsecureBindError, Transport, serve

__all__ = ["EXIT_ERROR", "EXIT_OK", "run_serve"]

EXIT_OK = 0
EXIT_ERROR = 1


def run_serve(
    registry: ToolRegistry,
    *,
    transport: Transport,
    host: str,
    port: int,
    token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    catalog: bool = True,
    metrics: bool = False,
) -> int:
    """Serve until stopped and return the exit code; the token defaults to ``$FORGE_TOOLS_TOKEN``.

    A refused bind or allowed host prints why on stderr and returns 1.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV)
    try:
        serve(
            registry, transport=transport, host=host, port=port, token=token,
            allowed_hosts=allowed_hosts, catalog=catalog, metrics=metrics,
        )  # fmt: skip
    except (InsecureBindError, ValueError) as exc:
        print(f"forge-tools: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        print(f"forge-tools: error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
