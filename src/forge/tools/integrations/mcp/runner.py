"""The one seam between the MCP server and tool execution: run a call, get a `ToolResult`.

The server never raises for anything a model can cause, so a `CallRunner`
must not either. The default runs calls through a `ToolExecutor`, which
validates, enforces timeouts and permissions, runs sync handlers off the
event loop and records metrics; unknown tools, invalid arguments, denied
calls, handler errors and timeouts all come back as failed results with
their `ErrorKind`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from forge.tools import ExecutionContext, ToolExecutor, ToolRegistry, ToolResult, ToolView

__all__ = ["CallRunner", "executor_runner", "registry_runner"]

CallRunner = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""``await runner(name, arguments)`` runs one call and returns its result; it never raises."""


def executor_runner(executor: ToolExecutor) -> CallRunner:
    """Return a `CallRunner` that runs every call through ``executor``."""

    async def run(name: str, arguments: dict[str, Any]) -> ToolResult:
        return await executor.run(name, arguments)

    return run


def registry_runner(
    registry: ToolRegistry | ToolView, context: ExecutionContext | None = None
) -> CallRunner:
    """Return a `CallRunner` over a new `ToolExecutor` for ``registry``."""
    return executor_runner(ToolExecutor(registry, context=context))
