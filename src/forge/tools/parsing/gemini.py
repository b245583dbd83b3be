"""Google Gemini tool calls (``functionCall`` parts).

Accepted: a ``GenerateContentResponse`` (the first candidate is read), a ``Content``, a
list of parts, one part, or one ``FunctionCall``; as camelCase wire dicts, snake_case dicts
or ``google.genai`` objects. ``args`` is an object.

Gemini 3 gives every call an id, which is kept. Older models send none: each such call
gets a stable generated id (see `forge.tools.parsing.generated_id`), which
`format_results` leaves out of the ``functionResponse``, so the API matches the results
by name and order, as it does for those models.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse", "parse_parts"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a response, a content, or a list of parts."""
    if isinstance(obj, list | tuple):
        return parse_parts(obj)
    candidates = field(obj, "candidates")
    if candidates is not None:
        candidates = items(candidates)
        if not candidates:
            return []
        obj = field(candidates[0], "content")
        if obj is None:
            return []
    parts = field(obj, "parts")
    if parts is not None:
        return parse_parts(items(parts))
    if field(obj, "name") is not None and field(obj, "functionCall", "function_call") is None:
        return parse_parts([{"functionCall": obj}])
    return parse_parts([obj])


def parse_parts(parts: list[Any] | tuple[Any, ...], start: int = 0) -> list[ToolCall]:
    """Parse the ``functionCall`` parts; ``start`` numbers the first call (for ids)."""
    calls = []
    index = start
    for part in parts:
        call = field(part, "functionCall", "function_call")
        if call is None:
            continue
        name = field(call, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"functionCall has no name: {part!r:.200}")
        arguments = field(call, "args")
        call_id = field(call, "id") or generated_id(index, name, arguments)
        calls.append(ToolCall.from_raw(str(call_id), name, arguments))
        index += 1
    return calls
