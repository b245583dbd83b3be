"""OpenAI Responses API tool definitions (flat, no ``function`` wrapper)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats.openai import function_body
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_openai_responses"]


def convert_openai_responses(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"type": "function", name, description, parameters, strict}``.

    ``strict`` is always written: the Responses API makes schemas strict when
    it is omitted, which would silently make optional parameters required.
    """
    body = function_body(tool, ctx)
    return ReadOnlyDict({"type": "function", **body, "strict": ctx.strict})
