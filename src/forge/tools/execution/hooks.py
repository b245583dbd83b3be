"""Execution hooks: cross-cutting behaviour around every call (metrics, tracing, audit).

A hook is any object with ``before_call`` and/or ``after_call`` (subclass
`ExecutionHook` and override what you need). Each may be a plain or an
``async`` method. The executor calls them like this:

1. lookup and validation;
2. the permission check (`forge.tools.execution.permissions`), then every ``before_call``
   in installation order. A ``before_call`` that returns a `ToolResult` ends
   the call with that result: the handler does not run;
3. the handler (skipped in a dry run);
4. every ``after_call`` in reverse order, for every outcome, including an
   unknown tool (``call.tool is None``), invalid arguments (``call.kwargs is
   None``) and a call cancelled from outside (a ``cancelled`` result, whose
   replacement is ignored because the cancellation propagates). An
   ``after_call`` that returns a `ToolResult` replaces the result.

A hook that raises is logged; in ``before_call`` the call then fails with a
``tool_error`` result, in ``after_call`` the result is kept. When no hook is
installed the executor takes a path with no hook code at all, and so it does when
every hook has an ``active`` attribute that is ``False`` when installed (a tracing
hook with nowhere to send spans, say): such a hook is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.values.context import ExecutionContext
    from forge.tools.values.results import ToolResult

__all__ = ["ExecutionHook", "ToolInvocation"]


@dataclass(slots=True, eq=False, kw_only=True)
class ToolInvocation:
    """One call as the hooks see it."""

    name: str
    """The tool name the caller asked for."""
    tool: Tool | None
    """The tool, or ``None`` when no tool has that name."""
    arguments: Any
    """The arguments as received."""
    kwargs: dict[str, Any] | None
    """The validated keyword arguments (``None`` until validated, or if invalid)."""
    context: ExecutionContext
    """The execution context of the call."""
    call_id: str | None
    """The id of the `ToolCall`, when the call came from one."""
    timeout: float | None
    """The seconds the call may take (``None``: no deadline, a call without a context)."""
    started: float
    """When the call started (`time.perf_counter`)."""
    state: dict[str, Any] = field(default_factory=dict)
    """Scratch space shared by the hooks of this call (a span, a start time...)."""


class ExecutionHook:
    """Base class for hooks; both methods do nothing unless overridden."""

    def before_call(self, call: ToolInvocation) -> ToolResult | None:
        """Run before the handler; return a `ToolResult` to end the call without it."""
        return None

    def after_call(self, call: ToolInvocation, result: ToolResult) -> ToolResult | None:
        """Run after every call; return a `ToolResult` to replace ``result``."""
        return None


def bound_methods(hooks: tuple[Any, ...], method: str) -> tuple[Any, ...]:
    """The hooks' ``method``s that do something (no-ops and inactive hooks are skipped)."""
    base = getattr(ExecutionHook, method)
    out = []
    for hook in hooks:
        if getattr(hook, "active", True) is False:
            continue
        fn = getattr(type(hook), method, None)
        if fn is not None and fn is not base:
            out.append(getattr(hook, method))
    return tuple(out)
