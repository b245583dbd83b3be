"""A streamed turn: the text as it arrives, then the `Turn` once the stream ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any, Protocol

from forge.tools.turns._values import AssistantTurn, Delta, Turn
from forge.tools.values.calls import ToolCall
from forge.tools.values.results import ToolResult

__all__ = ["TurnStream"]

RunAll = Callable[[list[ToolCall]], list[ToolResult]]
RunOne = Callable[[ToolCall], Awaitable[ToolResult]]


class _Reader(Protocol):
    """What `forge.tools.turns.TurnBuilder` does."""

    def add(self, event: Any) -> Delta: ...
    def finish(self) -> AssistantTurn: ...


class TurnStream:
    """Iterate for the model's text as it arrives; read `turn` when the stream is done.

    Made by ``stream_turn`` (`ToolRegistry.stream_turn`, `ToolExecutor.stream_turn`) over
    the stream the SDK returned (sync or async, of SDK events or dicts). With ``for``,
    the calls run when the stream ends; with ``async for``, each call starts as soon as
    it is complete, while the rest of the stream arrives. Breaking out early cancels the
    calls started and leaves no turn.
    """

    __slots__ = ("_builder", "_run_all", "_run_one", "_stream", "_turn")

    def __init__(self, stream: Any, builder: _Reader, *, run_all: RunAll, run_one: RunOne) -> None:
        if isinstance(stream, Mapping | str | bytes) or hasattr(stream, "model_dump"):
            raise TypeError(
                f"stream_turn takes the stream the SDK returned with stream=True, not "
                f"{type(stream).__name__}; for a whole response, use run_turn(response)"
            )
        self._stream = stream
        self._builder = builder
        self._run_all = run_all
        self._run_one = run_one
        self._turn: Turn | None = None

    @property
    def turn(self) -> Turn:
        """The whole turn: the model's turn, the results and whether it is done.

        Raises:
            RuntimeError: The stream has not been read to its end yet.
        """
        if self._turn is None:
            raise RuntimeError(
                "the turn is known once the stream has been read to its end: iterate over "
                "the TurnStream first (for text in stream: ...), then read .turn"
            )
        return self._turn

    def __iter__(self) -> Iterator[str]:
        if not hasattr(self._stream, "__iter__"):
            raise TypeError(
                f"{type(self._stream).__name__} is an async stream: read it with `async for`"
            )
        for event in self._stream:
            text = self._builder.add(event).text
            if text:
                yield text
        assistant = self._builder.finish()
        self._turn = assistant.answer(self._run_all(list(assistant.calls)))

    async def __aiter__(self) -> AsyncIterator[str]:
        started: list[tuple[ToolCall, asyncio.Task[ToolResult]]] = []
        try:
            async for event in _events(self._stream):
                delta = self._builder.add(event)
                started += [
                    (call, asyncio.ensure_future(self._run_one(call))) for call in delta.calls
                ]
                if delta.text:
                    yield delta.text
            assistant = self._builder.finish()
            tasks = [self._task_for(call, started) for call in assistant.calls]
            self._turn = assistant.answer(await asyncio.gather(*tasks))
        finally:
            pending = [task for _, task in started if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    def _task_for(
        self, call: ToolCall, started: list[tuple[ToolCall, asyncio.Task[ToolResult]]]
    ) -> asyncio.Task[ToolResult]:
        """The task running ``call`` (the object the stream completed), or a new one."""
        for running, task in started:
            if running is call:
                return task
        task = asyncio.ensure_future(self._run_one(call))
        started.append((call, task))
        return task


async def _events(stream: Any) -> AsyncIterator[Any]:
    """The events of an async stream, or of a sync one read from async code."""
    if hasattr(stream, "__aiter__"):
        async for event in stream:
            yield event
    else:
        for event in stream:
            yield event
