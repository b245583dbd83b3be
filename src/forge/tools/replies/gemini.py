"""Gemini ``functionResponse`` parts.

All results go in one ``{"role": "user", "parts": [{"functionResponse": {"id", "name",
"response"}}, ...]}`` content, sent after the model's content (kept as it was, with its
thought signatures). ``response`` is an object: ``{"output": <JSON>}`` on success and
``{"error": <message>}`` on failure, the convention the API documents.

Calls that came without an id (models before Gemini 3) were given generated ids by the
parser; those are left out here, so the API matches results by name and order: results
keep the order of the calls.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing._common import is_generated_id
from forge.tools.replies._common import error_text, output_json, tool_name
from forge.tools.values.results import ToolResult

__all__ = ["format_gemini"]


def _part(result: ToolResult) -> dict[str, Any]:
    response: dict[str, Any] = (
        {"output": output_json(result)}
        if result.success
        else {"error": error_text(result, prefix=False)}
    )
    reply: dict[str, Any] = {"name": tool_name(result, "gemini"), "response": response}
    if not is_generated_id(result.call_id):
        reply = {"id": result.call_id, **reply}
    return {"functionResponse": reply}


def format_gemini(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "user", "parts": [functionResponse parts]}]`` (empty for no results)."""
    if not results:
        return []
    return [{"role": "user", "parts": [_part(r) for r in results]}]
