"""The body of ``forge-tools serve``: run the server, turn failures into exit codes."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from forge.core.errors import ForgeError
from forge.tools import Tool, ToolRegistry
from forge.tools.integrations.mcp.serve import TOKEN_ENV, InsecureBindError, Transport, serve

__all__ = ["EXIT_ERROR", "EXIT_OK", "ToolsSpecError", "load_tools_spec", "run_serve"]

EXIT_OK = 0
EXIT_ERROR = 1


def run_serve(
    registry: ToolRegistry, *, transport: Transport, host: str, port: int, token: str | None = None
) -> int:
    """Serve until stopped and return the exit code; the token defaults to ``$FORGE_TOOLS_TOKEN``.

    A refused bind prints why on stderr and returns 1.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    try:
        serve(registry, transport=transport, host=host, port=port, token=token)
    except InsecureBindError as exc:
        print(f"forge-tools: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        print(f"forge-tools: error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


class ToolsSpecError(ForgeError, ValueError):
    """A ``MODULE:ATTRIBUTE`` tools reference that cannot be loaded."""


def load_tools_spec(spec: str) -> ToolRegistry:
    """Load tools from ``package.module:attribute`` (like ``uvicorn app:app``).

    The attribute may be a `ToolRegistry`, an iterable of tools, or a callable
    with no arguments returning either.

    Raises:
        ToolsSpecError: The module or attribute cannot be found, or is not tools.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ToolsSpecError(
            f"expected MODULE:ATTRIBUTE (e.g. 'myapp.tools:registry'), got {spec!r}"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ToolsSpecError(f"cannot import {module_name!r}: {exc}") from exc
    value: Any = getattr(module, attr, None)
    if value is None:
        raise ToolsSpecError(f"module {module_name!r} has no attribute {attr!r}")
    if callable(value) and not isinstance(value, Tool | ToolRegistry):
        value = value()
    if isinstance(value, ToolRegistry):
        return value
    try:
        return ToolRegistry(value)
    except (TypeError, ForgeError) as exc:
        raise ToolsSpecError(f"{spec!r} is not a registry or a list of tools: {exc}") from exc
