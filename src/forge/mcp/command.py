"""The body of ``forge-tools serve``: run the server, turn failures into exit codes.

`serving` is the one mapping from serving failures to messages and exit codes, for
``serve`` and the gateway (``serve --servers``) alike.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from forge.mcp.serve import TOKEN_ENV, InsecureBindError, Transport, serve
from forge.tools import ToolRegistry

__all__ = ["EXIT_ERROR", "EXIT_OK", "print_error", "run_serve", "serving"]

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
    return serving(
        lambda: serve(
            registry, transport=transport, host=host, port=port, token=token,
            allowed_hosts=allowed_hosts, catalog=catalog, metrics=metrics,
        ),
        host=host, port=port,
    )  # fmt: skip


def serving(run: Callable[[], object], *, host: str, port: int) -> int:
    """Call ``run`` (it serves until stopped) and return the exit code.

    A refused bind (`InsecureBindError`), a refused option (``ValueError``) or an address
    that cannot be listened on (``OSError``) prints why on stderr and returns 1.
    """
    try:
        run()
    except (InsecureBindError, ValueError) as exc:
        print_error(str(exc))
        return EXIT_ERROR
    except OSError as exc:
        print_error(f"cannot listen on {host}:{port}: {exc}")
        return EXIT_ERROR
    return EXIT_OK


def print_error(message: str) -> None:
    """Print ``forge-tools: error: <message>`` on stderr."""
    print(f"forge-tools: error: {message}", file=sys.stderr)
