"""MCP content blocks as forge-tools content parts (the import side; `format_mcp` exports).

Text, image and audio blocks become `Text`, `Image` and `Audio` (base64 decoded); an
embedded resource becomes a `File` with its URI (text, or the decoded blob); a resource
link a `ResourceLink`. Blocks with data that is not valid base64 are kept as text saying
so, never dropped.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence

import mcp_types as types

from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text

__all__ = ["imported_content", "imported_part"]


def imported_content(blocks: Sequence[types.ContentBlock]) -> Content | list[Content]:
    """The parts of a ``CallToolResult``'s content: one part alone, several as a list."""
    parts = [imported_part(block) for block in blocks]
    return parts[0] if len(parts) == 1 else parts


def imported_part(block: types.ContentBlock) -> Content:
    """One MCP content block as a content part."""
    try:
        return _part(block)
    except (binascii.Error, ValueError, TypeError) as exc:
        kind = getattr(block, "type", type(block).__name__)
        return Text(f"[an MCP {kind} block that could not be read: {exc}]")


def _part(block: types.ContentBlock) -> Content:
    if isinstance(block, types.TextContent):
        return Text(block.text)
    if isinstance(block, types.ImageContent):
        return Image(_decode(block.data), block.mime_type)
    if isinstance(block, types.AudioContent):
        return Audio(_decode(block.data), block.mime_type)
    if isinstance(block, types.EmbeddedResource):
        return _file(block.resource)
    if isinstance(block, types.ResourceLink):
        return ResourceLink(
            block.uri, name=block.name, title=block.title, description=block.description,
            mime_type=block.mime_type, size=block.size,
        )  # fmt: skip
    raise TypeError(f"unknown content block type {getattr(block, 'type', '?')!r}")


def _file(resource: types.TextResourceContents | types.BlobResourceContents) -> File:
    mime = resource.mime_type or ""
    if isinstance(resource, types.TextResourceContents):
        return File(resource.text, mime, uri=str(resource.uri))
    return File(_decode(resource.blob), mime, uri=str(resource.uri))


def _decode(data: str) -> bytes:
    return base64.b64decode(data, validate=True)
