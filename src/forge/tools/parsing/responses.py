"""OpenAI Responses API tool calls (``function_call`` output items).

Accepted: a ``Response`` (its ``output``), a list of output or input items, or one item; as
dicts or SDK objects. The call id is the item's ``call_id`` (what ``function_call_output``
answers), not its ``id``. Items of other types (messages, reasoning, hosted tools, and the
``tool_search_call`` / ``tool_search_output`` items of OpenAI's own tool search) are
skipped.

`revealed` reads what that tool search loaded: the names of the functions in each
``tool_search_output`` item (inside a namespace too).
"""

from __future__ import annotations

from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import (
    ToolCallFormatError,
    cut_off_call,
    field,
    generated_id,
    given_id,
    items,
)
from forge.tools.values.calls import ToolCall

__all__ = ["parse", "parse_item", "revealed"]


def _items(obj: Any) -> list[Any]:
    if isinstance(obj, list | tuple):
        return list(obj)
    output = field(obj, "output")
    return items(output) if isinstance(output, list | tuple) else [obj]


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a response or a list of items."""
    calls = []
    for index, item in enumerate(_items(obj)):
        if field(item, "type") == "function_call":
            calls.append(parse_item(item, index))
    return calls


def parse_item(item: Any, index: int = 0) -> ToolCall:
    """Parse one ``{"type": "function_call", "call_id", "name", "arguments"}`` item."""
    name = field(item, "name")
    if not isinstance(name, str) or not name:
        raise ToolCallFormatError(f"function_call item has no name: {shown(item, 200)}")
    arguments = field(item, "arguments")
    call_id = (
        given_id(field(item, "call_id"), "function_call item")
        or given_id(field(item, "id"), "function_call item")
        or generated_id(index, name, arguments)
    )
    if field(item, "status") == "incomplete" and arguments in (None, ""):
        return cut_off_call(call_id, name)  # the output ran out right after the name
    return ToolCall.from_raw(call_id, name, arguments)


def revealed(obj: Any) -> list[str]:
    """The function names OpenAI's tool search loaded in a response or items, in order."""
    names: list[str] = []
    for item in _items(obj):
        if field(item, "type") == "tool_search_output":
            _tool_names(_listed(item, "tools", "a tool_search_output"), names)
    return names


def _tool_names(tools: list[Any], names: list[str]) -> None:
    for tool in tools:
        kind = field(tool, "type")
        if kind == "namespace":
            _tool_names(_listed(tool, "tools", "a namespace"), names)
        elif kind in ("function", "custom"):
            name = field(tool, "name")
            if isinstance(name, str) and name:
                names.append(name)


def _listed(obj: Any, key: str, what: str) -> list[Any]:
    value = field(obj, key)
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise ToolCallFormatError(f"{what}'s {key} is not a list: {shown(obj, 200)}")
    return list(value)
