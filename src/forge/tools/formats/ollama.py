"""Ollama ``/api/chat`` tool definitions (OpenAI-compatible, no strict mode)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats._booleans import boolean_parameters
from forge.tools.formats._memo import compiled
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_ollama"]


def convert_ollama(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"type": "function", "function": {name, description, parameters}}``.

    Ollama has no strict mode, so ``strict`` changes nothing. Send these as raw
    JSON: the ``ollama`` Python client re-validates dict tools through its own
    model, which drops keywords it does not know (``anyOf``, ``format``...)
    and rejects a boolean parameter schema (rewritten: `boolean_parameters`).
    """
    if ctx.strict:
        ctx.note((), "strict", "note", "Ollama has no strict mode; the schema is sent as is")
    parameters = compiled(*tool.schema_and_table(), ctx, "ollama", boolean_parameters)
    return ReadOnlyDict(
        type="function",
        function=ReadOnlyDict(name=tool.name, description=tool.description, parameters=parameters),
    )
