"""Anthropic Messages tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.tool import Tool

__all__ = ["to_anthropic"]


def to_anthropic(tool: Tool) -> dict[str, Any]:
    """Return ``{"name", "description", "input_schema"}``."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    }
