"""`BaseTool`: the class-based way to define a tool (the executor API of the original design).

This module also re-exports the value types the original design imports from here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools.model.options import ErrorDetails, options_of, tool_fields
from forge.tools.model.tool import Tool
from forge.tools.schema import Compiled, default_context
from forge.tools.values.categories import ToolCategory
from forge.tools.values.context import ExecutionContext
from forge.tools.values.metadata import ToolAnnotations
from forge.tools.values.params import ToolParameter
from forge.tools.values.results import ToolResult

__all__ = ["BaseTool", "ExecutionContext", "ToolCategory", "ToolParameter", "ToolResult"]


class BaseTool(ABC):
    """Base class for class-based tools.

    Declare ``name``, ``description``, ``category`` and ``parameters`` (as
    properties or plain class attributes) and implement
    ``async _execute(context, **kwargs) -> ToolResult``. Every other option
    of `ToolOptions` may be set the same way, as a class attribute (or a
    property, or an attribute set in ``__init__``): ``tags``, ``timeout``,
    ``annotations``, ``display_name``, ``max_concurrency`` (1 = not safe for
    concurrent use), ``error_details``, ``version``, ``examples``, ...
    """

    tags: tuple[str, ...] = ()
    timeout: float | None = None
    annotations: ToolAnnotations | None = None
    display_name: str | None = None
    max_concurrency: int | None = None
    error_details: ErrorDetails = "message"

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the tool's own attributes, not its cached `Tool` and engine (rebuilt on use).

        This is what lets a remote backend ship a `BaseTool` to its workers.
        """
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_forge_")}

    @property
    @abstractmethod
    def name(self) -> str:
        """Unique tool name."""

    @property
    @abstractmethod
    def description(self) -> str:
        """Tool description for the model."""

    @property
    @abstractmethod
    def category(self) -> ToolCategory:
        """Tool category."""

    @property
    @abstractmethod
    def parameters(self) -> list[ToolParameter]:
        """Tool parameters."""

    @abstractmethod
    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        """Run the tool with validated arguments."""

    def to_tool(self) -> Tool:
        """Return the canonical `Tool` record for this instance (built once)."""
        cached: Tool | None = self.__dict__.get("_forge_tool")
        if cached is None:
            cached = Tool(
                name=self.name,
                description=self.description,
                handler=self.execute,
                source=BaseToolSource(self),
                **tool_fields(self.name, options_of(self)),
            )
            if cached.metadata.examples:
                cached.compile()
            self.__dict__["_forge_tool"] = cached
        return cached

    async def execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        """Validate, then run `_execute` within the timeout; never raises for bad input.

        The call goes through the same engine as every other entry point
        (`forge.tools.execution.executor`): invalid arguments, a denied call, a timeout
        (this tool's ``timeout``, else ``context.timeout``) and an exception from
        `_execute` become a failed `ToolResult` with the same message as there.
        """
        tool = self.to_tool()
        result: ToolResult = await _engine_of(self, tool).run(tool.name, kwargs, context)
        return result

    def validate_params(self, **kwargs: Any) -> tuple[bool, str | None]:
        """Validate arguments against the parameters; return ``(valid, error message)``."""
        try:
            self.to_tool().validate(kwargs)
        except ToolValidationError as exc:
            return False, exc.message
        return True, None

    def to_openai_schema(self) -> dict[str, Any]:
        """Return the OpenAI Chat Completions tool definition."""
        return self.to_tool().to_openai_schema()

    def to_anthropic_schema(self) -> dict[str, Any]:
        """Return the Anthropic Messages tool definition."""
        return self.to_tool().to_anthropic_schema()


def _engine_of(owner: BaseTool, tool: Tool) -> Any:
    """The engine of a tool run on its own (a one-tool registry, no hooks), built once."""
    engine = owner.__dict__.get("_forge_engine")
    if engine is None:
        from forge.tools.execution.executor import contextless
        from forge.tools.model.source import FixedTools

        engine = owner.__dict__["_forge_engine"] = contextless(FixedTools([tool]))
    return engine


@dataclass(frozen=True, slots=True)
class BaseToolSource:
    """A `BaseTool` instance: `ToolParameter`s and ``async _execute``."""

    instance: BaseTool
    is_async: bool = True

    def compile(self, name: str) -> Compiled:
        from forge.tools.schema import SchemaValidator
        from forge.tools.values.params import parameters_schema

        try:
            schema = parameters_schema(self.instance.parameters)
        except ValueError as exc:
            raise ToolDefinitionError(name, str(exc)) from None
        run = self.instance._execute

        def invoke(kwargs: dict[str, Any], ctx: ExecutionContext | None) -> Any:
            return run(default_context(ctx), **kwargs)

        return Compiled(schema, SchemaValidator(name, schema), invoke, None)
