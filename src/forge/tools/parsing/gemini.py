"""Google Gemini tool calls (``functionCall`` parts).

Accepted: a ``GenerateContentResponse`` (the first candidate is read), a ``Content``, a
list of parts, one part, or one ``FunctionCall``; as camelCase wire dicts, snake_case dicts
or ``google.genai`` objects. ``args`` is an object.

Gemini 3 gives every call an id, which is kept. Older models send none: each such call
gets a stable generated id (see `forge.tools.parsing.generated_id`), which
`format_results` leaves out of the ``functionResponse``, so the API matches the results
by name and order, as it does for those models.

Vertex AI can stream one call's arguments in pieces (``partialArgs`` with a ``jsonPath``
each, ``willContinue`` until the last piece; see `forge.tools.parsing._partial_args`):
`GeminiCalls` assembles them, in a stream or in a list of parts gathered from one.
"""

from __future__ import annotations

import json
from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.parsing._partial_args import PartialArguments
from forge.tools.values import QUOTE_CHARS, quote
from forge.tools.values.calls import ToolCall

__all__ = ["GeminiCalls", "parse", "parse_parts"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a response, a content, or a list of parts."""
    if isinstance(obj, list | tuple):
        return parse_parts(obj)
    candidates = field(obj, "candidates")
    if candidates is not None:
        candidates = items(candidates)
        if not candidates:
            return []
        obj = field(candidates[0], "content")
        if obj is None:
            return []
    parts = field(obj, "parts")
    if parts is not None:
        return parse_parts(items(parts))
    if field(obj, "name") is not None and field(obj, "functionCall", "function_call") is None:
        return parse_parts([{"functionCall": obj}])
    return parse_parts([obj])


def parse_parts(parts: list[Any] | tuple[Any, ...], start: int = 0) -> list[ToolCall]:
    """Parse the ``functionCall`` parts; ``start`` numbers the first call (for ids)."""
    calls = GeminiCalls(start)
    return calls.add(parts) + calls.finish()


class GeminiCalls:
    """Turns ``functionCall`` parts into calls, in order, across a stream's chunks.

    A part with ``name`` and ``args`` is a whole call. A call streamed in pieces (Vertex
    AI: ``partialArgs`` and ``willContinue``) is assembled from its pieces and returned by
    the first piece that does not say ``willContinue: true``, never before. A piece the
    arguments cannot be assembled from does not stop the stream: the call carries the
    problem in ``argument_error`` (and is not run).
    """

    def __init__(self, start: int = 0) -> None:
        self.count = start
        """How many calls were returned (numbers the generated ids)."""
        self._open: _Streamed | None = None

    def add(self, parts: list[Any] | tuple[Any, ...]) -> list[ToolCall]:
        """Take the next parts; return the calls they completed.

        Raises:
            ToolCallFormatError: A whole call, or a streamed call when it completes, has
                no name.
        """
        calls: list[ToolCall] = []
        for part in parts:
            call = field(part, "functionCall", "function_call")
            if call is not None:
                calls.extend(self._take(part, call))
        return calls

    def finish(self) -> list[ToolCall]:
        """Close a streamed call still waiting for pieces; it is flagged as incomplete."""
        streamed, self._open = self._open, None
        return [] if streamed is None else [self._close(streamed, incomplete=True)]

    def _take(self, part: Any, call: Any) -> list[ToolCall]:
        pieces = field(call, "partialArgs", "partial_args")
        more = field(call, "willContinue", "will_continue") is True
        done = []
        if self._open is not None and self._open.is_another(call):
            streamed, self._open = self._open, None
            done.append(self._close(streamed, incomplete=True))
        if self._open is None and not pieces and not more:
            if not _is_end_marker(call):
                done.append(self._whole(part, call))
            return done
        streamed = self._open if self._open is not None else _Streamed()
        streamed.take(call, pieces)
        self._open = streamed if more else None
        if not more:
            done.append(self._close(streamed, incomplete=False))
        return done

    def _whole(self, part: Any, call: Any) -> ToolCall:
        name = field(call, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"functionCall has no name: {shown(part, 200)}")
        arguments = field(call, "args")
        call_id = given_id(field(call, "id"), "functionCall") or generated_id(
            self.count, name, arguments
        )
        self.count += 1
        return ToolCall.from_raw(call_id, name, arguments)

    def _close(self, streamed: _Streamed, *, incomplete: bool) -> ToolCall:
        if not streamed.name:
            raise ToolCallFormatError(
                "a functionCall streamed in pieces (partialArgs) never named its function"
            )
        arguments = streamed.arguments.build()
        call_id = streamed.id or generated_id(self.count, streamed.name, arguments)
        self.count += 1
        problem = streamed.problem
        if problem is None and incomplete:
            problem = (
                "The arguments are incomplete: the stream ended (or another call began) "
                "while they were still arriving (willContinue was true)"
            )
        if problem is None:
            return ToolCall(str(call_id), streamed.name, arguments)
        try:
            raw = json.dumps(arguments, ensure_ascii=False, default=str)
        except (ValueError, RecursionError):  # a self-referencing object from a caller
            raw = shown(arguments, QUOTE_CHARS)
        return ToolCall(
            str(call_id),
            streamed.name,
            {},
            argument_error=f"{problem}. Received: {quote(raw)}",
            raw_arguments=raw,
        )


class _Streamed:
    """A call whose pieces are still arriving."""

    __slots__ = ("arguments", "id", "name", "problem")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.arguments = PartialArguments()
        self.problem: str | None = None

    def is_another(self, call: Any) -> bool:
        """Whether ``call`` names a different function or id: a new call, not a piece."""
        name, call_id = field(call, "name"), field(call, "id")
        return bool(
            (name and self.name and name != self.name)
            or (call_id and self.id and str(call_id) != self.id)
        )

    def take(self, call: Any, pieces: Any) -> None:
        """Take one piece of the call: its name and id if given, and its arguments."""
        name, call_id = field(call, "name"), given_id(field(call, "id"), "functionCall")
        if isinstance(name, str) and name:
            self.name = name
        if call_id:
            self.id = call_id
        try:
            args = field(call, "args")
            if args is not None:
                self.arguments.update(args)
            for piece in items(pieces):
                self.arguments.add(piece)
        except ToolCallFormatError as exc:
            if self.problem is None:
                self.problem = f"The arguments could not be assembled from their pieces: {exc}"


def _is_end_marker(call: Any) -> bool:
    """An empty ``functionCall`` (Vertex ends a streamed call with one)."""
    return all(field(call, key) is None for key in ("name", "args", "id"))
