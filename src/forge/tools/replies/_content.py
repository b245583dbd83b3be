"""What one result sends the model, within its limit, and the text of parts a format lacks.

`reply` reads a successful result once for every formatter: its content parts (see
`forge.tools.values.content`) or its plain text and JSON, cut to the result's
`OutputLimit`. A part a provider cannot carry in a tool result is sent as text that
says what it was (`describe`), so the model knows something was there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from forge.tools.replies._common import output_json
from forge.tools.replies._limit import cut_text, limit_parts
from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text, as_content
from forge.tools.values.output_limit import DEFAULT_OUTPUT_LIMIT, OutputLimit
from forge.tools.values.results import ToolResult

__all__ = [
    "Reply",
    "content_parts",
    "data_url",
    "describe",
    "file_text",
    "limit_of",
    "link_text",
    "reply",
]

_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/x-yaml",
               "application/javascript", "application/toml", "application/csv")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reply:
    """A successful result as the model gets it."""

    parts: list[Content] | None
    """The content parts (cut to the limit), or ``None`` for plain text or JSON output."""
    text: str
    """Plain output as text (a ``str`` as is, anything else as compact JSON), cut."""
    cut: bool
    """Whether something was cut or left out."""
    result: ToolResult
    """The result (its output whole)."""
    data: Any = None
    """Plain output as JSON data (see `forge.tools.values.jsonable`)."""

    def json(self) -> Any:
        """Plain output as JSON data; the cut text when it was cut."""
        return self.text if self.cut else self.data


def reply(result: ToolResult, default: OutputLimit | None = None) -> Reply:
    """What ``result`` (a success) sends the model: its own limit, else ``default``'s."""
    limit = limit_of(result, default)
    content = content_parts(result, limit)
    if content is None:
        output = result.output
        if type(output) is str:
            text, cut = cut_text(output, limit.max_chars)
            return Reply(None, text, cut, result, output)
        data = output_json(result)
        whole = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        text, cut = cut_text(whole, limit.max_chars)
        return Reply(None, text, cut, result, data)
    return Reply(content[0], "", content[1], result)


def limit_of(result: ToolResult, default: OutputLimit | None) -> OutputLimit:
    """The result's own limit, else ``default``, else `DEFAULT_OUTPUT_LIMIT`."""
    return result.output_limit or default or DEFAULT_OUTPUT_LIMIT


def content_parts(result: ToolResult, limit: OutputLimit) -> tuple[list[Content], bool] | None:
    """The result's content parts within ``limit`` (and whether cut); ``None`` for plain output."""
    try:
        content = as_content(result.output)
    except (OSError, ValueError, TypeError) as exc:
        content = Text(f"[The tool's output could not be read: {exc}]")
    if content is None:
        return None
    return limit_parts(content if isinstance(content, list) else [content], limit)


def data_url(part: Image | Audio | File) -> str:
    """The part as a ``data:`` URL (base64)."""
    return f"data:{part.mime_type};base64,{part.base64}"


def file_text(part: File) -> str | None:
    """A file's content as text, headed by its name, if it is text (or UTF-8 text bytes)."""
    data = part.data
    if isinstance(data, bytes):
        if not is_text_type(part.mime_type):
            return None
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    where = part.uri or part.filename
    return f"[{where} ({part.mime_type})]\n{data}"


def is_text_type(mime_type: str) -> bool:
    """Whether a MIME type names text (``text/*``, JSON, XML, YAML, ...)."""
    kind = mime_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml"))


def link_text(part: ResourceLink) -> str:
    """A resource link as text."""
    label = part.title or part.name
    extra = "".join(
        f", {v}" for v in (part.mime_type, f"{part.size:,} bytes" if part.size else None) if v
    )
    about = f": {part.description}" if part.description else ""
    return f"[Resource link: {label} <{part.uri}>{extra}{about}]"


def describe(part: Content, provider: str) -> str:
    """Text standing for a part ``provider`` cannot take in a tool result."""
    if isinstance(part, Text):
        return part.text
    if isinstance(part, ResourceLink):
        return link_text(part)
    if isinstance(part, File):
        text = file_text(part)
        if text is not None:
            return text
    size = len(part.data) if isinstance(part, Image | Audio | File) else 0
    mime = getattr(part, "mime_type", "?")
    name = f" {part.filename}" if isinstance(part, File) else ""
    return (
        f"[{type(part).__name__.lower()}{name} ({mime}, {size:,} bytes) left out: {provider} "
        "cannot take it in a tool result.]"
    )
