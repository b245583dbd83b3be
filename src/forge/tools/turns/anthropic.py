"""Anthropic Messages assistant turns.

The assistant message goes back with every content block as the API returned it:
``thinking`` blocks with their ``signature`` and ``redacted_thinking`` blocks untouched
(Anthropic rejects a tool loop whose thinking was changed or dropped), text with its
citations, ``tool_use`` blocks, and server tool blocks. A stream is joined the way the SDK
joins it: ``text_delta``, ``thinking_delta``, ``signature_delta``, ``citations_delta`` and
``input_json_delta`` go into the block at their ``index``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forge.tools.turns._plain import block_order, field, json_object, plain, plain_list, text_of
from forge.tools.values.calls import ToolCall

__all__ = ["AnthropicBuilder", "items", "text"]

_INPUT_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def items(response: Any) -> list[dict[str, Any]]:
    """The assistant message of a ``Message`` (or of its content blocks)."""
    content = response if isinstance(response, list | tuple) else field(response, "content")
    return [{"role": "assistant", "content": plain_list(content, "the message's content")}]


def text(turn: list[dict[str, Any]]) -> str:
    """The text blocks' text."""
    return "".join(
        text_of(block, "a text block") for message in turn for block in message["content"]
        if isinstance(block, Mapping) and block.get("type") == "text"
    )  # fmt: skip


class AnthropicBuilder:
    """Joins stream events (raw events, or a ``MessageStream``'s) into the message."""

    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, Any]] = {}
        self._inputs: dict[int, list[str]] = {}
        self._unread: set[int] = set()
        """Blocks whose streamed input is not a JSON object (a stream cut off mid-call)."""

    def add(self, event: Any) -> str:
        """Take one event; return the text it adds."""
        kind = field(event, "type")
        if kind == "message_start":
            self._blocks.clear()
            self._inputs.clear()
            self._unread.clear()
        elif kind == "content_block_start":
            index = field(event, "index")
            block = plain(field(event, "content_block"), "content_block_start's block")
            self._blocks[index] = block
            if block.get("type") in _INPUT_BLOCKS:
                self._inputs[index] = []
        elif kind == "content_block_delta":
            return self._delta(field(event, "index"), field(event, "delta"))
        elif kind == "content_block_stop":
            self._close(field(event, "index"))
        return ""

    def _delta(self, index: Any, delta: Any) -> str:
        block = self._blocks.get(index)
        if block is None:
            return ""
        kind = field(delta, "type")
        if kind == "text_delta":
            piece = field(delta, "text") or ""
            block["text"] = block.get("text", "") + piece
            return str(piece)
        if kind == "input_json_delta" and index in self._inputs:
            piece = field(delta, "partial_json")
            if isinstance(piece, str):  # (the call of a block sent anything else says so)
                self._inputs[index].append(piece)
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + (field(delta, "thinking") or "")
        elif kind == "signature_delta":
            block["signature"] = field(delta, "signature")
        elif kind == "citations_delta":
            citation = plain(field(delta, "citation"), "a citations_delta's citation")
            block.setdefault("citations", []).append(citation)
        return ""

    def _close(self, index: Any) -> None:
        parts = self._inputs.pop(index, None)
        block = self._blocks.get(index)
        if parts and block is not None:
            parsed = json_object("".join(parts))
            if parsed is None:
                self._unread.add(index)
            else:
                block["input"] = parsed

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        """The assistant message; a call whose input was cut off goes as it was read."""
        for index in list(self._inputs):
            self._close(index)
        by_id = {call.id: call for call in calls}
        for index in self._unread:
            block = self._blocks[index]
            call = by_id.get(block.get("id", ""))
            block["input"] = dict(call.arguments) if call is not None else {}
        return [
            {
                "role": "assistant",
                "content": [self._blocks[i] for i in sorted(self._blocks, key=block_order)],
            }
        ]
