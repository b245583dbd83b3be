"""OpenAI Chat Completions tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats._common import fit_description
from forge.tools.formats._memo import compiled
from forge.tools.formats._openai_strict import compile_openai_strict
from forge.tools.formats._policy import single
from forge.tools.formats._schema import Context
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition

__all__ = ["convert_openai", "function_body", "to_openai"]


def to_openai(tool: ToolDefinition, *, strict: bool = False) -> dict[str, Any]:
    """Return ``{"type": "function", "function": {name, description, parameters}}``.

    With ``strict`` the parameters are compiled to OpenAI's strict subset and
    ``"strict": true`` is set. The same as ``to_provider([tool], "openai")[0]``.

    Raises:
        SchemaConversionError: The tool cannot be sent to OpenAI at all.
    """
    definition: dict[str, Any] = single(tool, "openai", strict, convert_openai)
    return definition


def convert_openai(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Convert with a caller-owned context (which collects the report)."""
    return ReadOnlyDict(type="function", function=ReadOnlyDict(function_body(tool, ctx)))


def function_body(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{name, description, parameters[, strict]}`` (shared with Mistral).

    A plain dict, for the caller to wrap; the parameters in it are read-only.
    """
    description = fit_description(tool.description, ctx)
    body: dict[str, Any] = {"name": tool.name, "description": description}
    if ctx.strict:
        schema, table = tool.schema_and_table()
        body["parameters"] = compiled(schema, table, ctx, "openai", compile_openai_strict)
        body["strict"] = True
    else:
        body["parameters"] = tool.parameters
    return body
