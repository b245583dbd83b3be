"""Running a turn: the calls go through the executor, sync and async, whole or streamed
."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from forge.tools import (
    ExecutionHook,
    RuleBasedPolicy,
    ToolExecutor,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    TurnBuilder,
    tool,
)


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool
def shell(command: str) -> str:
    """Run a shell command."""
    return command


@tool(timeout=0.05)
def slow() -> str:
    """Never finishes in time."""
    threading.Event().wait(2)
    return "late"


def registry() -> ToolRegistry:
    return ToolRegistry([add, shell, slow])


def completion(*calls: tuple[str, str, dict[str, Any] | str], text: str | None = None) -> Any:
    """A Chat Completions response calling ``calls`` (id, name, arguments)."""
    tool_calls = [
        {"id": i, "type": "function",
         "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
        for i, n, a in calls
    ]  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


class Seen(ExecutionHook):
    def __init__(self) -> None:
        self.names: list[str] = []

    def before_call(self, call: ToolInvocation) -> ToolResult | None:
        self.names.append(call.name)
        return None


RESPONSE = completion(
    ("call_1", "add", '{"a": 1, "b": null}'),  # OpenAI strict mode's null for a default
    ("call_2", "shell", {"command": "rm -rf /"}),
    ("call_3", "slow", {}),
    ("call_4", "add", {"a": "x"}),
    ("call_5", "nope", {}),
)


def check(turn: Any) -> None:
    kinds = [r.error_kind for r in turn.results]
    assert turn.results[0].output == 1
    assert [str(k) if k else None for k in kinds] == [
        None, "denied", "timeout", "invalid_arguments", "unknown_tool"]  # fmt: skip
    assert [m["tool_call_id"] for m in turn.replies] == [f"call_{i}" for i in range(1, 6)]
    assert turn.messages[0]["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": null}'
    assert not turn.done


def executor(**options: Any) -> ToolExecutor:
    return ToolExecutor(registry(), permissions=RuleBasedPolicy(deny=["shell"]), **options)


def test_executor_turn_applies_permissions_hooks_timeouts_and_metrics() -> None:
    """Sync: a strict null, a denied call, a timeout, bad arguments and an unknown tool all
    become results; hooks see every call; metrics count them."""
    seen = Seen()
    with executor(hooks=[seen], metrics=True) as runner:
        check(runner.run_turn_sync(RESPONSE))
        assert seen.names == ["add", "slow"]  # the calls that reached their handler
        assert runner.metrics is not None
        assert runner.metrics.snapshot()["slow"].timeouts == 1


def test_executor_turn_async() -> None:
    """Async: the same results, the calls run concurrently."""

    async def main() -> Any:
        with executor() as runner:
            return await runner.run_turn(RESPONSE)

    check(asyncio.run(main()))


def test_registry_turn_sync_and_async() -> None:
    """The registry runs a turn too (no policy: the shell call runs)."""
    tools = registry()
    response = completion(("call_1", "add", {"a": 2, "b": 3}), text="Adding.")
    turn = tools.run_turn(response)
    assert (turn.results[0].output, turn.text, turn.provider) == (5, "Adding.", "openai")
    again = asyncio.run(tools.arun_turn(response))
    assert again.replies == turn.replies
    done = tools.run_turn(completion(text="5."))
    assert (done.done, done.text, done.messages) == (
        True, "5.", [{"role": "assistant", "content": "5."}])  # fmt: skip


def chunks(text: str, *calls: tuple[str, str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in text.split()]
    for index, (call_id, name, arguments) in enumerate(calls):
        out.append({"choices": [{"index": 0, "delta": {"tool_calls": [{
            "index": index, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]})  # fmt: skip
    out.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


def test_run_turn_reads_a_stream_or_a_builder() -> None:
    """A stream (generator) is read to its end; a finished TurnBuilder is taken as it is."""
    tools = registry()
    events = chunks("a b", ("call_1", "add", {"a": 1, "b": 1}))
    turn = tools.run_turn(iter(events))
    assert (turn.text, turn.results[0].output) == ("ab", 2)
    builder = TurnBuilder()
    for event in events:
        builder.add(event)
    assert tools.run_turn(builder).replies == turn.replies

    async def stream() -> AsyncIterator[dict[str, Any]]:
        for event in events:
            yield event

    assert asyncio.run(tools.arun_turn(stream())).replies == turn.replies


def test_stream_turn_sync_yields_text_then_turn() -> None:
    """for: text as it comes; the turn once the stream ends, not before."""
    streamed = registry().stream_turn(iter(chunks("x y z", ("call_1", "add", {"a": 4}))))
    with pytest.raises(RuntimeError, match="read to its end"):
        _ = streamed.turn
    assert list(streamed) == ["x", "y", "z"]
    assert streamed.turn.results[0].output == 4


def test_stream_turn_async_starts_calls_while_streaming() -> None:
    """async for: a call finished in the stream runs before the stream goes on."""
    ran = asyncio.Event()

    @tool
    async def mark() -> str:
        """Say it ran."""
        ran.set()
        return "ran"

    def block(index: int, call_id: str) -> list[dict[str, Any]]:
        use = {"type": "tool_use", "id": call_id, "name": "mark", "input": {}}
        return [{"type": "content_block_start", "index": index, "content_block": use},
                {"type": "content_block_stop", "index": index}]  # fmt: skip

    async def stream() -> AsyncIterator[dict[str, Any]]:
        start = {"type": "message", "role": "assistant", "content": [], "model": "c"}
        yield {"type": "message_start", "message": start}
        for event in block(0, "toolu_1"):
            yield event
        await asyncio.wait_for(ran.wait(), 5)  # reached only once toolu_1 has run
        for event in block(1, "toolu_2"):
            yield event
        yield {"type": "message_stop"}

    async def main() -> Any:
        streamed = ToolExecutor(ToolRegistry([mark])).stream_turn(stream())
        texts = [text async for text in streamed]
        return texts, streamed.turn

    texts, turn = asyncio.run(main())
    assert texts == []
    assert [(r.call_id, r.output) for r in turn.results] == [("toolu_1", "ran"), ("toolu_2", "ran")]


def test_stream_turn_async_break_cancels_started_calls() -> None:
    """Leaving the stream early cancels the calls it started and leaves no turn."""
    started, cancelled = asyncio.Event(), asyncio.Event()

    @tool
    async def wait() -> str:
        """Wait a long time."""
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    events = [
        {"type": "message_start", "message": {"type": "message", "content": [], "model": "c"}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "wait", "input": {}}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "a"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "b"}},
    ]  # fmt: skip

    async def main() -> Any:
        streamed = ToolExecutor(ToolRegistry([wait])).stream_turn(iter(events))
        iterator = aiter(streamed)
        assert await anext(iterator) == "a"
        await asyncio.wait_for(started.wait(), 5)
        await iterator.aclose()  # type: ignore[attr-defined]
        return streamed

    streamed = asyncio.run(main())
    assert cancelled.is_set()
    with pytest.raises(RuntimeError):
        _ = streamed.turn


def test_an_async_stream_read_with_for_says_so() -> None:
    """An async stream given to `for` raises a TypeError saying to use `async for`."""

    async def stream() -> AsyncIterator[Any]:
        yield {}

    agen = stream()
    with pytest.raises(TypeError, match="async for"):
        list(registry().stream_turn(agen))
    asyncio.run(agen.aclose())


def test_a_sync_stream_in_async_code() -> None:
    """`async for` also reads a sync stream (an SDK's sync client used from async code)."""

    async def main() -> Any:
        streamed = registry().stream_turn(iter(chunks("p q", ("c1", "add", {"a": 7}))))
        return [t async for t in streamed], streamed.turn

    texts, turn = asyncio.run(main())
    assert (texts, turn.results[0].output) == (["p", "q"], 7)


def test_an_accumulator_is_refused_with_the_way_out() -> None:
    """A ToolCallAccumulator cannot rebuild the turn: the error names TurnBuilder."""
    from forge.tools import ToolCallAccumulator

    with pytest.raises(TypeError, match="TurnBuilder"):
        registry().run_turn(ToolCallAccumulator("openai"))
