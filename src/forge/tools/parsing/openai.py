"""OpenAI Chat Completions tool calls (also the shape Mistral and Ollama build on).

Accepted: a ``ChatCompletion`` (the first choice is read), a message (``tool_calls``, or
the legacy ``function_call``), a list of tool calls, or one tool call; as dicts or SDK
objects. Arguments are JSON text (objects are accepted too, as Mistral and Ollama send
them). Calls of other types (``custom`` free-text tools) are not function calls and are
skipped.
"""

from __future__ import annotations

from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse", "parse_tool_call_list"]

_from_raw = ToolCall.from_raw


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a chat completion, a message or a list of calls."""
    if isinstance(obj, list | tuple):
        return parse_tool_call_list(obj)
    choices = field(obj, "choices")
    if choices is not None:
        choices = items(choices)
        if not choices:
            return []
        choice = choices[0]
        obj = field(choice, "message")
        if obj is None:
            obj = field(choice, "delta")
        if obj is None:
            return []
    tool_calls = field(obj, "tool_calls")
    if tool_calls is not None:
        return parse_tool_call_list(items(tool_calls))
    if field(obj, "function") is not None:
        return parse_tool_call_list([obj])
    legacy = field(obj, "function_call")
    if legacy is not None:
        return parse_tool_call_list([{"function": legacy}])
    return []


def parse_tool_call_list(raw: list[Any] | tuple[Any, ...], start: int = 0) -> list[ToolCall]:
    """Parse ``[{"id", "type": "function", "function": {"name", "arguments"}}, ...]``.

    ``start`` numbers the first call, for the ids generated for calls that have none.
    """
    calls = []
    for index, item in enumerate(raw, start):
        kind = field(item, "type")
        if kind is not None and kind != "function":
            continue
        function = field(item, "function")
        if function is None:
            raise ToolCallFormatError(f"tool call {index} has no 'function': {shown(item, 200)}")
        name = field(function, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"tool call {index} has no function name: {shown(item, 200)}")
        arguments = field(function, "arguments")
        call_id = given_id(field(item, "id"), f"tool call {index}")
        if call_id is None or call_id == "null":  # mistralai's ToolCall.id defaults to "null"
            call_id = generated_id(index, name, arguments)
        calls.append(_from_raw(call_id, name, arguments))
    return calls
