"""Anthropic Messages stream events for ``tool_use`` blocks.

``content_block_start`` opens a block (``id``, ``name``, ``input: {}``) at its ``index``;
``content_block_delta`` events of type ``input_json_delta`` append ``partial_json`` (the
first is often empty); ``content_block_stop`` completes it. An empty buffer means ``{}``.
Indexes restart with each ``message_start``.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import field, given_id
from forge.tools.streaming._slots import Slot, Slots, block_index
from forge.tools.values.calls import ToolCall

__all__ = ["AnthropicAccumulator"]


class AnthropicAccumulator:
    """Assembles calls from Anthropic stream events (dicts or SDK objects)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._open: dict[Any, Slot] = {}
        self._message = 0

    def add(self, event: Any) -> list[ToolCall]:
        """Take one event; return the calls it completed."""
        kind = field(event, "type")
        if kind == "content_block_start":
            block = field(event, "content_block")
            if field(block, "type") == "tool_use":
                index = block_index(field(event, "index"), "content_block_start")
                slot = self._slots.new(self._message, index if index is not None else 0)
                slot.id = given_id(field(block, "id"), "tool_use block")
                slot.add_name(field(block, "name"))
                start = field(block, "input")
                if start:  # a non-empty start input is the whole input (no deltas follow)
                    slot.whole = start
                self._open[index] = slot
        elif kind == "content_block_delta":
            delta = field(event, "delta")
            target = self._open.get(block_index(field(event, "index"), "content_block_delta"))
            if target is not None and field(delta, "type") == "input_json_delta":
                target.add_part(field(delta, "partial_json"))
        elif kind == "content_block_stop":
            index = block_index(field(event, "index"), "content_block_stop")
            return self._slots.complete(self._open.pop(index, None))
        elif kind == "message_start":
            self._message += 1
            self._open.clear()
        elif kind == "message_stop":
            return self._slots.complete_all()
        return []

    def finish(self) -> list[ToolCall]:
        """Every call, in order; calls still open are finished as they are (one whose
        arguments never arrived is flagged as cut off)."""
        return self._slots.calls(cut_off=True)
