"""MCP ``tools/list`` tool definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.values._readonly import ReadOnlyDict

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_mcp"]

_HINTS = (("read_only", "readOnlyHint"), ("destructive", "destructiveHint"),
          ("idempotent", "idempotentHint"), ("open_world", "openWorldHint"))  # fmt: skip


def convert_mcp(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"name", "title"?, "description", "inputSchema", "outputSchema"?, "annotations"?}``.

    MCP takes any JSON Schema, so the parameters go out unchanged; ``strict``
    changes nothing.
    """
    out: dict[str, Any] = {"name": tool.name}
    notes = tool.annotations
    title = notes.title or tool.metadata.display_name
    if title:
        out["title"] = title
    out["description"] = tool.description
    out["inputSchema"] = tool.parameters
    if tool.output_schema is not None:
        out["outputSchema"] = tool.output_schema
    hints: dict[str, Any] = {wire: getattr(notes, name) for name, wire in _HINTS
                             if getattr(notes, name) is not None}  # fmt: skip
    if notes.title:
        hints["title"] = notes.title
    if hints:
        out["annotations"] = ReadOnlyDict(hints)
    return ReadOnlyDict(out)
