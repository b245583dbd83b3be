"""OpenAI Chat Completions tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.tool import Tool

__all__ = ["to_openai"]


def to_openai(tool: Tool) -> dict[str, Any]:
    """Return ``{"type": "function", "function": {name, description, parameters}}``."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
