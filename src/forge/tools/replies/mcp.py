"""MCP ``CallToolResult`` objects (the result of a ``tools/call`` request).

One ``{"content": [{"type": "text", "text"}], "isError", "structuredContent"?}`` per
result. An output that converts to a JSON object is also sent as ``structuredContent``
(with its JSON text in the text block, as the specification asks); errors are results
with ``isError: true``, not protocol errors.

Content parts are MCP's own content blocks: ``text``, ``image`` and ``audio`` (base64),
``resource`` for a `File` (an embedded resource: ``text`` or base64 ``blob``, under the
file's URI, else ``file:///<name>``) and ``resource_link``. A result cut to its limit
carries ``"forge-tools/truncated": true`` in ``_meta`` and no ``structuredContent``.
"""

from __future__ import annotations

import json
from typing import Any

from forge.tools.replies._common import error_text, output_json
from forge.tools.replies._content import content_parts, limit_of
from forge.tools.replies._limit import cut_text
from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["TRUNCATED_META", "content_block", "format_mcp", "format_mcp_one"]

TRUNCATED_META = "forge-tools/truncated"
"""The ``_meta`` key marking a result whose content was cut to its output limit."""


def format_mcp_one(result: ToolResult, limit: OutputLimit | None = None) -> dict[str, Any]:
    """One ``CallToolResult`` as a wire dict."""
    if not result.success:
        text = error_text(result, prefix=False)
        return {"content": [{"type": "text", "text": text}], "isError": True}
    chosen = limit_of(result, limit)
    content = content_parts(result, chosen)
    if content is not None:
        wire: dict[str, Any] = {"content": [content_block(p) for p in content[0]]}
        return _marked({**wire, "isError": False}, content[1])
    data = output_json(result)
    whole = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    text, cut = cut_text(whole, chosen.max_chars)
    reply_: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if isinstance(data, dict) and not cut:
        reply_["structuredContent"] = data
    return _marked(reply_, cut)


def _marked(wire: dict[str, Any], cut: bool) -> dict[str, Any]:
    if cut:
        wire["_meta"] = {TRUNCATED_META: True}
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


def format_mcp(results: list[ToolResult], limit: OutputLimit | None = None) -> list[dict[str, Any]]:
    """``[CallToolResult, ...]``, one per result."""
    return [format_mcp_one(r, limit) for r in results]
