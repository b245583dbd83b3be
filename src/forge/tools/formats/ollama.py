"""Ollama ``/api/chat`` tool definitions (OpenAI-compatible, no strict mode)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.values._readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_ollama"]


def convert_ollama(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"type": "function", "function": {name, description, parameters}}``.

    Ollama has no strict mode, so ``strict`` changes nothing. Send these as raw
    JSON: the ``ollama`` Python client re-validates dict tools through its own
    model, which drops keywords it does not know (``anyOf``, ``format``...).
    """
    if ctx.strict:
        ctx.note((), "strict", "note", "Ollama has no strict mode; the schema is sent as is")
    return ReadOnlyDict(
        type="function",
        function=ReadOnlyDict(
            name=tool.name, description=tool.description, parameters=tool.parameters
        ),
    )
