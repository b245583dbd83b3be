"""Mistral tool definitions (the OpenAI Chat shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats.openai import function_body
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_mistral"]


def convert_mistral(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"type": "function", "function": {name, description, parameters[, strict]}}``."""
    return ReadOnlyDict(type="function", function=ReadOnlyDict(function_body(tool, ctx)))
