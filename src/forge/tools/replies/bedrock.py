"""AWS Bedrock Converse ``toolResult`` blocks.

All results go in one user message: ``{"role": "user", "content": [{"toolResult":
{"toolUseId", "content": [...], "status": "success" | "error"}}, ...]}``. An object output
is sent as ``{"json": {...}}``; anything else, and every error message, as
``{"text": ...}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.tools.replies._common import call_id, error_text, output_json, output_text
from forge.tools.values.results import ToolResult

__all__ = ["format_bedrock"]


def _content(result: ToolResult) -> list[dict[str, Any]]:
    if not result.success:
        return [{"text": error_text(result, prefix=False)}]
    if isinstance(result.output, Mapping) or (
        result.output is not None and not isinstance(result.output, str)
        and isinstance(output_json(result), dict)
    ):  # fmt: skip
        return [{"json": output_json(result)}]
    return [{"text": output_text(result)}]


def format_bedrock(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "user", "content": [toolResult blocks]}]`` (empty for no results)."""
    if not results:
        return []
    blocks = [
        {
            "toolResult": {
                "toolUseId": call_id(r, "bedrock"),
                "content": _content(r),
                "status": "success" if r.success else "error",
            }
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]
