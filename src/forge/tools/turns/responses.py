"""OpenAI Responses assistant turns: the output items, to go back as input items.

Every output item goes back as it came (reasoning items with their ``encrypted_content``,
``function_call`` items with their ``call_id``, messages), as OpenAI asks of a tool loop
that manages its own input list. A stream is read from its final response
(``response.completed``, ``.incomplete`` or ``.failed``), or from the items it finished
(``response.output_item.done``) when it ended without one; a ``function_call`` item the
stream cut off goes too, with its arguments as they arrived and ``status: incomplete``, so
each ``function_call_output`` answers a call the request holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forge.tools.parsing import ToolCallFormatError
from forge.tools.turns._plain import field, plain, plain_list, text_of
from forge.tools.values.calls import ToolCall

__all__ = ["ResponsesBuilder", "items", "text"]

_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


def items(response: Any) -> list[dict[str, Any]]:
    """The output items of a ``Response`` (or a list of items, or one item)."""
    if isinstance(response, list | tuple):
        return plain_list(response, "the output items")
    output = field(response, "output")
    if output is None and field(response, "type") is not None:
        return [plain(response, "the output item")]
    return plain_list(output, "the response's output")


def text(turn: list[dict[str, Any]]) -> str:
    """The text of the message items (what the SDK's ``output_text`` gives)."""
    return "".join(
        text_of(part, "an output_text part") for item in turn if item.get("type") == "message"
        for part in _parts(item.get("content")) if isinstance(part, Mapping)
        and part.get("type") == "output_text"
    )  # fmt: skip


def _parts(content: Any) -> list[Any] | tuple[Any, ...]:
    """The parts of a message item's ``content`` (a list; text has no output_text parts)."""
    if content is None or isinstance(content, str):
        return ()
    if not isinstance(content, list | tuple):
        raise ToolCallFormatError(f"the content of a message item is {type(content).__name__}"
                                  ", not a list of parts; pass the response as the SDK "
                                  "returns it")  # fmt: skip
    return content


class ResponsesBuilder:
    """Collects a Responses stream's items (events as dicts or SDK objects)."""

    def __init__(self) -> None:
        self._done: dict[int, dict[str, Any]] = {}
        self._final: list[dict[str, Any]] | None = None
        self._calls: dict[int, dict[str, Any]] = {}
        """The ``function_call`` items added and not done yet, by ``output_index``."""

    def add(self, event: Any) -> str:
        """Take one event; return the text it adds."""
        kind = field(event, "type")
        index = field(event, "output_index")
        if kind == "response.output_text.delta":
            return str(field(event, "delta") or "")
        if kind == "response.output_item.added":
            item = plain(field(event, "item"), "output_item.added's item")
            if item.get("type") == "function_call" and isinstance(index, int):
                self._calls[index] = {**item, "arguments": _text(item.get("arguments"))}
        elif kind == "response.function_call_arguments.delta" and isinstance(index, int) \
                and index in self._calls:  # fmt: skip
            self._calls[index]["arguments"] += _text(field(event, "delta"))
        elif kind == "response.output_item.done":
            key = index if isinstance(index, int) else len(self._done)
            self._done[key] = plain(field(event, "item"), "output_item.done's item")
            self._calls.pop(key, None)
        elif kind in _FINAL:
            self._final = items(field(event, "response"))
        elif kind == "response.created":
            self._done.clear()
            self._calls.clear()
            self._final = None
        return ""

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        """The output items, in output order."""
        del calls  # function_call items carry their arguments text whole
        if self._final is not None:
            return self._final
        cut = {i: {**item, "status": "incomplete"} for i, item in self._calls.items()
               if i not in self._done}  # fmt: skip
        found = {**cut, **self._done}
        return [found[i] for i in sorted(found)]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
