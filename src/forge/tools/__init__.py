"""forge.tools: define, register, validate and run LLM tools.

Importing this package loads only the standard library; pydantic,
jsonschema-rs, docstring-parser, numpy and json-repair are imported when first
needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.core.errors import (
    DuplicateToolError,
    SchemaConversionError,
    ToolDefinitionError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolValidationError,
)
from forge.tools.model.options import Placement, ToolOptions
from forge.tools.model.tool import Tool, tool
from forge.tools.registry import RegistryEvent, ToolRegistry, ToolView, default_registry
from forge.tools.values.categories import ToolCategory
from forge.tools.values.context import ExecutionContext
from forge.tools.values.metadata import ToolAnnotations, ToolExample, ToolMetadata
from forge.tools.values.resources import ToolResources
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.core.redaction import Redaction
    from forge.tools.base import BaseTool
    from forge.tools.config import HandlerRegistry, LoadReport, load_tools
    from forge.tools.config.openapi import import_openapi
    from forge.tools.deferral import Defer, DeferredSession
    from forge.tools.execution.backend import Backend
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.execution.hooks import ExecutionHook, ToolInvocation
    from forge.tools.execution.metrics import ExecutionMetrics
    from forge.tools.execution.permissions import Decision, PermissionRequest, RuleBasedPolicy
    from forge.tools.model.builder import ToolBuilder, create_tool
    from forge.tools.model.prompt import PromptOptions
    from forge.tools.model.records import from_record
    from forge.tools.parsing import ToolCallFormatError, parse_tool_calls, revealed_tools
    from forge.tools.registry import ToolFactory, load_plugins
    from forge.tools.replies import format_results
    from forge.tools.streaming import ToolCallAccumulator
    from forge.tools.turns import AssistantTurn, Turn, TurnBuilder, TurnStream, read_turn
    from forge.tools.values.calls import ToolCall
    from forge.tools.values.channel import (
        Elicitation,
        ElicitRequest,
        LogMessage,
        Progress,
        Sampled,
        SampleRequest,
    )
    from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text
    from forge.tools.values.output_limit import OutputLimit
    from forge.tools.values.params import ToolParameter

# Execution loads asyncio and friends, and most programs never parse tool calls or
# format results: these names are imported on first use.
_LAZY = {
    "BaseTool": "forge.tools.base",
    "ToolParameter": "forge.tools.values.params",
    "ToolCall": "forge.tools.values.calls",
    "Audio": "forge.tools.values.content",
    "Backend": "forge.tools.execution.backend",
    "ElicitRequest": "forge.tools.values.channel",
    "Elicitation": "forge.tools.values.channel",
    "LogMessage": "forge.tools.values.channel",
    "Progress": "forge.tools.values.channel",
    "SampleRequest": "forge.tools.values.channel",
    "Sampled": "forge.tools.values.channel",
    "Content": "forge.tools.values.content",
    "File": "forge.tools.values.content",
    "Image": "forge.tools.values.content",
    "OutputLimit": "forge.tools.values.output_limit",
    "ResourceLink": "forge.tools.values.content",
    "Text": "forge.tools.values.content",
    "Decision": "forge.tools.execution.permissions",
    "ToolBuilder": "forge.tools.model.builder",
    "create_tool": "forge.tools.model.builder",
    "from_record": "forge.tools.model.records",
    "HandlerRegistry": "forge.tools.config",
    "LoadReport": "forge.tools.config",
    "PromptOptions": "forge.tools.model.prompt",
    "ExecutionHook": "forge.tools.execution.hooks",
    "ExecutionMetrics": "forge.tools.execution.metrics",
    "PermissionRequest": "forge.tools.execution.permissions",
    "Redaction": "forge.core.redaction",
    "RuleBasedPolicy": "forge.tools.execution.permissions",
    "ToolCallAccumulator": "forge.tools.streaming",
    "ToolCallFormatError": "forge.tools.parsing",
    "ToolExecutor": "forge.tools.execution.executor",
    "ToolFactory": "forge.tools.registry",
    "ToolInvocation": "forge.tools.execution.hooks",
    "format_results": "forge.tools.replies",
    "load_plugins": "forge.tools.registry",
    "load_tools": "forge.tools.config",
    "import_openapi": "forge.tools.config.openapi",
    "parse_tool_calls": "forge.tools.parsing",
    "AssistantTurn": "forge.tools.turns",
    "Turn": "forge.tools.turns",
    "TurnBuilder": "forge.tools.turns",
    "TurnStream": "forge.tools.turns",
    "read_turn": "forge.tools.turns",
    "Defer": "forge.tools.deferral",
    "DeferredSession": "forge.tools.deferral",
    "revealed_tools": "forge.tools.parsing",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'forge.tools' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AssistantTurn",
    "Audio",
    "Backend",
    "BaseTool",
    "Content",
    "Decision",
    "Defer",
    "DeferredSession",
    "DuplicateToolError",
    "ElicitRequest",
    "Elicitation",
    "ErrorKind",
    "ExecutionContext",
    "ExecutionHook",
    "ExecutionMetrics",
    "File",
    "HandlerRegistry",
    "Image",
    "LoadReport",
    "LogMessage",
    "OutputLimit",
    "PermissionRequest",
    "Placement",
    "Progress",
    "PromptOptions",
    "Redaction",
    "RegistryEvent",
    "ResourceLink",
    "RuleBasedPolicy",
    "SampleRequest",
    "Sampled",
    "SchemaConversionError",
    "Text",
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
    "ToolExecutionError",
    "ToolExecutor",
    "ToolFactory",
    "ToolInvocation",
    "ToolMetadata",
    "ToolNotFoundError",
    "ToolOptions",
    "ToolParameter",
    "ToolRegistry",
    "ToolResources",
    "ToolResult",
    "ToolValidationError",
    "ToolView",
    "Turn",
    "TurnBuilder",
    "TurnStream",
    "create_tool",
    "default_registry",
    "format_results",
    "from_record",
    "import_openapi",
    "load_plugins",
    "load_tools",
    "parse_tool_calls",
    "read_turn",
    "revealed_tools",
    "tool",
]
