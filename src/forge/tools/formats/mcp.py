"""MCP ``tools/list`` tool definitions, and the wrapping of outputs that are not objects.

MCP 2025-11-25 restricts an ``outputSchema`` to ``type: "object"`` at the root,
and ``structuredContent`` to a JSON object. A tool whose output is something
else (an array, a number, ``null``, a union) is described by wrapping: the
listed schema is ``{"type": "object", "properties": {"result": <schema>},
"required": ["result"]}`` and each output travels as ``{"result": <output>}``,
as the SDK's own servers do. `WRAPPED_META` in the tool's and the result's
``_meta`` tells a client that knows it to unwrap. Every piece of the wrapping
lives here (`needs_wrapping`, `wrap_output_schema`, `wrap_output`,
`unwrap_output_schema`, `unwrap_output`; the result side is shared with the
result format, from `forge.tools.schema._wrapped`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from forge.tools.schema import RESULT_KEY, WRAPPED_META, needs_wrapping, unwrap_output, wrap_output
from forge.tools.values.readonly import ReadOnlyDict, freeze

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = [
    "RESULT_KEY",
    "WRAPPED_META",
    "convert_mcp",
    "needs_wrapping",
    "unwrap_output",
    "unwrap_output_schema",
    "wrap_output",
    "wrap_output_schema",
]

_ROOT_ONLY = ("$defs", "definitions", "$schema")
"""Keywords that must stay at the root of a schema that is wrapped."""
_HINTS = (("read_only", "readOnlyHint"), ("destructive", "destructiveHint"),
          ("idempotent", "idempotentHint"), ("open_world", "openWorldHint"))  # fmt: skip


def wrap_output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The object schema that holds an output of ``schema`` under `RESULT_KEY`.

    ``$defs`` stay at the root, where the ``$ref`` pointers of ``schema`` expect them.
    """
    inner = dict(schema)
    defs: dict[str, Any] = {k: inner.pop(k) for k in _ROOT_ONLY if k in inner}
    return {
        **defs,
        "type": "object",
        "properties": {RESULT_KEY: inner},
        "required": [RESULT_KEY],
        "additionalProperties": False,
    }


def unwrap_output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema `wrap_output_schema` wrapped (its inverse)."""
    properties = schema.get("properties")
    inner = dict(properties.get(RESULT_KEY, {})) if isinstance(properties, Mapping) else {}
    for key in _ROOT_ONLY:
        if key in schema:
            inner[key] = schema[key]
    return inner


def convert_mcp(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return ``{"name", "title"?, "description", "inputSchema", "outputSchema"?, "annotations"?}``.

    MCP takes any JSON Schema for the parameters, so they go out unchanged;
    ``strict`` changes nothing. An output schema that is not an object is
    wrapped (see the module docstring) and the tool's ``_meta`` says so.
    """
    out: dict[str, Any] = {"name": tool.name}
    notes = tool.annotations
    title = notes.title or tool.metadata.display_name
    if title:
        out["title"] = title
    out["description"] = tool.description
    out["inputSchema"] = tool.parameters
    output = tool.output_schema
    if output is not None:
        if needs_wrapping(output):
            out["outputSchema"] = freeze(wrap_output_schema(output))
            out["_meta"] = ReadOnlyDict({WRAPPED_META: True})
            ctx.note(
                (), "outputSchema", "rewritten",
                f"MCP lists only object output schemas: wrapped under {RESULT_KEY!r}, "
                f"outputs are sent as {{{RESULT_KEY!r}: output}}",
            )  # fmt: skip
        else:
            out["outputSchema"] = output
    hints: dict[str, Any] = {wire: getattr(notes, name) for name, wire in _HINTS
                             if getattr(notes, name) is not None}  # fmt: skip
    if notes.title:
        hints["title"] = notes.title
    if hints:
        out["annotations"] = ReadOnlyDict(hints)
    return ReadOnlyDict(out)
