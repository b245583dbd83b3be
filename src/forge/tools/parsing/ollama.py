"""Ollama ``/api/chat`` tool calls.

Accepted: a ``ChatResponse`` (or a stream chunk), a message, a list of tool calls or one
tool call; as dicts or ``ollama`` objects. Arguments are objects. Ollama calls have no id
(results are matched by ``tool_name``): a stable one is generated unless the server sent
one.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import openai
from forge.tools.parsing._common import field, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the tool calls in an Ollama chat response, message or list of calls."""
    if isinstance(obj, list | tuple):
        return openai.parse_tool_call_list(obj)
    message = field(obj, "message")
    if message is not None:
        obj = message
    tool_calls = field(obj, "tool_calls")
    if tool_calls is not None:
        return openai.parse_tool_call_list(items(tool_calls))
    if field(obj, "function") is not None:
        return openai.parse_tool_call_list([obj])
    return []
