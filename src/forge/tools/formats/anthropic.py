"""Anthropic Messages tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats._closed_strict import ANTHROPIC, compile_closed_strict
from forge.tools.formats._memo import compiled
from forge.tools.formats._policy import single
from forge.tools.formats._schema import Context
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition

__all__ = ["convert_anthropic", "to_anthropic"]


def to_anthropic(tool: ToolDefinition, *, strict: bool = False) -> dict[str, Any]:
    """Return ``{"name", "description", "input_schema"}`` (+ ``"strict": true``).

    The same as ``to_provider([tool], "anthropic")[0]``.

    Raises:
        SchemaConversionError: The tool cannot be sent to Anthropic at all.
    """
    definition: dict[str, Any] = single(tool, "anthropic", strict, convert_anthropic)
    return definition


def _strict(schema: Any, ctx: Context, table: Any) -> dict[str, Any]:
    return compile_closed_strict(schema, ctx, ANTHROPIC, table)


def convert_anthropic(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Convert with a caller-owned context (which collects the report)."""
    out: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if ctx.strict:
        out["input_schema"] = compiled(*tool.schema_and_table(), ctx, "anthropic", _strict)
        out["strict"] = True
    else:
        out["input_schema"] = tool.parameters
    return ReadOnlyDict(out)
