"""forge.tools: define, register, validate and run LLM tools.

Tools from configuration files: `load_tools` (see `forge.tools.config`).

Importing this package loads only the standard library; pydantic,
jsonschema-rs, docstring-parser, bm25s and json-repair are imported when first
needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.core.errors import (
    DuplicateToolError,
    SchemaConversionError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolValidationError,
)
from forge.tools.base import BaseTool
from forge.tools.builder import ToolBuilder, create_tool
from forge.tools.calls import ToolCall
from forge.tools.categories import ToolCategory
from forge.tools.config import HandlerRegistry, LoadReport, load_tools
from forge.tools.context import ExecutionContext
from forge.tools.metadata import ToolAnnotations, ToolExample, ToolMetadata
from forge.tools.params import ToolParameter
from forge.tools.prompt import PromptOptions
from forge.tools.records import from_record
from forge.tools.registry import RegistryEvent, ToolRegistry, default_registry
from forge.tools.results import ErrorKind, ToolResult
from forge.tools.tool import Tool, tool

if TYPE_CHECKING:
    from forge.tools.parsing import ToolCallFormatError, parse_tool_calls
    from forge.tools.replies import format_results
    from forge.tools.streaming import ToolCallAccumulator

__all__ = [
    "BaseTool",
    "DuplicateToolError",
    "ErrorKind",
    "ExecutionContext",
    "HandlerRegistry",
    "LoadReport",
    "PromptOptions",
    "RegistryEvent",
    "SchemaConversionError",
    "Tool",
    "ToolAnnotations",
    "ToolBuilder",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolCallFormatError",
    "ToolCategory",
    "ToolDefinitionError",
    "ToolError",
    "ToolExample",
    "ToolMetadata",
    "ToolNotFoundError",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "ToolValidationError",
    "create_tool",
    "default_registry",
    "format_results",
    "from_record",
    "load_tools",
    "parse_tool_calls",
    "tool",
]


# Tool-call parsing, streaming and result formatting load on first use: most programs
# that import forge.tools to define and run tools never touch them.
_LAZY = {
    "ToolCallAccumulator": "forge.tools.streaming",
    "ToolCallFormatError": "forge.tools.parsing",
    "format_results": "forge.tools.replies",
    "parse_tool_calls": "forge.tools.parsing",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'forge.tools' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
