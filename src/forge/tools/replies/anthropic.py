"""Anthropic ``tool_result`` blocks.

All results go in **one** user message, as its first blocks, right after the assistant
message with the ``tool_use`` blocks: ``{"role": "user", "content": [{"type":
"tool_result", "tool_use_id", "content", "is_error"}, ...]}``.
"""

from __future__ import annotations

from typing import Any

from forge.tools.replies._common import call_id, error_text, output_text
from forge.tools.values.results import ToolResult

__all__ = ["format_anthropic"]


def format_anthropic(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "user", "content": [tool_result blocks]}]`` (empty list for no results)."""
    if not results:
        return []
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": call_id(r, "anthropic"),
            "content": output_text(r) if r.success else error_text(r, prefix=False),
            "is_error": not r.success,
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]
