"""Google Gemini assistant turns: the model's content, thought signatures kept.

The model's content goes back with every part as it came, in wire form (camelCase, bytes
as base64), so ``thoughtSignature`` stays on the part that carried it, as Gemini requires
of function calling with thinking. A stream's parts are joined into one content: text
continuing a text part of the same kind is appended to it, and a part with a signature
is kept whole. A call Vertex AI streamed in pieces (``partialArgs``, ``willContinue``)
goes back as one ``functionCall`` part with the assembled ``args`` (and the signature its
pieces carried), as a whole response would hold it: one part per call.
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
        self._streamed: list[int] = []
        """The ids of the parts that hold a call streamed in pieces."""
        self._open: dict[str, Any] | None = None
        """The part of the streamed call still taking pieces."""

    def add(self, chunk: Any) -> str:
        """Take one chunk; return the answer text it adds."""
        added: list[str] = []
        for part in _parts(chunk):
            if part.get("text") and not part.get("thought"):
                added.append(part["text"])
            self._join(part)
        return "".join(added)

    def _join(self, part: dict[str, Any]) -> None:
        key = "functionCall" if "functionCall" in part else "function_call"
        call = part.get(key)
        if isinstance(call, dict) and self._piece(part, key, call):
            return
        last = self._parts[-1] if self._parts else None
        if (
            last is not None and "text" in part and set(part) <= _TEXT_KEYS
            and set(last) <= _TEXT_KEYS and "text" in last
            and bool(last.get("thought")) == bool(part.get("thought"))
        ):  # fmt: skip
            last["text"] += part["text"]
        else:
            self._parts.append(part)

    def _piece(self, part: dict[str, Any], key: str, call: dict[str, Any]) -> bool:
        """Take a piece of a call streamed in pieces (as `GeminiCalls` reads them)."""
        pieces = call.get("partialArgs", call.get("partial_args"))
        more = call.get("willContinue", call.get("will_continue")) is True
        held = self._open
        if held is not None and _is_another(held[key], call):
            held = self._open = None
        if held is None and not pieces and not more:
            return not any(call.get(k) is not None for k in ("name", "args", "id"))  # an end
        if held is None:
            held = {key: {}}
            self._parts.append(held)
            self._streamed.append(id(held))
        for name in ("name", "id"):
            if call.get(name):
                held[key][name] = call[name]
        for name, value in part.items():
            if name != key:
                held.setdefault(name, value)  # the signature the pieces carried
        self._open = held if more else None
        return True

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        """The model content; a call streamed in pieces holds its assembled ``args``."""
        made = iter(calls)
        for part in self._parts:
            key = "functionCall" if "functionCall" in part else "function_call"
            if not isinstance(part.get(key), dict):
                continue
            call = next(made, None)
            if call is not None and id(part) in self._streamed:
                part[key]["args"] = dict(call.arguments)
        return [{"role": "model", "parts": self._parts}]


def _is_another(held: dict[str, Any], call: dict[str, Any]) -> bool:
    """Whether ``call`` names another function or id than the call being streamed."""
    return any(
        call.get(name) and held.get(name) and call[name] != held[name] for name in ("name", "id")
    )
