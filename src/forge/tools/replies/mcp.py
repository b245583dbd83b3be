"""MCP ``CallToolResult`` objects (the result of a ``tools/call`` request).

One ``{"content": [{"type": "text", "text"}], "isError", "structuredContent"?}`` per
result. An output that converts to a JSON object is also sent as ``structuredContent``
(with its JSON text in the text block, as the specification asks); errors are results
with ``isError: true``, not protocol errors.
"""

from __future__ import annotations

import json
from typing import Any

from forge.tools.replies._common import error_text, output_json
from forge.tools.values.results import ToolResult

__all__ = ["format_mcp", "format_mcp_one"]


def format_mcp_one(result: ToolResult) -> dict[str, Any]:
    """One ``CallToolResult`` as a wire dict."""
    if not result.success:
        text = error_text(result, prefix=False)
        return {"content": [{"type": "text", "text": text}], "isError": True}
    data = output_json(result)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    reply: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if isinstance(data, dict):
        reply["structuredContent"] = data
    return reply


def format_mcp(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[CallToolResult, ...]``, one per result."""
    return [format_mcp_one(r) for r in results]
