"""AWS Bedrock Converse ``toolResult`` blocks.

All results go in one user message: ``{"role": "user", "content": [{"toolResult":
{"toolUseId", "content": [...], "status": "success" | "error"}}, ...]}``. An object output
is sent as ``{"json": {...}}``; anything else, and every error message, as
``{"text": ...}``.

Content parts: PNG, JPEG, GIF and WebP images as ``image`` blocks; PDF, CSV, Word, Excel,
HTML, text and Markdown files as ``document`` blocks (text files with a ``text`` source);
resource links as text; audio and other files as text saying what was left out. Image
and document bytes are raw ``bytes``, as boto3 takes them (it encodes them itself), so
these messages are not JSON text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from forge.tools.replies._common import call_id, error_text
from forge.tools.replies._content import Reply, describe, file_text, reply
from forge.tools.values.content import Content, File, Image, Text
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["format_bedrock"]

_IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif",
                  "image/webp": "webp"}  # fmt: skip
_DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")


def _content(result: ToolResult, limit: OutputLimit | None) -> list[dict[str, Any]]:
    if not result.success:
        return [{"text": error_text(result, prefix=False)}]
    answer = reply(result, limit)
    if answer.parts is not None:
        return [_block(part) for part in answer.parts] or [{"text": ""}]
    return [_plain(answer)]


def _plain(answer: Reply) -> dict[str, Any]:
    output = answer.result.output
    if not answer.cut and (
        isinstance(output, Mapping)
        or (output is not None and not isinstance(output, str) and isinstance(answer.json(), dict))
    ):
        return {"json": answer.json()}
    return {"text": answer.text}


def _block(part: Content) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"text": part.text}
    if isinstance(part, Image) and part.mime_type in _IMAGE_FORMATS:
        return {"image": {"format": _IMAGE_FORMATS[part.mime_type], "source": {"bytes": part.data}}}
    if isinstance(part, File) and part.mime_type in _DOCUMENT_FORMATS:
        return {"document": _document(part)}
    return {"text": describe(part, "Bedrock")}


def _document(part: File) -> dict[str, Any]:
    fmt = _DOCUMENT_FORMATS[part.mime_type]
    if isinstance(part.data, str):
        source: dict[str, Any] = {"text": part.data}
    elif fmt in ("txt", "md", "csv", "html") and file_text(part) is not None:
        source = {"text": part.data.decode("utf-8")}
    else:
        source = {"bytes": part.data}
    return {"format": fmt, "name": _name(part), "source": source}


def _name(part: File) -> str:
    """The file's name as Bedrock allows it: letters, digits, single spaces, ``-()[]``."""
    cleaned = " ".join(_NOT_IN_NAME.sub(" ", part.filename).split())
    return cleaned[:200] or "document"


def format_bedrock(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "user", "content": [toolResult blocks]}]`` (empty for no results)."""
    if not results:
        return []
    blocks = [
        {
            "toolResult": {
                "toolUseId": call_id(r, "bedrock"),
                "content": _content(r, limit),
                "status": "success" if r.success else "error",
            }
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]
