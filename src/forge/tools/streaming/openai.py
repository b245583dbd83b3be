"""OpenAI Chat Completions (and Mistral) streamed tool-call deltas.

Each chunk's ``choices[0].delta.tool_calls`` holds fragments ``{"index", "id"?, "type"?,
"function": {"name"?, "arguments"?}}``. Fragments are keyed by ``index``, never by their
position in the chunk (nor by their id: two calls may share one); the first carries the
id and name, later ones append argument text. A fragment with a *different* id at an
index already in use starts a new call: some OpenAI-compatible servers (and Mistral) send
every call at index 0. A fragment without an index (Gemini's OpenAI-compatible endpoint)
continues the call its id names, else the last one. Calls finish when a ``finish_reason``
arrives, or at `finish`.

Only the first choice (``index`` 0) is read: with ``n > 1`` the choices interleave. One
accumulator can take several completions back to back (a tool loop's turns): after a
``finish_reason``, the next fragment starts a new completion, whose indexes restart at 0,
and calls are kept in order across completions.

The events of the SDK's ``client.chat.completions.stream()`` helper are taken too: each
``chunk`` event's chunk is read, and its other events (which repeat what the chunks hold)
are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.tools.parsing import ToolCallFormatError, field, items
from forge.tools.streaming._slots import Slot, Slots
from forge.tools.values.calls import ToolCall

__all__ = ["ChatAccumulator"]

_NO_INDEX = 1 << 30


class ChatAccumulator:
    """Assembles calls from chat-completion chunks (dicts or SDK objects)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._by_index: dict[Any, Slot] = {}
        self._by_id: dict[str, Slot] = {}
        self._last: Slot | None = None
        self._turn = 0
        self._ended = False

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one chunk; return the calls it completed."""
        if field(chunk, "type") == "chunk":  # the stream helper's ChunkEvent
            chunk = field(chunk, "chunk")
        data = field(chunk, "data")
        if data is not None and field(chunk, "choices") is None:
            chunk = data  # a mistralai CompletionEvent
        choices = items(field(chunk, "choices"))
        if not choices:
            return []
        choice = _first_choice(choices)
        if choice is None:
            return []
        delta = field(choice, "delta")
        if delta is None:
            delta = field(choice, "message")
        if delta is not None:
            for fragment in items(field(delta, "tool_calls")):
                self._take(fragment)
            legacy = field(delta, "function_call")
            if legacy is not None:
                self._take({"index": "function_call", "function": legacy})
        if field(choice, "finish_reason"):
            self._ended = True
            return self._slots.complete_all()
        return []

    def finish(self) -> list[ToolCall]:
        """Every call, in order; calls still open are finished as they are (without a
        ``finish_reason`` the stream was cut off: a call none of whose arguments arrived
        is flagged)."""
        return self._slots.calls(cut_off=not self._ended)

    def _take(self, fragment: Any) -> None:
        if self._ended:  # a new completion: its indexes restart
            self._ended = False
            self._turn += 1
            self._by_index.clear()
            self._by_id.clear()
            self._last = None
        index = field(fragment, "index")
        if not isinstance(index, int | str):
            index = None
        call_id = field(fragment, "id")
        call_id = _id_text(call_id)
        if call_id in ("", "null"):  # mistralai's default id is the text "null"
            call_id = None
        slot = self._find(index, call_id)
        if call_id and not slot.id:
            slot.id = str(call_id)
            self._by_id[slot.id] = slot
        function = field(fragment, "function")
        if function is None:
            return
        slot.add_name(field(function, "name"))
        arguments = field(function, "arguments")
        if isinstance(arguments, Mapping):
            slot.whole = dict(arguments)
        else:
            slot.add_part(arguments)

    def _find(self, index: Any, call_id: str | None) -> Slot:
        if index is None and call_id and call_id in self._by_id:
            return self._by_id[call_id]  # an index-less fragment: its id names its call
        slot = self._by_index.get(index) if index is not None else self._last
        if slot is None or (call_id and slot.id and slot.id != call_id):
            if slot is not None:
                self._slots.complete(slot)
            order = index if isinstance(index, int) else _NO_INDEX
            slot = self._slots.new(self._turn, order)
            if index is not None:
                self._by_index[index] = slot
        self._last = slot
        return slot


def _id_text(call_id: Any) -> str | None:
    """A streamed id as text (some servers send integers), ``None`` for anything else."""
    if isinstance(call_id, str):
        return call_id
    if not isinstance(call_id, int):
        return None
    try:
        return str(call_id)
    except ValueError:  # past Python's 4300-digit limit
        raise ToolCallFormatError(
            "a streamed tool call id is an integer of more than 4300 digits; ids are strings"
        ) from None


def _first_choice(choices: list[Any]) -> Any:
    """The choice with index 0 (streams with ``n > 1`` interleave choices)."""
    for choice in choices:
        if field(choice, "index") in (0, None):
            return choice
    return None
