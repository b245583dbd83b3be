"""OpenAI Agents SDK bridge: a registry as its ``FunctionTool`` s, and its function tools as ours.

Needs the ``openai-agents`` extra; ``import forge.tools`` never imports the SDK.

`to_openai_agents` gives each tool a ``FunctionTool`` with the strict-mode schema
``to_provider("openai", strict=True)`` writes (every property required, optional
ones nullable, no extra properties), and an ``on_invoke_tool`` that runs the call
through a `ToolExecutor`: its permissions, hooks, timeouts, metrics and output limit
apply, and the ``null`` a strict-mode model sends for a parameter it leaves out
means "use the default". A failed result (bad arguments, a denied call, a timeout,
a handler error) returns its message as the tool's output, which the SDK sends to
the model as it would its own tools' error strings; the run goes on.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from forge.core.errors import MissingDependencyError, ToolDefinitionError
from forge.tools.formats import to_provider
from forge.tools.integrations._engine import Tools, as_executor, tools_of
from forge.tools.model.tool import Tool
from forge.tools.replies import data_url, describe, reply
from forge.tools.values.content import Content, Image
from forge.tools.values.context import ExecutionContext
from forge.tools.values.results import ToolResult

try:
    from agents import FunctionTool, ToolOutputImage, ToolOutputText, function_tool
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the extra
    raise MissingDependencyError("openai-agents", "openai-agents") from exc

__all__ = ["from_openai_agents", "to_openai_agents"]

ContextFor: TypeAlias = Callable[[ToolContext[Any]], ExecutionContext | None]
"""Builds the `ExecutionContext` of a call from the SDK's ``ToolContext``."""


def to_openai_agents(
    tools: Tools, *, context: ExecutionContext | ContextFor | None = None
) -> list[FunctionTool]:
    """Return a ``FunctionTool`` per tool, each call running through the executor.

    Use them as ``Agent(name=..., tools=to_openai_agents(executor))``. The list is a
    snapshot: call again after the registry changes.

    Args:
        tools: A `ToolExecutor` (its policies apply), a registry or view, or tools.
        context: The `ExecutionContext` of every call, or a function building it from
            the SDK's ``ToolContext`` (its ``context`` is what ``Runner.run(context=...)``
            was given); default: the executor's.
    """
    executor = as_executor(tools, "to_openai_agents")
    listed = tools_of(executor)
    if not listed:
        return []
    definitions = to_provider(listed, "openai", strict=True)
    return [
        _function_tool(executor, t, definition["function"], context)
        for t, definition in zip(listed, definitions, strict=True)
    ]


def _function_tool(
    executor: Any, tool: Tool, definition: Any, context: ExecutionContext | ContextFor | None
) -> FunctionTool:
    name = tool.name

    async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
        given = context(ctx) if callable(context) else context
        result = await executor.run(name, arguments or "{}", given, call_id=ctx.tool_call_id)
        return _model_output(result)

    return FunctionTool(
        name=name,
        description=definition.get("description", tool.description),
        params_json_schema=json.loads(json.dumps(definition["parameters"])),
        on_invoke_tool=invoke,
        strict_json_schema=bool(definition.get("strict")),
    )


def _model_output(result: ToolResult) -> Any:
    """What the model sees: the error, the output's text or JSON, or text and image parts."""
    if not result.success:
        return result.error or "the tool failed"
    answer = reply(result)
    if answer.parts is None:
        return answer.text
    return [_part(part) for part in answer.parts]


def _part(part: Content) -> Any:
    if isinstance(part, Image):
        return ToolOutputImage(image_url=data_url(part))
    return ToolOutputText(text=describe(part, "openai-agents"))


# -- the SDK's function tools into a registry -------------------------------------------------


def from_openai_agents(items: Any, *, context: Any = None) -> list[Tool]:
    """Return OpenAI Agents SDK function tools as `Tool` s, with the SDK's own JSON Schemas.

    The SDK's tool handles its own failures as it does in a run: a function that raises
    answers with the SDK's error string (its ``failure_error_function``).

    Args:
        items: A ``FunctionTool``, a plain function (made one with ``function_tool``),
            or a list of these.
        context: What a tool taking ``RunContextWrapper`` or ``ToolContext`` reads as
            ``ctx.context``.

    Raises:
        ToolDefinitionError: An item is neither.
    """
    single = isinstance(items, FunctionTool) or (callable(items) and not isinstance(items, Tool))
    listed = [items] if single or not isinstance(items, Iterable) else list(items)
    return [_import(_sdk_tool(item), context) for item in listed]


def _sdk_tool(item: Any) -> FunctionTool:
    if isinstance(item, FunctionTool):
        return item
    if isinstance(item, Tool) or not callable(item):
        raise ToolDefinitionError(
            getattr(item, "name", "<unknown>"),
            "from_openai_agents takes the SDK's FunctionTools and plain functions, "
            f"got {type(item).__name__}",
        )
    return function_tool(item)


def _import(source: FunctionTool, context: Any) -> Tool:
    from forge.tools.model.records import from_record

    name = source.name

    async def call(**arguments: Any) -> Any:
        text = json.dumps(arguments)
        ctx = ToolContext(
            context,
            tool_name=name,
            tool_call_id=f"call_{uuid.uuid4().hex}",
            tool_arguments=text,
        )
        return await source.on_invoke_tool(ctx, text)

    return from_record(
        {
            "name": name,
            "description": source.description or f"The OpenAI Agents SDK tool {name!r}.",
            "parameters": source.params_json_schema,
            "handler": call,
        }
    )
