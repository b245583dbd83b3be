"""AWS Bedrock Converse assistant turns.

The ``output.message`` of a Converse response is already in request form and goes back as
it is (``reasoningContent`` blocks with their signatures included). A ConverseStream is
joined block by block at each ``contentBlockIndex``: text, tool inputs (JSON fragments),
reasoning text, signature or redacted content, and the ``toolResult`` of a tool Bedrock
ran itself (a system tool such as ``nova_grounding``), which follows its ``toolUse``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from forge.tools.turns._plain import block_order, field, json_object, text_of
from forge.tools.values.calls import ToolCall

__all__ = ["BedrockBuilder", "items", "text"]


def items(response: Any) -> list[dict[str, Any]]:
    """The assistant message of a Converse response (or the message)."""
    output = field(response, "output")
    message = field(output, "message") if output is not None else response
    content = field(message, "content")
    if not isinstance(content, list):
        from forge.tools.parsing import ToolCallFormatError

        raise ToolCallFormatError(
            "the Converse response has no output.message.content list; pass the dict "
            "bedrock-runtime's converse() returns"
        )
    return [{"role": "assistant", "content": copy.deepcopy(content)}]


def text(turn: list[dict[str, Any]]) -> str:
    """The text blocks' text."""
    return "".join(
        text_of(block, "a content block") for message in turn for block in message["content"]
        if isinstance(block, Mapping)
    )  # fmt: skip


class BedrockBuilder:
    """Joins ConverseStream events (the dicts botocore yields) into the message."""

    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, Any]] = {}
        self._inputs: dict[int, list[str]] = {}

    def add(self, event: Any) -> str:
        """Take one event; return the text it adds."""
        if field(event, "messageStart") is not None:
            self._blocks.clear()
            self._inputs.clear()
        start = field(event, "contentBlockStart")
        if start is not None:
            use = field(field(start, "start") or {}, "toolUse")
            if use is not None:
                index = field(start, "contentBlockIndex")
                self._blocks[index] = {"toolUse": {**copy.deepcopy(dict(use)), "input": {}}}
                self._inputs[index] = []
            result = field(field(start, "start") or {}, "toolResult")
            if isinstance(result, Mapping):
                index = field(start, "contentBlockIndex")
                self._blocks[index] = {"toolResult": {**copy.deepcopy(dict(result)), "content": []}}
        delta = field(event, "contentBlockDelta")
        if delta is not None:
            return self._delta(field(delta, "contentBlockIndex"), field(delta, "delta") or {})
        stop = field(event, "contentBlockStop")
        if stop is not None:
            self._close(field(stop, "contentBlockIndex"))
        return ""

    def _delta(self, index: Any, delta: Mapping[str, Any]) -> str:
        if "text" in delta:
            block = self._blocks.setdefault(index, {"text": ""})
            block["text"] = block.get("text", "") + delta["text"]
            return str(delta["text"])
        if "toolUse" in delta and index in self._inputs:
            piece = delta["toolUse"].get("input")
            if isinstance(piece, str):
                self._inputs[index].append(piece)
        if "toolResult" in delta:
            self._result(index, delta["toolResult"])
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, Mapping):
            block = self._blocks.setdefault(index, {"reasoningContent": {}})
            content = block["reasoningContent"]
            if "redactedContent" in reasoning:
                content["redactedContent"] = reasoning["redactedContent"]
            else:
                said = content.setdefault("reasoningText", {"text": ""})
                said["text"] += reasoning.get("text") or ""
                if reasoning.get("signature"):
                    said["signature"] = reasoning["signature"]
        return ""

    def _result(self, index: Any, pieces: Any) -> None:
        """Add a ``toolResult`` delta's text and JSON to the result block at ``index``."""
        block = self._blocks.get(index)
        if block is None or "toolResult" not in block or not isinstance(pieces, list):
            return
        content = block["toolResult"]["content"]
        for piece in pieces:
            if not isinstance(piece, Mapping):
                continue
            if isinstance(piece.get("text"), str):
                if content and set(content[-1]) == {"text"}:
                    content[-1]["text"] += piece["text"]
                else:
                    content.append({"text": piece["text"]})
            elif "json" in piece:
                content.append({"json": copy.deepcopy(piece["json"])})

    def _close(self, index: Any) -> None:
        parts = self._inputs.pop(index, None)
        if parts is not None:
            self._blocks[index]["toolUse"]["input"] = json_object("".join(parts)) or {}

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        """The assistant message; a tool input cut off goes as it was read."""
        by_id = {call.id: call for call in calls}
        for index in list(self._inputs):
            self._close(index)
        for block in self._blocks.values():
            use = block.get("toolUse")
            if use is not None and not use["input"] and use.get("toolUseId") in by_id:
                use["input"] = dict(by_id[use["toolUseId"]].arguments)
        return [
            {
                "role": "assistant",
                "content": [self._blocks[i] for i in sorted(self._blocks, key=block_order)],
            }
        ]
