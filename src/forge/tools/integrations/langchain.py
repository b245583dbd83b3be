"""LangChain bridge: `to_langchain`, `to_langchain_tools` and `from_langchain`.

Needs the ``langchain`` extra (``pip install '.[langchain]'`` in a checkout, or the wheel
with ``[langchain]``); ``import forge.tools`` never imports LangChain.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from forge.core.errors import MissingDependencyError, ToolDefinitionError
from forge.tools.integrations._engine import Tools, as_executor, model_text, tools_of
from forge.tools.replies import reply
from forge.tools.values.readonly import thaw

if TYPE_CHECKING:
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.model.tool import Tool
    from forge.tools.values.context import ExecutionContext
    from forge.tools.values.results import ToolResult

__all__ = ["from_langchain", "to_langchain", "to_langchain_tools"]


def _langchain() -> Any:
    try:
        import langchain_core.tools as lc_tools
    except ImportError as exc:
        raise MissingDependencyError("langchain-core", "langchain") from exc
    return lc_tools


def to_langchain(
    tool: Tool,
    *,
    executor: ToolExecutor | None = None,
    context: ExecutionContext | None = None,
    read_only: bool = False,
) -> Any:
    """Return a LangChain ``StructuredTool`` with ``tool``'s name, description and schema.

    Calls run through a `ToolExecutor`, so LangChain gets exactly what every other
    entry point gets (validation, permissions, hooks, timeouts, metrics, messages).
    A failed result (bad arguments, a denied call, a timeout, a handler error) is
    the tool's answer with ``status="error"``: in an agent (``create_agent``,
    LangGraph's ``ToolNode``) the model gets an error ``ToolMessage`` with our
    message and the run goes on. Invoked directly, the tool returns that message.

    Args:
        tool: The tool to wrap.
        executor: The executor calls run through (its permissions, hooks and metrics
            apply); it must hold ``tool`` under the same name. Default: one of its own.
        context: The `ExecutionContext` of every call (default: the executor's).
        read_only: Return a tool whose attributes cannot be set, as in the lists
            ``registry.to_provider("langchain")`` caches and shares between callers.

    Raises:
        MissingDependencyError: ``langchain-core`` is not installed.
        ToolDefinitionError: ``executor`` does not hold ``tool``.
    """
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.registry import ToolRegistry

    lc = _langchain()
    tool.compiled()
    name = tool.name
    if executor is None:
        executor = ToolExecutor(ToolRegistry([tool]))
    elif executor.registry.get(name) is None:
        raise ToolDefinitionError(
            name, "is not in the executor's registry: register it there, or leave executor out"
        )
    runs = executor

    def run(**kwargs: Any) -> Any:
        return _output(lc, runs.run_sync(name, kwargs, context))

    async def arun(**kwargs: Any) -> Any:
        return _output(lc, await runs.run(name, kwargs, context))

    cls = _read_only_class(lc) if read_only else lc.StructuredTool
    return cls(
        name=name,
        description=tool.description,
        args_schema=tool.parameters if read_only else thaw(tool.parameters),
        func=run,
        coroutine=arun,
        handle_tool_error=True,
    )


def to_langchain_tools(tools: Tools, *, context: ExecutionContext | None = None) -> list[Any]:
    """Return a ``StructuredTool`` per tool, every call running through one executor.

    Use them as ``create_agent(model, tools=to_langchain_tools(executor))`` or in
    LangGraph's ``ToolNode``. The list is a snapshot: call again after the registry changes.

    Args:
        tools: A `ToolExecutor` (its policies apply), a registry or view, or tools.
        context: The `ExecutionContext` of every call (default: the executor's).
    """
    _langchain()  # the missing extra is named even when there is no tool to convert
    executor = as_executor(tools, "to_langchain_tools")
    return [to_langchain(t, executor=executor, context=context) for t in tools_of(executor)]


@functools.cache
def _read_only_class(lc: Any) -> Any:
    """A ``StructuredTool`` subclass whose attributes cannot be set (built once LangChain loads)."""

    def refuse(self: Any, name: str, *_value: Any) -> None:
        raise TypeError(
            f"this LangChain tool is read-only (cannot change {name!r}): the registry shares "
            "it between every caller of to_provider('langchain'). Build one you can change "
            f"with forge.tools.integrations.langchain.to_langchain(registry.get({self.name!r}))"
        )

    return type(
        "ReadOnlyStructuredTool",
        (lc.StructuredTool,),
        {"__setattr__": refuse, "__delattr__": refuse, "__module__": __name__},
    )


def _output(lc: Any, result: ToolResult) -> Any:
    """The output (its text when cut to the output limit); a failure raises ``ToolException``,
    which the tool's ``handle_tool_error`` turns into its error answer."""
    if not result.success:
        raise lc.ToolException(result.error or "the tool failed")
    answer = reply(result)
    if answer.parts is None and not answer.cut:
        return result.output
    return model_text(result, "langchain")


def from_langchain(lc_tool: Any, *, name: str | None = None) -> Tool:
    """Import a LangChain tool (any ``BaseTool``) as a `Tool`.

    The parameters schema is LangChain's own OpenAI rendering of the tool
    (references inlined); a name that breaks the tool-name rule is mapped
    reversibly (see `forge.tools.formats.names.NameMap`) unless ``name`` is given.

    Raises:
        MissingDependencyError: ``langchain-core`` is not installed.
        ToolDefinitionError: ``lc_tool`` is not a LangChain tool.
    """
    lc = _langchain()
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from forge.tools.formats.names import NameMap
    from forge.tools.model.records import from_record

    if not isinstance(lc_tool, lc.BaseTool):
        raise ToolDefinitionError(str(name), f"expected a LangChain BaseTool, got {lc_tool!r}")
    spec = convert_to_openai_tool(lc_tool)["function"]
    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    record: dict[str, Any] = {
        "name": name or NameMap().add(lc_tool.name),
        "description": lc_tool.description or f"The LangChain tool {lc_tool.name!r}.",
        "parameters": parameters,
        "handler": _handler(lc_tool),
    }
    return from_record(record)


def _handler(lc_tool: Any) -> Any:
    if getattr(lc_tool, "coroutine", None) is not None and getattr(lc_tool, "func", 1) is None:

        async def ainvoke(**kwargs: Any) -> Any:
            return await lc_tool.ainvoke(kwargs)

        return ainvoke

    def invoke(**kwargs: Any) -> Any:
        return lc_tool.invoke(kwargs)

    return invoke
