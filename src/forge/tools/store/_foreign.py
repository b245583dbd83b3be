"""Recognise other libraries' tool objects, to say how to register them instead.

`ToolRegistry.register` cannot take a LangChain, MCP, pydantic-ai or OpenAI
Agents tool as it is. They are recognised by class name and module (nothing is
imported), so the error can name the adapter or the attribute to register.
"""

from __future__ import annotations

from typing import Any

__all__ = ["foreign_tool_hint"]

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
