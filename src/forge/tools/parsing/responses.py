"""OpenAI Responses API tool calls (``function_call`` output items).

Accepted: a ``Response`` (its ``output``), a list of output or input items, or one item; as
dicts or SDK objects. The call id is the item's ``call_id`` (what ``function_call_output``
answers), not its ``id``. Items of other types (messages, reasoning, hosted tools) are
skipped.
"""

from __future__ import annotations

from typing import Any

from forge.core._text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse", "parse_item"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a response or a list of items."""
    if isinstance(obj, list | tuple):
        raw = list(obj)
    else:
        output = field(obj, "output")
        raw = items(output) if isinstance(output, list | tuple) else [obj]
    calls = []
    for index, item in enumerate(raw):
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
    return ToolCall.from_raw(call_id, name, arguments)
