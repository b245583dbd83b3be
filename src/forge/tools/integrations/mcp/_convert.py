"""Conversions between forge-tools records and the MCP SDK's types."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from forge.tools import ErrorKind, ToolResult

__all__ = ["ERROR_KIND_META", "call_result", "from_call_result", "text_of"]

ERROR_KIND_META = "forge-tools/errorKind"
"""The ``_meta`` key carrying the `ErrorKind` of a failed call, for clients that know it."""


def text_of(value: Any) -> str:
    """Render a tool's output as text: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def call_result(result: ToolResult, *, structured: bool) -> types.CallToolResult:
    """Return the MCP ``CallToolResult`` for a `ToolResult`.

    Failures become ``isError`` results whose text is the model-facing message;
    successes carry the output as text and, when ``structured`` (the tool has
    an output schema), as ``structuredContent`` too.
    """
    if not result.success:
        kind = str(result.error_kind or ErrorKind.TOOL_ERROR)
        return types.CallToolResult(
            content=[types.TextContent(text=result.error or "the tool call failed")],
            is_error=True,
            _meta={ERROR_KIND_META: kind},
        )
    return types.CallToolResult(
        content=[types.TextContent(text=text_of(result.output))],
        structured_content=result.output if structured else None,
    )


def from_call_result(name: str, result: types.CallToolResult) -> ToolResult:
    """Turn a remote ``CallToolResult`` into a `ToolResult` for the local caller.

    Structured content becomes the output when present; otherwise the text of
    a single text block, or the list of content blocks as dicts.
    """
    texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
    if result.is_error:
        meta = result.meta or {}
        kind = meta.get(ERROR_KIND_META) if isinstance(meta, dict) else None
        message = "\n".join(texts) or f"the MCP tool {name!r} reported an error"
        return ToolResult.fail(message, error_kind=_error_kind(kind)).for_call(None, name)
    if result.structured_content is not None:
        output: Any = result.structured_content
    elif len(result.content) == 1 and len(texts) == 1:
        output = texts[0]
    else:
        output = [b.model_dump(by_alias=True, exclude_none=True) for b in result.content]
    return ToolResult.ok(output).for_call(None, name)


def _error_kind(value: Any) -> ErrorKind:
    try:
        return ErrorKind(value)
    except ValueError:
        return ErrorKind.TOOL_ERROR
