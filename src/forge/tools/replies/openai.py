"""OpenAI Chat Completions tool messages (also Mistral's, and the base of Ollama's).

One ``{"role": "tool", "tool_call_id", "content"}`` message per result, to send after the
assistant message that holds the calls; every call must be answered. The format has no
error flag, so a failure's message starts with ``Error: ``.

Tool messages take text only. Content parts are sent the way that is commonly done with
these APIs: the tool message holds the text parts (text files and resource links as
text) and names each image, audio clip or PDF, which follow in **one user message after
all the tool messages**, as ``image_url`` (``data:`` URL), ``input_audio`` (WAV and MP3)
and ``file`` parts (Mistral: ``image_url``, ``input_audio`` and ``document_url``).
Ollama instead takes images in the tool message's own ``images`` list. Anything else is
named in the text as left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forge.tools.replies._common import call_id, error_text, tool_name
from forge.tools.replies._content import data_url, describe, reply
from forge.tools.values.content import Audio, Content, File, Image
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

__all__ = ["format_mistral", "format_ollama", "format_openai"]

Attach = Callable[[Content], dict[str, Any] | None]
"""A part as a user-message part, or ``None`` when the provider cannot take it."""

_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
                  "audio/mpeg": "mp3", "audio/mp3": "mp3"}  # fmt: skip


def _openai_part(part: Content) -> dict[str, Any] | None:
    if isinstance(part, Image) and part.mime_type in _IMAGE_TYPES:
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    if isinstance(part, Audio) and part.mime_type in _AUDIO_FORMATS:
        audio = {"data": part.base64, "format": _AUDIO_FORMATS[part.mime_type]}
        return {"type": "input_audio", "input_audio": audio}
    pdf = _pdf(part)
    if pdf is not None:
        return {"type": "file", "file": {"file_data": data_url(pdf), "filename": pdf.filename}}
    return None


def _mistral_part(part: Content) -> dict[str, Any] | None:
    if isinstance(part, Image) and part.mime_type in _IMAGE_TYPES:
        return {"type": "image_url", "image_url": data_url(part)}
    if isinstance(part, Audio) and part.mime_type in _AUDIO_FORMATS:
        return {"type": "input_audio", "input_audio": part.base64}
    pdf = _pdf(part)
    if pdf is not None:
        url = data_url(pdf)
        return {"type": "document_url", "document_url": url, "document_name": pdf.filename}
    return None


def _pdf(part: Content) -> File | None:
    if isinstance(part, File) and part.mime_type == "application/pdf" and not part.is_text:
        return part
    return None


class _Messages:
    """Tool messages in order, then one user message with every attachment."""

    def __init__(self, provider: str, attach: Attach, limit: OutputLimit | None) -> None:
        self.provider, self.attach, self.limit = provider, attach, limit
        self.attachments: list[dict[str, Any]] = []
        self._last_call: str | None = None

    def content(self, result: ToolResult) -> str:
        if not result.success:
            return error_text(result, prefix=True)
        answer = reply(result, self.limit)
        if answer.parts is None:
            return answer.text
        lines = [self._line(part, result) for part in answer.parts]
        return "\n".join(lines)

    def _line(self, part: Content, result: ToolResult) -> str:
        attached = self.attach(part)
        if attached is None:
            return describe(part, self.provider)
        if not self.attachments or self._last_call != result.call_id:
            self._last_call = result.call_id
            intro = f"Attachments from tool call {result.call_id} ({result.tool_name}):"
            self.attachments.append({"type": "text", "text": intro})
        self.attachments.append(attached)
        mime = getattr(part, "mime_type", "")
        return f"[{type(part).__name__.lower()} ({mime}): sent in the next user message]"

    def follow_up(self) -> list[dict[str, Any]]:
        return [{"role": "user", "content": self.attachments}] if self.attachments else []


def format_openai(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_call_id", "content"}, ...]`` (+ a user message of attachments)."""
    messages = _Messages("Chat Completions", _openai_part, limit)
    out = [
        {"role": "tool", "tool_call_id": call_id(r, "openai"), "content": messages.content(r)}
        for r in results
    ]
    return out + messages.follow_up()


def format_mistral(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_call_id", "name", "content"}, ...]`` (+ attachments)."""
    messages = _Messages("Mistral", _mistral_part, limit)
    out = [
        {
            "role": "tool",
            "tool_call_id": call_id(r, "mistral"),
            "name": tool_name(r, "mistral"),
            "content": messages.content(r),
        }
        for r in results
    ]
    return out + messages.follow_up()


def format_ollama(
    results: list[ToolResult], limit: OutputLimit | None = None
) -> list[dict[str, Any]]:
    """``[{"role": "tool", "tool_name", "content", "images"?}, ...]``: matched by name and order."""
    return [_ollama_message(r, limit) for r in results]


def _ollama_message(result: ToolResult, limit: OutputLimit | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "tool_name": tool_name(result, "ollama")}
    if not result.success:
        return {**message, "content": error_text(result, prefix=True)}
    answer = reply(result, limit)
    if answer.parts is None:
        return {**message, "content": answer.text}
    images = [p for p in answer.parts if isinstance(p, Image)]
    lines = [
        f"[image ({p.mime_type}): attached to this message]"
        if isinstance(p, Image)
        else describe(p, "Ollama")
        for p in answer.parts
    ]
    message["content"] = "\n".join(lines)
    if images:
        message["images"] = [p.base64 for p in images]
    return message
