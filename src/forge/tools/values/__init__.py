"""The values every layer passes around: categories, metadata, parameters, context, calls, results.

Plain data with no behaviour beyond checking itself; nothing here imports a
tool, a provider format or the engine. Every name is imported when first read.

The read-only JSON containers are `forge.tools.values.readonly` (`thaw` copies one back to
plain lists and dicts), the one rule turning outputs into JSON `forge.tools.values.jsonable`
(`to_jsonable`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.core.lazy import lazy_face

if TYPE_CHECKING:
    from forge.tools.values._repair import QUOTE_CHARS, quote
    from forge.tools.values._seconds import MAX_TIMEOUT, shown_number, timeout_problem
    from forge.tools.values.calls import ToolCall
    from forge.tools.values.categories import ToolCategory
    from forge.tools.values.channel import (
        LOG_LEVELS,
        Elicitation,
        ElicitRequest,
        LogLevel,
        LogMessage,
        Progress,
        Sampled,
        SampleRequest,
    )
    from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text
    from forge.tools.values.context import ExecutionContext
    from forge.tools.values.jsonable import to_jsonable
    from forge.tools.values.metadata import ToolAnnotations, ToolExample, ToolMetadata
    from forge.tools.values.output_limit import DEFAULT_OUTPUT_LIMIT, MIN_CHARS, OutputLimit
    from forge.tools.values.params import ToolParameter, parameters_schema
    from forge.tools.values.readonly import thaw
    from forge.tools.values.resources import ToolResources
    from forge.tools.values.results import ErrorKind, ToolResult

__all__ = [
    "Audio",
    "Content",
    "DEFAULT_OUTPUT_LIMIT",
    "ElicitRequest",
    "Elicitation",
    "ErrorKind",
    "ExecutionContext",
    "File",
    "Image",
    "LOG_LEVELS",
    "LogLevel",
    "LogMessage",
    "MAX_TIMEOUT",
    "MIN_CHARS",
    "OutputLimit",
    "Progress",
    "QUOTE_CHARS",
    "ResourceLink",
    "SampleRequest",
    "Sampled",
    "Text",
    "ToolAnnotations",
    "ToolCall",
    "ToolCategory",
    "ToolExample",
    "ToolMetadata",
    "ToolParameter",
    "ToolResources",
    "ToolResult",
    "parameters_schema",
    "quote",
    "shown_number",
    "thaw",
    "timeout_problem",
    "to_jsonable",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "Audio": "forge.tools.values.content",
        "Content": "forge.tools.values.content",
        "DEFAULT_OUTPUT_LIMIT": "forge.tools.values.output_limit",
        "ElicitRequest": "forge.tools.values.channel",
        "Elicitation": "forge.tools.values.channel",
        "ErrorKind": "forge.tools.values.results",
        "ExecutionContext": "forge.tools.values.context",
        "File": "forge.tools.values.content",
        "Image": "forge.tools.values.content",
        "LOG_LEVELS": "forge.tools.values.channel",
        "LogLevel": "forge.tools.values.channel",
        "LogMessage": "forge.tools.values.channel",
        "MAX_TIMEOUT": "forge.tools.values._seconds",
        "MIN_CHARS": "forge.tools.values.output_limit",
        "OutputLimit": "forge.tools.values.output_limit",
        "Progress": "forge.tools.values.channel",
        "QUOTE_CHARS": "forge.tools.values._repair",
        "ResourceLink": "forge.tools.values.content",
        "SampleRequest": "forge.tools.values.channel",
        "Sampled": "forge.tools.values.channel",
        "Text": "forge.tools.values.content",
        "ToolAnnotations": "forge.tools.values.metadata",
        "ToolCall": "forge.tools.values.calls",
        "ToolCategory": "forge.tools.values.categories",
        "ToolExample": "forge.tools.values.metadata",
        "ToolMetadata": "forge.tools.values.metadata",
        "ToolParameter": "forge.tools.values.params",
        "ToolResources": "forge.tools.values.resources",
        "ToolResult": "forge.tools.values.results",
        "parameters_schema": "forge.tools.values.params",
        "quote": "forge.tools.values._repair",
        "shown_number": "forge.tools.values._seconds",
        "thaw": "forge.tools.values.readonly",
        "timeout_problem": "forge.tools.values._seconds",
        "to_jsonable": "forge.tools.values.jsonable",
    },
)
