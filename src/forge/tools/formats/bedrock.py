"""AWS Bedrock Converse tool definitions (``toolConfig.tools[]`` entries)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.formats._closed_strict import BEDROCK, compile_closed_strict
from forge.tools.formats._memo import compiled
from forge.tools.values.readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_bedrock"]


def _strict(schema: Any, ctx: Context, table: Any) -> dict[str, Any]:
    return compile_closed_strict(schema, ctx, BEDROCK, table)


def convert_bedrock(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"toolSpec": {name, description, inputSchema: {json}}}`` (+ ``strict``).

    An empty description is left out: Bedrock rejects empty strings.
    """
    spec: dict[str, Any] = {"name": tool.name}
    if tool.description:
        spec["description"] = tool.description
    if ctx.strict:
        schema = compiled(*tool.schema_and_table(), ctx, "bedrock", _strict)
        spec["inputSchema"] = ReadOnlyDict(json=schema)
        spec["strict"] = True
    else:
        spec["inputSchema"] = ReadOnlyDict(json=tool.parameters)
    return ReadOnlyDict(toolSpec=ReadOnlyDict(spec))
