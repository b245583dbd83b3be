"""What every framework adapter shares: the engine its calls run through, and what a model sees.

An adapter takes a `ToolExecutor` (its permissions, hooks, timeouts, metrics and
output limit then apply to every call the framework makes), a registry or view, or
a list of tools; the last two get an executor with the defaults.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from forge.core.errors import ToolDefinitionError
from forge.tools.execution.executor import ToolExecutor
from forge.tools.model.tool import Tool
from forge.tools.registry import ToolRegistry, ToolView
from forge.tools.replies import describe, reply
from forge.tools.values.results import ErrorKind, ToolResult

__all__ = ["ARGUMENT_ERRORS", "Tools", "as_executor", "model_text", "tools_of"]

Tools: TypeAlias = ToolExecutor | ToolRegistry | ToolView | Iterable[Tool]
"""What an adapter takes: an executor, a registry (or view), or tools."""

ARGUMENT_ERRORS = frozenset({ErrorKind.INVALID_ARGUMENTS, ErrorKind.INVALID_JSON,
                             ErrorKind.UNKNOWN_TOOL})  # fmt: skip
"""Failures the model fixes by calling again differently (the others: it adapts)."""


def as_executor(tools: Tools, where: str) -> ToolExecutor:
    """The executor ``tools`` runs through: itself, or a new one with the defaults over the
    registry or view, or over a new registry of the tools.

    Raises:
        ToolDefinitionError: An item is not a forge `Tool` (``where`` names the adapter).
    """
    if isinstance(tools, ToolExecutor):
        return tools
    if isinstance(tools, ToolRegistry | ToolView):
        return ToolExecutor(tools)
    items = list(tools) if isinstance(tools, Iterable) else [tools]
    for item in items:
        if not isinstance(item, Tool):
            raise ToolDefinitionError(
                getattr(item, "name", "<unknown>"),
                f"{where} takes a ToolExecutor, a ToolRegistry (or view) or a list of forge "
                f"Tools; got {type(item).__name__} (define it with @tool first)",
            )
    return ToolExecutor(ToolRegistry(items))


def tools_of(executor: ToolExecutor) -> list[Tool]:
    """The executor's tools now, in registry order (each compiled)."""
    source = executor.registry
    found = [source.get(name) for name in source.names()]
    tools = [t for t in found if t is not None]
    for t in tools:
        t.compiled()
    return tools


def model_text(result: ToolResult, provider: str) -> str:
    """What a successful ``result`` sends the model as one text, within its output limit.

    Plain output is its text (a ``str``) or compact JSON; content parts are joined, a
    part the framework cannot carry as text standing as a note naming it.
    """
    answer = reply(result)
    if answer.parts is None:
        return answer.text
    return "\n".join(describe(part, provider) for part in answer.parts)
