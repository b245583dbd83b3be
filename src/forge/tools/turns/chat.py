"""Chat-shaped assistant turns: OpenAI Chat Completions, Mistral and Ollama.

The assistant message goes back with its text (``content``), its refusal, and each call as
the model sent it (the arguments text untouched); Ollama's also keeps ``thinking``.
Streamed chunks are joined the way the SDKs join them: text appended, call fragments by
``index`` (a fragment with a new id at a used index is a new call), as
`forge.tools.ToolCallAccumulator` joins them: a fragment without an ``index`` (Gemini's
OpenAI-compatible endpoint sends none) continues the call its id names, else the last one.
A call's ``extra_content`` (where Gemini puts the ``thought_signature`` it requires back on
the call) is kept, and so is the reasoning OpenAI-compatible servers send beside the text
(``reasoning_content``: DeepSeek, which refuses a tool loop without it, Kimi, vLLM;
``reasoning``: OpenRouter, newer vLLM).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forge.tools.turns._plain import field, plain, plain_list, text_of
from forge.tools.values.calls import ToolCall

__all__ = ["ChatBuilder", "assistant_message", "chat_message", "content_text", "with_call_ids"]


def chat_message(response: Any) -> Any:
    """The assistant message of a completion (or the message itself)."""
    data = field(response, "data")
    if data is not None and field(response, "choices") is None:
        response = data  # a mistralai event wrapper
    choices = field(response, "choices")
    if isinstance(choices, list | tuple) and choices:
        return field(choices[0], "message")
    message = field(response, "message")
    return message if message is not None and not isinstance(message, str) else response


def assistant_message(data: Mapping[str, Any], provider: str) -> dict[str, Any]:
    """The request form of an assistant message, in ``provider``'s shape."""
    content = data.get("content")
    if provider == "ollama":
        out: dict[str, Any] = {"role": "assistant", "content": content or ""}
        if data.get("thinking"):
            out["thinking"] = data["thinking"]
        calls = [{"function": {"name": (c.get("function") or {}).get("name"),
                               "arguments": (c.get("function") or {}).get("arguments") or {}}}
                 for c in data.get("tool_calls") or ()]  # fmt: skip
        if calls:
            out["tool_calls"] = calls
        return out
    out = {"role": "assistant", "content": content}
    if data.get("refusal"):
        out["refusal"] = data["refusal"]
    for key in _REASONING:
        if isinstance(data.get(key), str) and data[key]:
            out[key] = data[key]
    calls = [_call(c) for c in data.get("tool_calls") or ()]
    if calls:
        out["tool_calls"] = calls
    if data.get("function_call"):
        out["function_call"] = data["function_call"]
    audio = data.get("audio")
    if isinstance(audio, Mapping) and audio.get("id"):
        out["audio"] = {"id": audio["id"]}
    return out


def with_call_ids(message: dict[str, Any], calls: Iterable[ToolCall]) -> dict[str, Any]:
    """``message`` with the id of each parsed call on each function call that came without
    one (``""``, ``null``, mistralai's ``"null"``): the tool messages answer that id."""
    made = iter(calls)
    for call in message.get("tool_calls") or ():
        if call.get("type") == "custom":
            continue  # not parsed: no call of ours answers it
        parsed = next(made, None)
        if parsed is not None and call.get("id") in (None, "", "null"):
            call["id"] = parsed.id
    return message


_NO_INDEX = 1 << 30

#: The reasoning text OpenAI-compatible servers send beside the answer, to send back.
_REASONING = ("reasoning_content", "reasoning")
#: The text fields of a delta that are joined across chunks.
_JOINED = ("thinking", "refusal", *_REASONING)


def _call(call: Mapping[str, Any]) -> dict[str, Any]:
    kind = call.get("type") or "function"
    if kind == "custom":
        custom = call.get("custom") or {}
        named = {"name": custom.get("name"), "input": custom.get("input", "")}
        out = {"id": call.get("id"), "type": "custom", "custom": named}
    else:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        out = {"id": call.get("id"), "type": "function",
               "function": {"name": function.get("name"),
                            "arguments": "" if arguments is None else arguments}}  # fmt: skip
    if call.get("extra_content"):  # Gemini's thought_signature: it must come back
        out["extra_content"] = call["extra_content"]
    return out


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            text_of(part, "a text part of the message") for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )  # fmt: skip
    return ""


class ChatBuilder:
    """Joins chat-completion chunks (OpenAI, Mistral) or Ollama chunks into one message."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._text: list[str] = []
        self._joined: dict[str, list[str]] = {key: [] for key in _JOINED}
        self._calls: list[dict[str, Any]] = []
        self._places: list[int] = []
        """Where each call goes: its index (as the accumulator orders the calls)."""
        self._by_index: dict[Any, dict[str, Any]] = {}
        self._by_id: dict[Any, dict[str, Any]] = {}
        self._last: dict[str, Any] | None = None

    def add(self, chunk: Any) -> str:
        """Take one chunk; return the text it adds."""
        data = field(chunk, "data")
        if data is not None and field(chunk, "choices") is None:
            chunk = data
        delta: Any = field(chunk, "message")  # Ollama
        choices = field(chunk, "choices")
        if isinstance(choices, list | tuple):
            first = [c for c in choices if field(c, "index") in (0, None)]
            delta = field(first[0], "delta") if first else None
        if delta is None:
            return ""
        part = plain(delta, "a chunk's delta")
        for fragment in plain_list(part.get("tool_calls"), "the delta's tool_calls"):
            self._take(fragment)
        for key, pieces in self._joined.items():
            if isinstance(part.get(key), str):
                pieces.append(part[key])
        text = part.get("content")
        if isinstance(text, str) and text:
            self._text.append(text)
            return text
        return ""

    def _take(self, fragment: dict[str, Any]) -> None:
        index, call_id = fragment.get("index"), fragment.get("id")
        known = call_id if isinstance(call_id, str | int) else None  # a hashable id
        slot = self._by_id.get(known) if known and index is None else None
        if slot is None:
            slot = self._by_index.get(index) if index is not None else self._last
        if slot is None or (call_id and slot.get("id") and slot["id"] != call_id) \
                or self._provider == "ollama":  # fmt: skip
            slot = {"id": call_id, "type": "function", "function": {"name": "", "arguments": ""}}
            self._calls.append(slot)
            self._places.append(index if isinstance(index, int) and self._provider != "ollama"
                                else _NO_INDEX)  # fmt: skip
            if index is not None:
                self._by_index[index] = slot
        self._last = slot
        if call_id and not slot.get("id"):
            slot["id"] = call_id
        if known:
            self._by_id[known] = slot
        extra = fragment.get("extra_content")
        if isinstance(extra, Mapping) and extra:
            slot["extra_content"] = _merged(slot.get("extra_content"), extra)
        function = fragment.get("function") or {}
        name = function.get("name")
        if isinstance(name, str) and name != slot["function"]["name"]:
            slot["function"]["name"] += name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            if isinstance(slot["function"]["arguments"], str):
                slot["function"]["arguments"] += arguments
        elif arguments is not None:
            slot["function"]["arguments"] = arguments

    def message(self) -> dict[str, Any]:
        """The joined message, as the provider's response would hold it."""
        text = "".join(self._text)
        data: dict[str, Any] = {"role": "assistant", "content": text or None}
        for key, pieces in self._joined.items():
            if pieces:
                data[key] = "".join(pieces)
        if self._calls:
            order = sorted(range(len(self._calls)), key=self._places.__getitem__)  # stable
            data["tool_calls"] = [self._calls[i] for i in order]
        return data


def _merged(old: Any, new: Mapping[str, Any]) -> dict[str, Any]:
    """``new`` merged into ``old`` key by key (nested objects merged too)."""
    out = dict(old) if isinstance(old, Mapping) else {}
    for key, value in new.items():
        before = out.get(key)
        out[key] = _merged(before, value) if isinstance(value, Mapping) and isinstance(
            before, Mapping) else value  # fmt: skip
    return out
