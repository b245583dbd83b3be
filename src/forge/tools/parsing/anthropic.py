"""Anthropic Messages tool calls (``tool_use`` content blocks).

Accepted: a ``Message``, a list of content blocks, or one block; as dicts or SDK objects.
``input`` is an object. Blocks of other types (text, thinking, and the server-run
``server_tool_use`` / ``mcp_tool_use``, which the API executes itself) are skipped.
"""

from __future__ import annotations

from typing import Any

from forge.core._text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the tool calls in a message or a list of content blocks."""
    if isinstance(obj, list | tuple):
        blocks = list(obj)
    else:
        content = field(obj, "content")
        blocks = items(content) if isinstance(content, list | tuple) else [obj]
    calls = []
    for index, block in enumerate(blocks):
        if field(block, "type") != "tool_use":
            continue
        name = field(block, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"tool_use block has no name: {shown(block, 200)}")
        arguments = field(block, "input")
        call_id = given_id(field(block, "id"), "tool_use block") or generated_id(
            index, name, arguments
        )
        calls.append(ToolCall.from_raw(call_id, name, arguments))
    return calls
