"""The one seam between the MCP server and tool execution: run a call, get a `ToolResult`.

The server never raises for anything a model can cause, so a `CallRunner`
must not either: unknown tools, invalid arguments, handler errors and
timeouts all come back as failed results with their `ErrorKind`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, ToolResult
from forge.tools._run import invalid, misconfigured, run_async

__all__ = ["CallRunner", "registry_runner"]

CallRunner = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""``await runner(name, arguments)`` runs one call and returns its result; it never raises."""


def registry_runner(registry: ToolRegistry, context: ExecutionContext | None = None) -> CallRunner:
    """Return a `CallRunner` over ``registry``, bounded by each call's timeout.

    The timeout is the tool's own, else the context's. Sync handlers run on a
    worker thread (unless marked cheap), so the event loop is never blocked;
    a timed-out sync handler's thread is abandoned, not killed.
    """
    ctx = context if context is not None else ExecutionContext()

    async def run(name: str, arguments: dict[str, Any]) -> ToolResult:
        found = registry.get(name)
        if found is None:  # the registry words the unknown-tool message, with the tool list
            [result] = await registry.aexecute_all([ToolCall.create(name, arguments)])
            return result
        limit = found.timeout or ctx.timeout
        try:
            async with asyncio.timeout(limit):
                return await run_async(found, arguments, ctx)
        except ToolValidationError as exc:
            return invalid(name, exc)
        except ToolDefinitionError as exc:
            return misconfigured(name, exc)
        except TimeoutError:
            return ToolResult.fail(
                f"Tool {name!r} timed out after {limit:g} seconds. Retrying may not help; "
                "try smaller inputs or another tool.",
                error_kind=ErrorKind.TIMEOUT,
            ).for_call(None, name)

    return run
