"""pydantic-ai bridge: a registry as a pydantic-ai toolset, and pydantic-ai tools as `Tool` s.

Needs the ``pydantic-ai`` extra (``pydantic-ai-slim``); ``import forge.tools`` never
imports pydantic-ai.

`ForgeToolset` runs every call through a `ToolExecutor`, so its permissions, hooks,
timeouts, metrics and output limit apply, and the arguments are checked by the
tool's own validator (pydantic-ai's own check accepts any JSON object). A failed
result goes back to the model, never ending the run by itself:

* bad arguments (wrong types, missing fields, not JSON) and an unknown tool raise
  `ModelRetry` with our message: the model is asked to fix the call, and each
  retry counts against the tool's ``max_retries``, as for pydantic-ai's own tools;
* a denied call, a timeout, a handler error or a cancelled handler raise
  `ToolFailed`: the model sees the message as a failed result and adapts, without
  spending its retry budget (calling again the same way would not help).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from forge.core.errors import MissingDependencyError, ToolDefinitionError
from forge.tools.integrations._engine import ARGUMENT_ERRORS, Tools, as_executor, tools_of
from forge.tools.model.tool import Tool
from forge.tools.replies import data_url, describe, reply
from forge.tools.values.content import Audio, Content, File, Image
from forge.tools.values.context import ExecutionContext
from forge.tools.values.results import ToolResult

try:
    import pydantic_core
    from pydantic_ai import BinaryContent, ModelRetry, RunContext, ToolDefinition, ToolFailed
    from pydantic_ai import Tool as PydanticAITool
    from pydantic_ai.durable_exec import DurableRunContext
    from pydantic_ai.toolsets import AbstractToolset, FunctionToolset, ToolsetTool
    from pydantic_ai.usage import RunUsage
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the extra
    raise MissingDependencyError("pydantic-ai-slim", "pydantic-ai") from exc

__all__ = ["ForgeToolset", "from_pydantic_ai", "to_pydantic_ai"]

ContextFor: TypeAlias = Callable[[RunContext[Any]], ExecutionContext | None]
"""Builds the `ExecutionContext` of a call from pydantic-ai's run context."""

_ANY_OBJECT = pydantic_core.SchemaValidator(
    pydantic_core.core_schema.dict_schema(
        pydantic_core.core_schema.str_schema(), pydantic_core.core_schema.any_schema()
    )
)


class ForgeToolset(AbstractToolset[Any]):
    """The tools of a `ToolExecutor` (or registry) as a pydantic-ai toolset.

    Tools are listed afresh for each run step, so a registry's changes apply at once.

    Args:
        tools: A `ToolExecutor` (its policies apply), a registry or view, or tools.
        context: The `ExecutionContext` of every call, or a function building it from
            pydantic-ai's ``RunContext`` (default: the executor's).
        max_retries: How many bad calls of one tool the model may fix (``None``: the
            agent's ``retries``).
        id: The toolset's id (needed for durable execution).
    """

    def __init__(
        self,
        tools: Tools,
        *,
        context: ExecutionContext | ContextFor | None = None,
        max_retries: int | None = None,
        id: str | None = None,
    ) -> None:
        self.executor = as_executor(tools, "ForgeToolset")
        self._context = context
        self._max_retries = max_retries
        self._id = id

    @property
    def id(self) -> str | None:
        """The toolset's id, if given."""
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The executor's tools, as pydantic-ai tool definitions."""
        retries = ctx.max_retries if self._max_retries is None else self._max_retries
        return {
            t.name: ToolsetTool(
                toolset=self,
                tool_def=_definition(t),
                max_retries=retries,
                args_validator=_ANY_OBJECT,
            )
            for t in tools_of(self.executor)
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Run the call through the executor; a failure raises `ModelRetry` or `ToolFailed`."""
        result = await self.executor.run(
            name, tool_args, self._context_for(ctx), call_id=ctx.tool_call_id
        )
        if result.success:
            return _model_output(result)
        message = result.error or "the tool failed"
        if result.error_kind in ARGUMENT_ERRORS:
            raise ModelRetry(message)
        raise ToolFailed(message)

    def _context_for(self, ctx: RunContext[Any]) -> ExecutionContext | None:
        if self._context is None or isinstance(self._context, ExecutionContext):
            return self._context
        return self._context(ctx)


def to_pydantic_ai(
    tools: Tools,
    *,
    context: ExecutionContext | ContextFor | None = None,
    max_retries: int | None = None,
    id: str | None = None,
) -> ForgeToolset:
    """Return a pydantic-ai toolset running ``tools`` through the executor (`ForgeToolset`).

    Use it as ``Agent(model, toolsets=[to_pydantic_ai(executor)])``.
    """
    return ForgeToolset(tools, context=context, max_retries=max_retries, id=id)


def _definition(t: Tool) -> ToolDefinition:
    schema = t.output_schema
    return ToolDefinition(
        name=t.name,
        description=t.description,
        parameters_json_schema=dict(t.parameters),
        return_schema=dict(schema) if schema is not None else None,
    )


def _model_output(result: ToolResult) -> Any:
    """The output as pydantic-ai sends it: JSON data or text, images and audio as binary."""
    answer = reply(result)
    if answer.parts is None:
        return answer.json()
    return [_part(part) for part in answer.parts]


def _part(part: Content) -> Any:
    if isinstance(part, Image | Audio) or (isinstance(part, File) and isinstance(part.data, bytes)):
        return BinaryContent.from_data_uri(data_url(part))
    return describe(part, "pydantic-ai")


# -- pydantic-ai tools into a registry ------------------------------------------------------


def from_pydantic_ai(items: Any, *, deps: Any = None) -> list[Tool]:
    """Return pydantic-ai tools as `Tool` s, with pydantic-ai's own JSON Schemas.

    Args:
        items: A pydantic-ai ``Tool``, a tool function, a ``FunctionToolset``, or a list
            of these.
        deps: What a tool taking ``RunContext`` reads as ``ctx.deps``. The context has
            no agent run: reading ``ctx.model`` and the other run-only fields raises.

    Raises:
        ToolDefinitionError: An item is none of these.
    """
    return [_import(t, deps) for t in _pydantic_ai_tools(items)]


def _pydantic_ai_tools(items: Any) -> list[PydanticAITool[Any]]:
    if isinstance(items, PydanticAITool | FunctionToolset) or inspect.isroutine(items):
        items = [items]
    found: list[PydanticAITool[Any]] = []
    for item in items if isinstance(items, Iterable) else [items]:
        if isinstance(item, PydanticAITool):
            found.append(item)
        elif isinstance(item, FunctionToolset):
            found.extend(item.tools.values())
        elif isinstance(item, Tool) or not callable(item):
            raise ToolDefinitionError(
                getattr(item, "name", "<unknown>"),
                "from_pydantic_ai takes pydantic-ai Tools, tool functions and FunctionToolsets, "
                f"got {type(item).__name__}",
            )
        else:
            found.append(PydanticAITool(item))
    return found


def _import(source: PydanticAITool[Any], deps: Any) -> Tool:
    from forge.tools.model.records import from_record

    definition = source.tool_def
    schema = source.function_schema
    name = definition.name

    async def call(**arguments: Any) -> Any:
        args = schema.validator.validate_python(arguments)
        return await schema.call(args, _NoRun(deps, tool_name=name))

    return from_record(
        {
            "name": name,
            "description": definition.description or f"The pydantic-ai tool {name!r}.",
            "parameters": definition.parameters_json_schema,
            "handler": call,
        }
    )


class _NoRun(DurableRunContext[Any]):
    """The ``RunContext`` a pydantic-ai tool gets when forge-tools calls it: ``deps`` only."""

    def __init__(self, deps: Any, *, tool_name: str) -> None:
        super().__init__(deps, usage=RunUsage(), tool_name=tool_name, retry=0, max_retries=0)

    def unavailable_field_message(self, name: str) -> str:
        return (
            f"{name!r} is not available to a pydantic-ai tool run by forge-tools (there is no "
            "agent run): only deps, tool_name and usage are; pass what the tool needs as "
            "deps (from_pydantic_ai(..., deps=...))"
        )
