"""The one seam between the MCP server and tool execution: run a call, get a `ToolResult`.

The server never raises for anything a model can cause, so a `CallRunner`
must not either. The default runs calls through a `ToolExecutor`, which
validates, enforces timeouts and permissions, runs sync handlers off the
event loop and records metrics; unknown tools, invalid arguments, denied
calls, handler errors and timeouts all come back as failed results with
their `ErrorKind`.

While the server runs a call, `call_context` gives the context that carries the
client's channel (progress, log messages, elicitation, sampling) for the tool;
the default runner passes it, and a custom runner can too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from forge.tools import ExecutionContext, Tool, ToolExecutor, ToolRegistry, ToolResult, ToolView

__all__ = ["CallRunner", "call_context", "executor_runner", "registry_runner"]

CLIENT: ContextVar[Any] = ContextVar("forge_mcp_client", default=None)
"""The client channel of the ``tools/call`` being served (set by `MCPToolServer`): an
object whose ``callbacks()`` are the ``on_*`` fields of the call's context."""

CallRunner = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""``await runner(name, arguments)`` runs one call and returns its result; it never raises."""


def executor_runner(executor: ToolExecutor) -> CallRunner:
    """Return a `CallRunner` that runs every call through ``executor``."""

    async def run(name: str, arguments: dict[str, Any]) -> ToolResult:
        if CLIENT.get() is None or not _takes_context(executor.registry.get(name)):
            return await executor.run(name, arguments)
        return await executor.run(name, arguments, call_context(executor.context))

    return run


def _takes_context(tool: Tool | None) -> bool:
    """Whether the handler may receive a context (a plain ``fn(**kwargs)`` never does)."""
    if tool is None:
        return False
    try:
        return tool.compiled().fn is None
    except Exception:  # a broken definition: the executor reports it
        return False


def call_context(base: ExecutionContext | None = None) -> ExecutionContext | None:
    """The context for the ``tools/call`` being served: ``base`` wired to the client.

    Its ``on_progress``, ``on_log``, ``on_elicit`` and ``on_sample`` reach the client that
    made the call. Outside a call it returns ``base``.
    """
    client = CLIENT.get()
    if client is None:
        return base
    return (base or ExecutionContext()).replace(**client.callbacks())


def registry_runner(
    registry: ToolRegistry | ToolView, context: ExecutionContext | None = None
) -> CallRunner:
    """Return a `CallRunner` over a new `ToolExecutor` for ``registry``."""
    return executor_runner(ToolExecutor(registry, context=context))
