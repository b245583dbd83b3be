"""Gemini ``functionResponse`` parts.

All results go in one ``{"role": "user", "parts": [{"functionResponse": {"id", "name",
"response"}}, ...]}`` content, sent after the model's content (kept as it was, with its
thought signatures). ``response`` is an object: ``{"output": <JSON>}`` on success and
``{"error": <message>}`` on failure, the convention the API documents.

Content parts: images (PNG, JPEG, WebP, HEIC, HEIF), PDFs and plain text files go in the
function response's own ``parts`` as base64 ``inlineData``, each with a unique
``displayName`` that ``output`` refers to as ``{"$ref": <displayName>}``, in order with
the text parts (Gemini's multimodal function responses). Anything else is text in
``output`` saying what was left out.

Calls that came without an id (models before Gemini 3) were given generated ids by the
parser; those are left out here, so the API matches results by name and order: results
keep the order of the calls.
"""

from __future__ import annotations

import base64
from typing import Any

from forge.tools.parsing import is_generated_id
from forge.tools.replies._common import error_text, tool_name
from forge.tools.replies._content import describe, reply
from forge.tools.values.content import Content, File, Image, Text
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["format_gemini"]

_INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif",
                           "application/pdf", "text/plain"})  # fmt: skip


def _part(result: ToolResult, limit: OutputLimit | None) -> dict[str, Any]:
    reply_: dict[str, Any] = {"name": tool_name(result, "gemini")}
    if not is_generated_id(result.call_id):
        reply_ = {"id": result.call_id, **reply_}
    if not result.success:
        failed = {"error": error_text(result, prefix=False)}
        return {"functionResponse": {**reply_, "response": failed}}
    answer = reply(result, limit)
    if answer.parts is None:
        return {"functionResponse": {**reply_, "response": {"output": answer.json()}}}
    output, inline = _multimodal(answer.parts)
    reply_["response"] = {"output": output}
    if inline:
        reply_["parts"] = inline
    return {"functionResponse": reply_}


def _multimodal(parts: list[Content]) -> tuple[Any, list[dict[str, Any]]]:
    """The ``output`` (text, or text and references in order) and the inline parts."""
    items: list[Any] = []
    inline: list[dict[str, Any]] = []
    for part in parts:
        blob = _blob(part, len(inline) + 1)
        if blob is None:
            items.append(part.text if isinstance(part, Text) else describe(part, "Gemini"))
            continue
        inline.append({"inlineData": blob})
        items.append({"$ref": blob["displayName"]})
    if not inline:
        return "\n".join(items), inline
    return items, inline


def _blob(part: Content, number: int) -> dict[str, Any] | None:
    if not isinstance(part, Image | File) or part.mime_type not in _INLINE_TYPES:
        return None
    name = f"{number}-{part.filename}" if isinstance(part, File) else f"image-{number}"
    data = part.data.encode("utf-8") if isinstance(part.data, str) else part.data
    # URL-safe, as the SDK itself sends bytes (the API takes either alphabet)
    encoded = base64.urlsafe_b64encode(data).decode("ascii")
    return {"mimeType": part.mime_type, "data": encoded, "displayName": name}


def format_gemini(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "user", "parts": [functionResponse parts]}]`` (empty for no results)."""
    if not results:
        return []
    return [{"role": "user", "parts": [_part(r, limit) for r in results]}]
