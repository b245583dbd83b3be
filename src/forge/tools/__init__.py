"""forge.tools: define, register, validate and run LLM tools.

Tools from configuration files: `forge.tools.config.load_tools`.

Importing this package loads only the standard library; pydantic,
jsonschema-rs, docstring-parser and bm25s are imported when first needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from forge.tools.executor import ToolExecutor
    from forge.tools.factory import ToolFactory
    from forge.tools.hooks import ExecutionHook, ToolInvocation
    from forge.tools.metrics import ExecutionMetrics
    from forge.tools.permissions import Decision, PermissionRequest, RuleBasedPolicy
    from forge.tools.plugins import load_plugins

# Execution loads asyncio and friends: these names are imported on first use.
_LAZY = {
    "Decision": "forge.tools.permissions",
    "ExecutionHook": "forge.tools.hooks",
    "ExecutionMetrics": "forge.tools.metrics",
    "PermissionRequest": "forge.tools.permissions",
    "RuleBasedPolicy": "forge.tools.permissions",
    "ToolExecutor": "forge.tools.executor",
    "ToolFactory": "forge.tools.factory",
    "ToolInvocation": "forge.tools.hooks",
    "load_plugins": "forge.tools.plugins",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'forge.tools' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BaseTool",
    "Decision",
    "DuplicateToolError",
    "ErrorKind",
    "ExecutionContext",
    "ExecutionHook",
    "ExecutionMetrics",
    "PermissionRequest",
    "PromptOptions",
    "RegistryEvent",
    "RuleBasedPolicy",
    "Tool",
    "ToolAnnotations",
    "ToolBuilder",
    "ToolCall",
    "ToolCategory",
    "ToolDefinitionError",
    "ToolError",
    "ToolExample",
    "ToolExecutor",
    "ToolFactory",
    "ToolInvocation",
    "ToolMetadata",
    "ToolNotFoundError",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "ToolValidationError",
    "create_tool",
    "default_registry",
    "from_record",
    "load_plugins",
    "tool",
]
