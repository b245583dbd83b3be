"""forge.tools: define, register, validate and run LLM tools.

Tools from configuration files: `forge.tools.config.load_tools`.

Importing this package loads only the standard library; pydantic,
jsonschema-rs, docstring-parser and bm25s are imported when first needed.
"""

from __future__ import annotations

from forge.core.errors import (
    DuplicateToolError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolValidationError,
)
from forge.tools.base import BaseTool
from forge.tools.builder import ToolBuilder, create_tool
from forge.tools.calls import ToolCall
from forge.tools.categories import ToolCategory
from forge.tools.context import ExecutionContext
from forge.tools.metadata import ToolAnnotations, ToolExample, ToolMetadata
from forge.tools.params import ToolParameter
from forge.tools.prompt import PromptOptions
from forge.tools.records import from_record
from forge.tools.registry import RegistryEvent, ToolRegistry, default_registry
from forge.tools.results import ErrorKind, ToolResult
from forge.tools.tool import Tool, tool

__all__ = [
    "BaseTool",
    "DuplicateToolError",
    "ErrorKind",
    "ExecutionContext",
    "PromptOptions",
    "RegistryEvent",
    "Tool",
    "ToolAnnotations",
    "ToolBuilder",
    "ToolCall",
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
    "from_record",
    "tool",
]
