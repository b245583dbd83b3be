"""OpenAI Chat Completions tool messages (also Mistral's, and the base of Ollama's).

One ``{"role": "tool", "tool_call_id", "content"}`` message per result, to send after the
assistant message that holds the calls; every call must be answered. The format has no
error flag, so a failure's message starts with ``Error: ``.
"""

from __future__ import annotations

from typing import Any

from forge.tools.replies._common import call_id, error_text, output_text, tool_name
from forge.tools.values.results import ToolResult

__all__ = ["format_mistral", "format_ollama", "format_openai"]


def _content(result: ToolResult) -> str:
    return output_text(result) if result.success else error_text(result, prefix=True)


def format_openai(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_call_id", "content"}, ...]``."""
    return [
        {"role": "tool", "tool_call_id": call_id(r, "openai"), "content": _content(r)}
        for r in results
    ]


def format_mistral(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_call_id", "name", "content"}, ...]``."""
    return [
        {
            "role": "tool",
            "tool_call_id": call_id(r, "mistral"),
            "name": tool_name(r, "mistral"),
            "content": _content(r),
        }
        for r in results
    ]


def format_ollama(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_name", "content"}, ...]``: Ollama matches by name and order."""
    return [
        {"role": "tool", "tool_name": tool_name(r, "ollama"), "content": _content(r)}
        for r in results
    ]
