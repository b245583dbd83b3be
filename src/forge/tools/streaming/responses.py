"""OpenAI Responses API stream events for function calls.

``response.output_item.added`` opens a call (``call_id``, ``name``), then
``response.function_call_arguments.delta`` events append text, keyed by ``item_id`` (or
``output_index``); ``…arguments.done`` and ``response.output_item.done`` carry the whole
arguments, which replace the fragments, and the latter completes the call.
``response.completed`` completes whatever is still open from the final response.

One accumulator can take several responses back to back (a tool loop's turns): each
``response.created`` starts a new response, whose ``output_index`` values restart at 0, and
calls are kept in order across responses. Without ``response.created`` events, an item
that arrives at an ``output_index`` held by another item, or by a call already complete,
starts a new response too.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import field, given_id, items
from forge.tools.streaming._slots import Slot, Slots
from forge.tools.values.calls import ToolCall

__all__ = ["ResponsesAccumulator"]


class ResponsesAccumulator:
    """Assembles calls from Responses stream events (dicts or SDK objects)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._by_key: dict[Any, Slot] = {}
        self._item_at: dict[int, str | None] = {}
        """The item id at each ``output_index`` of the current response."""
        self._response = 0

    def add(self, event: Any) -> list[ToolCall]:
        """Take one event; return the calls it completed."""
        kind = field(event, "type")
        if kind == "response.output_item.added":
            self._open(event, field(event, "item"), added=True)
        elif kind == "response.function_call_arguments.delta":
            slot = self._find(event)
            if slot is not None:
                slot.add_part(field(event, "delta"))
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
            return self._complete_from(field(event, "response"), kind != "response.completed")
        elif kind == "response.created":
            self._new_response()
        return []

    def finish(self) -> list[ToolCall]:
        """Every call, in order; calls still open are finished as they are (one whose
        arguments never arrived is flagged as cut off)."""
        return self._slots.calls(cut_off=True)

    def _open(self, event: Any, item: Any, *, added: bool = False) -> Slot | None:
        if item is None or field(item, "type") != "function_call":
            return None
        index, item_id = _index(event), _key(field(item, "id"))
        slot = self._by_key.get(item_id) if item_id is not None else None
        if slot is None and index is not None:
            slot = self._by_key.get(("index", index))
        if slot is not None and self._belongs_to_earlier(slot, index, item_id, added):
            self._new_response()
            slot = None
        if slot is None:
            order = index if index is not None else len(self._slots.all)
            slot = self._slots.new(self._response, order)
        call_id = given_id(field(item, "call_id"), "function_call item")
        if call_id and not slot.id:
            slot.id = call_id
        slot.add_name(field(item, "name"))
        if not slot.parts:
            slot.add_part(field(item, "arguments"))
        if item_id is not None:
            self._by_key[item_id] = slot
        if index is not None:
            self._by_key[("index", index)] = slot
            self._item_at.setdefault(index, item_id)
        return slot

    def _belongs_to_earlier(
        self, slot: Slot, index: int | None, item_id: str | None, added: bool
    ) -> bool:
        """Whether ``slot`` is an earlier response's call (``output_index`` restarts at 0)."""
        if added and slot.call is not None:
            return True  # an item is added once: this one is new
        held = self._item_at.get(index) if index is not None else None
        return item_id is not None and held is not None and held != item_id

    def _new_response(self) -> None:
        self._response += 1
        self._by_key.clear()
        self._item_at.clear()

    def _find(self, event: Any) -> Slot | None:
        item_id = _key(field(event, "item_id"))
        if item_id is not None and item_id in self._by_key:
            return self._by_key[item_id]
        return self._by_key.get(("index", _index(event)))

    def _complete_from(self, response: Any, cut: bool) -> list[ToolCall]:
        """Complete the calls from the final response (``cut``: it did not complete)."""
        done: list[ToolCall] = []
        output = items(field(response, "output")) if response is not None else []
        for index, item in enumerate(output):
            if field(item, "type") != "function_call":
                continue
            slot = self._open({"output_index": index}, item)
            if slot is not None and slot.call is None:
                slot.whole = field(item, "arguments")
                incomplete = field(item, "status") == "incomplete"
                done.extend(self._slots.complete(slot, cut_off=incomplete))
        return done + self._slots.complete_all(cut_off=cut)


def _index(event: Any) -> int | None:
    index = field(event, "output_index")
    return index if isinstance(index, int) else None


def _key(item_id: Any) -> str | None:
    """An item id usable as a key (ids are text; anything else is not an id)."""
    return item_id if isinstance(item_id, str) else None
