"""Anthropic ``tool_result`` blocks.

All results go in **one** user message, as its first blocks, right after the assistant
message with the ``tool_use`` blocks: ``{"role": "user", "content": [{"type":
"tool_result", "tool_use_id", "content", "is_error"}, ...]}``.

Plain output is the block's ``content`` string. Content parts become its content blocks:
text; JPEG, PNG, GIF and WebP images as base64 ``image`` blocks; PDFs as base64
``document`` blocks and text files as plain-text ``document`` blocks (titled with the
file's name); audio, other images and other files as text saying what was left out.
"""

from __future__ import annotations

from typing import Any

from forge.tools.replies._common import call_id, error_text
from forge.tools.replies._content import describe, file_text, link_text, reply
from forge.tools.values.content import Content, File, Image, ResourceLink, Text
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["format_anthropic"]

_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def format_anthropic(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "user", "content": [tool_result blocks]}]`` (empty list for no results)."""
    if not results:
        return []
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": call_id(r, "anthropic"),
            "content": _content(r, limit) if r.success else error_text(r, prefix=False),
            "is_error": not r.success,
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]


def _content(result: ToolResult, limit: OutputLimit | None) -> str | list[dict[str, Any]]:
    answer = reply(result, limit)
    if answer.parts is None:
        return answer.text
    return [_block(part) for part in answer.parts]


def _block(part: Content) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, ResourceLink):
        return {"type": "text", "text": link_text(part)}
    if isinstance(part, Image) and part.mime_type in _IMAGE_TYPES:
        source = {"type": "base64", "media_type": part.mime_type, "data": part.base64}
        return {"type": "image", "source": source}
    if isinstance(part, File):
        return _document(part)
    return {"type": "text", "text": describe(part, "Anthropic")}


def _document(part: File) -> dict[str, Any]:
    if part.mime_type == "application/pdf" and isinstance(part.data, bytes):
        source = {"type": "base64", "media_type": "application/pdf", "data": part.base64}
        return {"type": "document", "source": source, "title": part.filename}
    text = file_text(part)
    if text is None:
        return {"type": "text", "text": describe(part, "Anthropic")}
    data = part.data if isinstance(part.data, str) else part.data.decode("utf-8")
    source = {"type": "text", "media_type": "text/plain", "data": data}
    return {"type": "document", "source": source, "title": part.uri or part.filename}
