"""What `ToolRegistry.register` accepts, turned into a `Tool` (`to_tool`).

It cannot take a LangChain, MCP, pydantic-ai or OpenAI Agents tool as it is. They
are recognised by class name and module (nothing is imported), so the error can
name the adapter or the attribute to register.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.core.text import article
from forge.tools.model.tool import Tool

__all__ = ["Registrable", "foreign_tool_hint", "to_tool"]

Registrable = Tool | Callable[..., Any] | Mapping[str, Any] | Any

_LANGCHAIN = (
    "a LangChain tool: convert it with "
    "forge.tools.integrations.langchain.from_langchain(tool) (needs the langchain extra)"
)
_MCP_DEFINITION = (
    "an MCP tool definition, which has no handler here: register a running server's "
    "tools with forge.mcp.import_tools(registry, server) (needs the mcp "
    "extra), or register a record mapping with 'name', 'description', 'parameters' "
    "(the tool's inputSchema) and a 'handler'"
)
_MCP_SERVER = "an MCP server tool: register its function instead, registry.register(tool.fn)"
_PYDANTIC_AI = (
    "a pydantic-ai tool: convert it with "
    "forge.tools.integrations.pydantic_ai.from_pydantic_ai(tool) (needs the pydantic-ai extra)"
)
_OPENAI_AGENTS = (
    "an OpenAI Agents SDK FunctionTool: convert it with "
    "forge.tools.integrations.openai_agents.from_openai_agents(tool) (needs the "
    "openai-agents extra)"
)

# (module prefix, class name, what it is and how to register it); the first match wins.
_KNOWN = (
    ("langchain_core.", "BaseTool", _LANGCHAIN),
    ("langchain.", "BaseTool", _LANGCHAIN),
    ("mcp_types.", "Tool", _MCP_DEFINITION),
    ("mcp.types", "Tool", _MCP_DEFINITION),
    ("mcp.server.", "Tool", _MCP_SERVER),
    ("pydantic_ai.", "Tool", _PYDANTIC_AI),
    ("agents.", "FunctionTool", _OPENAI_AGENTS),
)


def foreign_tool_hint(item: Any) -> str | None:
    """What ``item`` is and how to register it, if it is another library's tool object."""
    for cls in type(item).__mro__:
        module = f"{getattr(cls, '__module__', '')}."
        for prefix, name, hint in _KNOWN:
            if cls.__name__ == name and module.startswith(prefix):
                return hint
    return None


def to_tool(item: Registrable) -> Tool:
    """Turn anything `ToolRegistry.register` accepts into a `Tool`."""
    if isinstance(item, Tool):
        return item
    converts = getattr(type(item), "to_tool", None)
    if isinstance(item, type) and callable(getattr(item, "to_tool", None)):
        raise ToolDefinitionError(
            item.__name__, "register an instance of this BaseTool subclass, not the class itself"
        )
    if callable(converts):  # a `BaseTool` (or anything else that knows its `Tool`)
        tool: Tool = converts(item)
        return tool
    if isinstance(item, Mapping):
        from forge.tools.model.records import from_record

        return from_record(item)
    if not inspect.isfunction(item):
        hint = foreign_tool_hint(item)
        if hint is not None:
            name = getattr(item, "name", None)
            raise ToolDefinitionError(
                name if isinstance(name, str) else "<unknown>", f"cannot register {hint}"
            )
    if callable(item):
        from forge.tools.model.tool import function_tool

        return function_tool(item)
    raise ToolDefinitionError(
        "<unknown>",
        f"cannot register {article(type(item).__name__)}: expected a Tool, a "
        "forge.tools.BaseTool instance, a typed function or a record mapping",
    )
