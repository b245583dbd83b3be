"""Conversions between forge-tools results and the MCP SDK's ``CallToolResult``.

Outputs keep their JSON type across MCP: besides the text block, every output
that is not a string travels as ``structuredContent``, wrapped under
``result`` when it is not an object (see `forge.tools.formats.mcp`). Failures
keep their `ErrorKind` and retry advice in ``_meta``. Content parts (images,
audio, files, links) travel as MCP content blocks both ways
(`forge.tools.integrations.mcp._content`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from forge.tools import ErrorKind, ToolResult
from forge.tools.formats.mcp import WRAPPED_META, needs_wrapping, unwrap_output, wrap_output
from forge.tools.integrations.mcp._content import imported_content
from forge.tools.replies.mcp import TRUNCATED_META, format_mcp_one
from forge.tools.values.content import is_content
from forge.tools.values.jsonable import to_jsonable

__all__ = ["ERROR_KIND_META", "RETRYABLE_META", "call_result", "from_call_result"]

ERROR_KIND_META = "forge-tools/errorKind"
"""The ``_meta`` key carrying the `ErrorKind` of a failed call, for clients that know it."""
RETRYABLE_META = "forge-tools/retryable"
"""The ``_meta`` key carrying whether retrying a failed call can help."""


def call_result(
    result: ToolResult, *, output_schema: Mapping[str, Any] | None = None
) -> types.CallToolResult:
    """Return the MCP ``CallToolResult`` for a `ToolResult` (built by `forge.tools.replies`).

    Failures become ``isError`` results whose text is the model-facing message,
    with the `ErrorKind` and the retry advice under ``_meta``. Successes carry
    the output as text and, unless it is a string of a tool without an output
    schema, as ``structuredContent`` (wrapped when it is not an object, or when
    ``output_schema`` is wrapped in the listing).
    """
    wire = format_mcp_one(result)
    if not result.success:
        meta: dict[str, Any] = {ERROR_KIND_META: str(result.error_kind or ErrorKind.TOOL_ERROR)}
        if isinstance(result.metadata.get("retryable"), bool):
            meta[RETRYABLE_META] = result.metadata["retryable"]
        wire["_meta"] = meta
        return types.CallToolResult.model_validate(wire)
    meta = wire.get("_meta", {})
    if is_content(result.output) or (meta.get(TRUNCATED_META) and output_schema is None):
        return types.CallToolResult.model_validate(wire)
    data = wire["structuredContent"] if "structuredContent" in wire else to_jsonable(result.output)
    if output_schema is not None:
        wrapped = needs_wrapping(output_schema)
    elif isinstance(data, str):
        return types.CallToolResult.model_validate(wire)
    else:
        wrapped = not isinstance(data, dict)
    if wrapped:
        wire["structuredContent"] = wrap_output(data)
        wire["_meta"] = {**meta, WRAPPED_META: True}
    else:
        wire["structuredContent"] = data
    return types.CallToolResult.model_validate(wire)


def from_call_result(name: str, result: types.CallToolResult) -> ToolResult:
    """Turn a remote ``CallToolResult`` into a `ToolResult` for the local caller.

    Structured content becomes the output when present (unwrapped when the
    result says it is wrapped); otherwise the text of a single text block, or
    the content blocks as content parts (one part alone, several as a list).
    """
    meta = result.meta if isinstance(result.meta, dict) else {}
    texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
    if result.is_error:
        message = "\n".join(texts) or f"the MCP tool {name!r} reported an error"
        advice = meta.get(RETRYABLE_META)
        extra = {"retryable": advice} if isinstance(advice, bool) else {}
        kind = _error_kind(meta.get(ERROR_KIND_META))
        return ToolResult.fail(message, error_kind=kind, **extra).for_call(None, name)
    if result.structured_content is not None:
        structured = result.structured_content
        output: Any = unwrap_output(structured) if meta.get(WRAPPED_META) is True else structured
    elif len(result.content) == 1 and len(texts) == 1:
        output = texts[0]
    else:
        output = imported_content(result.content)
    return ToolResult.ok(output).for_call(None, name)


def _error_kind(value: Any) -> ErrorKind:
    try:
        return ErrorKind(value)
    except ValueError:
        return ErrorKind.TOOL_ERROR
