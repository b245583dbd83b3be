"""AWS Bedrock Converse tool calls (``toolUse`` content blocks).

Accepted: a ``converse`` response (``output.message``), a message, a list of content
blocks, or one block (``{"toolUse": {...}}`` or the inner ``{"toolUseId", "name",
"input"}``); boto3 returns plain dicts.

Tools Bedrock runs itself (system tools such as ``nova_grounding``) come back as
``toolUse`` blocks marked ``"type": "server_tool_use"``, their ``toolResult`` in the same
assistant message: they are not calls for the client, and are skipped.
"""

from __future__ import annotations

from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["SERVER_TOOL_USE", "parse"]

#: ``ToolUseBlock.type`` of a tool Bedrock ran itself (botocore ``ToolUseType``).
SERVER_TOOL_USE = "server_tool_use"


def parse(obj: Any) -> list[ToolCall]:
    """Return the tool calls in a Converse response, a message or a list of blocks."""
    if isinstance(obj, list | tuple):
        blocks = list(obj)
    else:
        output = field(obj, "output")
        if output is not None:
            obj = field(output, "message") or {}
        content = field(obj, "content")
        blocks = items(content) if isinstance(content, list | tuple) else [obj]
    calls = []
    for index, block in enumerate(blocks):
        use = field(block, "toolUse")
        if use is None and field(block, "toolUseId") is not None:
            use = block
        if use is None or field(use, "type") == SERVER_TOOL_USE:
            continue
        name = field(use, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"toolUse block has no name: {shown(block, 200)}")
        arguments = field(use, "input")
        call_id = given_id(field(use, "toolUseId"), "toolUse block") or generated_id(
            index, name, arguments
        )
        calls.append(ToolCall.from_raw(call_id, name, arguments))
    return calls
