"""`Backend`: where a validated call's handler runs when it does not run in this process.

`ToolExecutor(registry, backend=...)` hands every call of a tool the backend
`accepts` to its `Backend.run`; everything else about the call stays in the
caller's process: lookup, validation, permissions, hooks, metrics, the
concurrency limits, the deadline and the shaping of the result. A backend only
runs the handler and answers a `ToolResult`, failures included. The engine
cancels the coroutine of `Backend.run` at the call's deadline or when the caller
is cancelled; a backend stops the remote work then. The Ray backend
(`forge.tools.integrations.ray.RayBackend`) is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled
    from forge.tools.values.results import ToolResult

__all__ = ["Backend"]


@runtime_checkable
class Backend(Protocol):
    """Runs handlers somewhere else (another process, another machine)."""

    def accepts(self, tool: Tool) -> bool:
        """Whether this backend runs ``tool``'s calls (the others run locally)."""
        ...

    async def run(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        """Run the handler of a validated, allowed call and return its result.

        Never raises for a failure of the handler or of the remote machinery: those
        are failed results. `asyncio.CancelledError` (deadline or caller) stops the
        remote work and propagates.
        """
        ...

    def close(self) -> None:
        """Release what the backend holds (called by `ToolExecutor.close`)."""
        ...
