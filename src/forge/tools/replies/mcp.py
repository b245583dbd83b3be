"""MCP ``CallToolResult`` objects (the result of a ``tools/call`` request).

One ``{"content": [{"type": "text", "text"}], "isError", "structuredContent"?}`` per
result. An output that converts to a JSON object is also sent as ``structuredContent``
(with its JSON text in the text block, as the specification asks); errors are results
with ``isError: true``, not protocol errors.

Given the tools the results come from (``format_results(..., tools=registry)``), the
output of a tool with an output schema is always sent as ``structuredContent``, shaped
by the tool's serializer and wrapped under ``result`` when the schema is not an object,
as ``tools/list`` lists it: MCP clients reject a result that lacks it.

Content parts are MCP's own content blocks: ``text``, ``image`` and ``audio`` (base64),
``resource`` for a `File` (an embedded resource: ``text`` or base64 ``blob``, under the
file's URI, else ``file:///<name>``) and ``resource_link``. A result cut to its limit
carries ``"forge-tools/truncated": true`` in ``_meta`` and, unless its tool has an output
schema, no ``structuredContent``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from forge.tools.replies._common import error_text, output_json
from forge.tools.replies._content import content_parts, limit_of
from forge.tools.replies._limit import cut_text
from forge.tools.schema import WRAPPED_META, needs_wrapping, wrap_output
from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = [
    "TRUNCATED_META", "OutputTool", "ToolLookup", "content_block", "format_mcp",
    "format_mcp_one",
]  # fmt: skip

TRUNCATED_META = "forge-tools/truncated"
"""The ``_meta`` key marking a result whose content was cut to its output limit."""


class OutputTool(Protocol):
    """What the MCP result format reads of a tool (`forge.tools.Tool` is one)."""

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the tool's output, if it has one."""
        ...

    def dump_output(self, output: Any) -> Any:
        """An output as the JSON data its schema describes."""
        ...


class ToolLookup(Protocol):
    """Tools by name (a `ToolRegistry`, a view or a mapping)."""

    def get(self, name: str, /) -> Any:
        """The tool called ``name``, or ``None``."""
        ...


def format_mcp_one(
    result: ToolResult, limit: OutputLimit | None = None, tool: OutputTool | None = None
) -> dict[str, Any]:
    """One ``CallToolResult`` as a wire dict (``tool``: the tool it comes from, if known)."""
    if not result.success:
        text = error_text(result, prefix=False)
        return {"content": [{"type": "text", "text": text}], "isError": True}
    chosen = limit_of(result, limit)
    content = content_parts(result, chosen)
    if content is not None:
        wire: dict[str, Any] = {"content": [content_block(p) for p in content[0]]}
        return _marked({**wire, "isError": False}, content[1])
    schema = tool.output_schema if tool is not None else None
    if tool is not None and schema is not None:
        data = tool.dump_output(result.output)
    else:
        data = output_json(result)
    whole = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    text, cut = cut_text(whole, chosen.max_chars)
    reply: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if schema is not None and needs_wrapping(schema):  # clients require it whatever its size
        reply["structuredContent"] = wrap_output(data)
        reply["_meta"] = {WRAPPED_META: True}
    elif schema is not None or (isinstance(data, dict) and not cut):
        reply["structuredContent"] = data
    return _marked(reply, cut)


def _marked(wire: dict[str, Any], cut: bool) -> dict[str, Any]:
    if cut:
        wire["_meta"] = {**wire.get("_meta", {}), TRUNCATED_META: True}
    return wire


def content_block(part: Content) -> dict[str, Any]:
    """A content part as an MCP content block (wire dict)."""
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Image | Audio):
        return {"type": part.kind, "data": part.base64, "mimeType": part.mime_type}
    if isinstance(part, File):
        return {"type": "resource", "resource": _resource(part)}
    if isinstance(part, ResourceLink):
        return _link(part)
    raise TypeError(f"not a content part: {type(part).__name__}")


def _resource(part: File) -> dict[str, Any]:
    uri = part.uri or f"file:///{part.filename}"
    body = {"text": part.data} if isinstance(part.data, str) else {"blob": part.base64}
    return {"uri": uri, "mimeType": part.mime_type, **body}


def _link(part: ResourceLink) -> dict[str, Any]:
    link: dict[str, Any] = {"type": "resource_link", "uri": part.uri, "name": part.name}
    optional = {"title": part.title, "description": part.description,
                "mimeType": part.mime_type, "size": part.size}  # fmt: skip
    return {**link, **{k: v for k, v in optional.items() if v is not None}}


def format_mcp(
    results: list[ToolResult], limit: OutputLimit | None = None, tools: ToolLookup | None = None
) -> list[dict[str, Any]]:
    """``[CallToolResult, ...]``, one per result."""
    if tools is None:
        return [format_mcp_one(r, limit) for r in results]
    return [
        format_mcp_one(r, limit, tools.get(r.tool_name) if r.tool_name else None) for r in results
    ]
