"""MCP ``CallToolResult`` objects (the result of a ``tools/call`` request).

One ``{"content": [{"type": "text", "text"}], "isError", "structuredContent"?}`` per
result. An output that converts to a JSON object is also sent as ``structuredContent``
(with its JSON text in the text block, as the specification asks); errors are results
with ``isError: true``, not protocol errors.

Given the tools the results come from (``format_results(..., tools=registry)``), the
output of a tool with an output schema is always sent as ``structuredContent``, shaped
by the tool's serializer and wrapped under ``result`` when the schema is not an object,
as ``tools/list`` lists it: MCP clients reject a result that lacks it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from forge.tools.replies._common import error_text, output_json
from forge.tools.schema._wrapped import WRAPPED_META, needs_wrapping, wrap_output
from forge.tools.values.results import ToolResult

__all__ = ["OutputTool", "ToolLookup", "format_mcp", "format_mcp_one"]


class OutputTool(Protocol):
    """What the MCP result format reads of a tool (`forge.tools.Tool` is one)."""

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the tool's output, if it has one."""
        ...

    def dump_output(self, output: Any) -> Any:
        """An output as the JSON data its schema describes."""
        ...


class ToolLookup(Protocol):
    """Tools by name (a `ToolRegistry`, a view or a mapping)."""

    def get(self, name: str, /) -> Any:
        """The tool called ``name``, or ``None``."""
        ...


def format_mcp_one(result: ToolResult, tool: OutputTool | None = None) -> dict[str, Any]:
    """One ``CallToolResult`` as a wire dict (``tool``: the tool it comes from, if known)."""
    if not result.success:
        text = error_text(result, prefix=False)
        return {"content": [{"type": "text", "text": text}], "isError": True}
    schema = tool.output_schema if tool is not None else None
    if tool is not None and schema is not None:
        data = tool.dump_output(result.output)
    else:
        data = output_json(result)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    reply: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if schema is not None and needs_wrapping(schema):
        reply["structuredContent"] = wrap_output(data)
        reply["_meta"] = {WRAPPED_META: True}
    elif schema is not None or isinstance(data, dict):
        reply["structuredContent"] = data
    return reply


def format_mcp(results: list[ToolResult], tools: ToolLookup | None = None) -> list[dict[str, Any]]:
    """``[CallToolResult, ...]``, one per result."""
    if tools is None:
        return [format_mcp_one(r) for r in results]
    return [format_mcp_one(r, tools.get(r.tool_name) if r.tool_name else None) for r in results]
