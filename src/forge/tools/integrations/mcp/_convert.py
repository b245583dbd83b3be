"""Conversions between forge-tools records and the MCP SDK's types."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from forge.tools import ErrorKind, ToolResult
from forge.tools.replies.mcp import format_mcp_one
from forge.tools.values._jsonable import to_jsonable

__all__ = ["ERROR_KIND_META", "call_result", "from_call_result"]

ERROR_KIND_META = "forge-tools/errorKind"
"""The ``_meta`` key carrying the `ErrorKind` of a failed call, for clients that know it."""


def call_result(result: ToolResult, *, structured: bool) -> types.CallToolResult:
    """Return the MCP ``CallToolResult`` for a `ToolResult` (built by `forge.tools.replies`).

    Failures become ``isError`` results whose text is the model-facing message,
    with the `ErrorKind` under ``_meta``; successes carry the output as text and,
    when ``structured`` (the tool has an output schema), as ``structuredContent``.
    """
    wire = format_mcp_one(result)
    if not result.success:
        wire["_meta"] = {ERROR_KIND_META: str(result.error_kind or ErrorKind.TOOL_ERROR)}
    elif structured:
        wire["structuredContent"] = to_jsonable(result.output)
    else:
        wire.pop("structuredContent", None)
    return types.CallToolResult.model_validate(wire)


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
