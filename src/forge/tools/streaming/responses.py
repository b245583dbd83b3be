"""OpenAI Responses API stream events for function calls.

``response.output_item.added`` opens a call (``call_id``, ``name``), then
``response.function_call_arguments.delta`` events append text, keyed by ``item_id`` (or
``output_index``); ``…arguments.done`` and ``response.output_item.done`` carry the whole
arguments, which replace the fragments, and the latter completes the call.
``response.completed`` completes whatever is still open from the final response.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing._common import field, items
from forge.tools.streaming._slots import Slot, Slots
from forge.tools.values.calls import ToolCall

__all__ = ["ResponsesAccumulator"]


class ResponsesAccumulator:
    """Assembles calls from Responses stream events (dicts or SDK objects)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._by_key: dict[Any, Slot] = {}

    def add(self, event: Any) -> list[ToolCall]:
        """Take one event; return the calls it completed."""
        kind = field(event, "type")
        if kind == "response.output_item.added":
            self._open(event, field(event, "item"))
        elif kind == "response.function_call_arguments.delta":
            slot = self._find(event)
            if slot is not None and field(event, "delta"):
                slot.parts.append(field(event, "delta"))
        elif kind == "response.function_call_arguments.done":
            slot = self._find(event)
            if slot is not None:
                slot.whole = field(event, "arguments")
                slot.add_name(field(event, "name"))
        elif kind == "response.output_item.done":
            item = field(event, "item")
            slot = self._open(event, item)
            if slot is not None:
                slot.whole = field(item, "arguments")
                return self._slots.complete(slot)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._complete_from(field(event, "response"))
        return []

    def finish(self) -> list[ToolCall]:
        """Every call, in order; calls still open are finished as they are."""
        return self._slots.calls()

    def _open(self, event: Any, item: Any) -> Slot | None:
        if item is None or field(item, "type") != "function_call":
            return None
        slot = self._find(event) or self._find_item(item)
        if slot is None:
            index = field(event, "output_index")
            slot = self._slots.new(index if isinstance(index, int) else len(self._slots.all))
        if field(item, "call_id") and not slot.id:
            slot.id = str(field(item, "call_id"))
        slot.add_name(field(item, "name"))
        if field(item, "arguments") and not slot.parts:
            slot.parts.append(field(item, "arguments"))
        for key in (field(item, "id"), ("index", field(event, "output_index"))):
            if key is not None and key != ("index", None):
                self._by_key[key] = slot
        return slot

    def _find(self, event: Any) -> Slot | None:
        item_id = field(event, "item_id")
        if item_id is not None and item_id in self._by_key:
            return self._by_key[item_id]
        return self._by_key.get(("index", field(event, "output_index")))

    def _find_item(self, item: Any) -> Slot | None:
        item_id = field(item, "id")
        return self._by_key.get(item_id) if item_id is not None else None

    def _complete_from(self, response: Any) -> list[ToolCall]:
        done: list[ToolCall] = []
        output = items(field(response, "output")) if response is not None else []
        for index, item in enumerate(output):
            if field(item, "type") != "function_call":
                continue
            slot = self._open({"output_index": index}, item)
            if slot is not None and slot.call is None:
                slot.whole = field(item, "arguments")
                done.extend(self._slots.complete(slot))
        return done + self._slots.complete_all()
