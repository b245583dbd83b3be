"""OpenAI Responses API ``function_call_output`` input items.

One ``{"type": "function_call_output", "call_id", "output"}`` item per result, to send
after the ``function_call`` items (or with ``previous_response_id``). No error flag: a
failure's output starts with ``Error: ``.

Plain output is the ``output`` string. Content parts make ``output`` a list: text (and
text files) as ``input_text``, images as ``input_image`` and other files as
``input_file`` (both as base64 ``data:`` URLs); audio, which the format cannot take, as
``input_text`` saying what was left out.
"""

from __future__ import annotations

from typing import Any

from forge.tools.replies._common import call_id, error_text
from forge.tools.replies._content import data_url, describe, file_text, reply
from forge.tools.values.content import Content, File, Image
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["format_responses"]


def format_responses(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"type": "function_call_output", "call_id", "output"}, ...]``."""
    return [
        {
            "type": "function_call_output",
            "call_id": call_id(r, "openai-responses"),
            "output": _output(r, limit) if r.success else error_text(r, prefix=True),
        }
        for r in results
    ]


def _output(result: ToolResult, limit: OutputLimit | None) -> str | list[dict[str, Any]]:
    answer = reply(result, limit)
    if answer.parts is None:
        return answer.text
    return [_item(part) for part in answer.parts]


def _item(part: Content) -> dict[str, Any]:
    if isinstance(part, Image):
        return {"type": "input_image", "image_url": data_url(part)}
    if isinstance(part, File) and file_text(part) is None:
        return {"type": "input_file", "file_data": data_url(part), "filename": part.filename}
    return {"type": "input_text", "text": describe(part, "the Responses API")}
