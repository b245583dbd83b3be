"""AWS Bedrock ConverseStream events for ``toolUse`` blocks.

``contentBlockStart`` (``start.toolUse``: ``toolUseId``, ``name``) opens a block at its
``contentBlockIndex``; ``contentBlockDelta`` (``delta.toolUse.input``: a JSON fragment)
appends; ``contentBlockStop`` completes it. Indexes restart with each ``messageStart``.
A block whose start says ``"type": "server_tool_use"`` is a tool Bedrock runs itself (its
``toolResult`` block follows in the stream): it is not a call for the client, and is skipped.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import field, given_id
from forge.tools.parsing.bedrock import SERVER_TOOL_USE
from forge.tools.streaming._slots import Slot, Slots, block_index
from forge.tools.values.calls import ToolCall

__all__ = ["BedrockAccumulator"]


class BedrockAccumulator:
    """Assembles calls from ConverseStream events (the dicts botocore yields)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._open: dict[Any, Slot] = {}
        self._message = 0

    def add(self, event: Any) -> list[ToolCall]:
        """Take one event; return the calls it completed."""
        start = field(event, "contentBlockStart")
        if start is not None:
            use = field(field(start, "start") or {}, "toolUse")
            if use is not None and field(use, "type") != SERVER_TOOL_USE:
                index = block_index(field(start, "contentBlockIndex"), "contentBlockStart")
                slot = self._slots.new(self._message, index if index is not None else 0)
                slot.id = given_id(field(use, "toolUseId"), "toolUse block")
                slot.add_name(field(use, "name"))
                self._open[index] = slot
            return []
        delta = field(event, "contentBlockDelta")
        if delta is not None:
            use = field(field(delta, "delta") or {}, "toolUse")
            index = block_index(field(delta, "contentBlockIndex"), "contentBlockDelta")
            target = self._open.get(index)
            if use is not None and target is not None:
                fragment = field(use, "input")
                if isinstance(fragment, str):
                    if fragment:
                        target.parts.append(fragment)
                elif fragment is not None:
                    target.whole = fragment
            return []
        stop = field(event, "contentBlockStop")
        if stop is not None:
            index = block_index(field(stop, "contentBlockIndex"), "contentBlockStop")
            return self._slots.complete(self._open.pop(index, None))
        if field(event, "messageStart") is not None:
            self._message += 1
            self._open.clear()
        elif field(event, "messageStop") is not None:
            return self._slots.complete_all()
        return []

    def finish(self) -> list[ToolCall]:
        """Every call, in order; calls still open are finished as they are (one whose
        arguments never arrived is flagged as cut off)."""
        return self._slots.calls(cut_off=True)
