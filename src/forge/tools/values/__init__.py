"""The values every layer passes around: categories, metadata, parameters, context, calls, results.

Plain data with no behaviour beyond checking itself; nothing here imports a
tool, a provider format or the engine. Every name is imported when first read.

`ok_result`, `ok_result_for`, `new_result` and `set_result_fields` build results on the
engine's hot path without the checks of `ToolResult`'s constructor; they are for forge's own
engine. The read-only JSON containers are `forge.tools.values.readonly`, the one rule turning
outputs into JSON `forge.tools.values.jsonable`.
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
    from forge.tools.values.metadata import ToolAnnotations, ToolExample, ToolMetadata
    from forge.tools.values.output_limit import DEFAULT_OUTPUT_LIMIT, MIN_CHARS, OutputLimit
    from forge.tools.values.params import ToolParameter, parameters_schema
    from forge.tools.values.resources import ToolResources
    from forge.tools.values.results import ErrorKind, ToolResult
    from forge.tools.values.results import _new as new_result
    from forge.tools.values.results import _ok as ok_result
    from forge.tools.values.results import _ok_for as ok_result_for
    from forge.tools.values.results import _set_dict as set_result_fields

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
    "new_result",
    "ok_result",
    "ok_result_for",
    "parameters_schema",
    "quote",
    "set_result_fields",
    "shown_number",
    "timeout_problem",
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
        "new_result": "forge.tools.values.results:_new",
        "ok_result": "forge.tools.values.results:_ok",
        "ok_result_for": "forge.tools.values.results:_ok_for",
        "parameters_schema": "forge.tools.values.params",
        "quote": "forge.tools.values._repair",
        "set_result_fields": "forge.tools.values.results:_set_dict",
        "shown_number": "forge.tools.values._seconds",
        "timeout_problem": "forge.tools.values._seconds",
    },
)
