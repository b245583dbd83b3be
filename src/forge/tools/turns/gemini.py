"""Google Gemini assistant turns: the model's content, thought signatures kept.

The model's content goes back with every part as it came, in wire form (camelCase, bytes
as base64), so ``thoughtSignature`` stays on the part that carried it, as Gemini requires
of function calling with thinking. A stream's parts are joined into one content: text
continuing a text part of the same kind is appended to it, and a part with a signature
is kept whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from forge.tools.turns._plain import field, plain_list, text_of
from forge.tools.values.calls import ToolCall

__all__ = ["GeminiBuilder", "items", "text"]

_TEXT_KEYS = frozenset({"text", "thought"})


def items(response: Any) -> list[dict[str, Any]]:
    """The model content of a ``GenerateContentResponse`` (or a content, or its parts)."""
    return [{"role": "model", "parts": _parts(response)}]


def _parts(response: Any) -> list[dict[str, Any]]:
    if isinstance(response, list | tuple):
        return plain_list(response, "the parts")
    content = response
    candidates = field(response, "candidates")
    if candidates is not None:
        if not candidates:
            return []
        content = field(candidates[0], "content")
        if content is None:
            return []
    return plain_list(field(content, "parts"), "the content's parts")


def text(turn: list[dict[str, Any]]) -> str:
    """The text parts' text, thoughts left out (what the SDK's ``text`` gives)."""
    return "".join(
        text_of(part, "a part") for content in turn for part in content["parts"]
        if not part.get("thought")
    )  # fmt: skip


class GeminiBuilder:
    """Joins ``generate_content_stream`` chunks into one model content."""

    def __init__(self) -> None:
        self._parts: list[dict[str, Any]] = []

    def add(self, chunk: Any) -> str:
        """Take one chunk; return the answer text it adds."""
        added: list[str] = []
        for part in _parts(chunk):
            if part.get("text") and not part.get("thought"):
                added.append(part["text"])
            self._join(part)
        return "".join(added)

    def _join(self, part: dict[str, Any]) -> None:
        last = self._parts[-1] if self._parts else None
        if (
            last is not None and "text" in part and set(part) <= _TEXT_KEYS
            and set(last) <= _TEXT_KEYS and "text" in last
            and bool(last.get("thought")) == bool(part.get("thought"))
        ):  # fmt: skip
            last["text"] += part["text"]
        else:
            self._parts.append(part)

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        """The model content."""
        del calls  # functionCall parts arrive whole
        return [{"role": "model", "parts": self._parts}]
