"""The calls of a batch share their deadlines: one timer per limit, not one per call.

A call in a batch must time out, be cancelled and report exactly as it does
alone; only the number of timers differs.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import pickle
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, ToolResult, tool
from forge.tools.execution._deadline import Shared, abandoned_tasks, plain
from forge.tools.execution.executor import ToolExecutor

RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def release_threads() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


async def nap(seconds: float) -> float:
    """Sleep, then answer the seconds slept."""
    await asyncio.sleep(seconds)
    return seconds


def block(seconds: float) -> float:
    """Block this thread (until the test ends)."""
    RELEASE.wait(seconds)
    return seconds


async def swallow_once() -> str:
    """Ignore the first cancellation, then answer."""
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(10)
    return "finished anyway"


def live_timers(loop: asyncio.AbstractEventLoop) -> int:
    """Timers still armed on ``loop`` (a batch must leave none behind)."""
    return sum(1 for handle in loop._scheduled if not handle.cancelled())  # type: ignore[attr-defined]


def test_a_call_times_out_in_a_batch_with_the_result_it_gets_alone() -> None:
    ex = ToolExecutor(ToolRegistry([nap]))

    async def go() -> tuple[ToolResult, list[ToolResult]]:
        alone = await ex.run("nap", {"seconds": 10}, call_id="x", timeout=0.05)
        batch = await ex.execute_all(
            [ToolCall("x", "nap", {"seconds": 10}), ToolCall("y", "nap", {"seconds": 0})],
            timeout=0.05,
        )
        return alone, batch

    alone, (slow, quick) = asyncio.run(go())
    assert slow == alone
    assert slow.error_kind is ErrorKind.TIMEOUT
    assert type(slow.metadata["timeout"]) is float
    assert quick.success
    assert quick.output == 0


def test_the_limit_keeps_the_type_it_was_given() -> None:
    """An int limit stays an int in the result's metadata, as it does for a call alone."""
    loop = asyncio.new_event_loop()
    try:
        shared = Shared(2, loop, lambda task, seconds: None)
        assert shared == 2.0
        assert isinstance(shared, float)
        assert type(plain(shared)) is int
        assert plain(shared) == 2
        assert type(pickle.loads(pickle.dumps(shared))) is int
        assert type(copy.deepcopy(shared)) is int
        assert plain(1.5) == 1.5
        assert plain(None) is None
        shared.close()
    finally:
        loop.close()


def test_calls_of_tools_with_different_limits_each_keep_their_own() -> None:
    @tool(timeout=0.05)
    async def short(seconds: float) -> float:
        """Sleep, within a short limit."""
        await asyncio.sleep(seconds)
        return seconds

    ex = ToolExecutor(ToolRegistry([nap, short]), context=ExecutionContext(timeout=2))
    calls = [
        ToolCall("a", "short", {"seconds": 0.3}),
        ToolCall("b", "nap", {"seconds": 0.3}),
        ToolCall("c", "short", {"seconds": 0}),
    ]
    results = asyncio.run(ex.execute_all(calls))
    assert [r.error_kind for r in results] == [ErrorKind.TIMEOUT, None, None]
    assert results[0].metadata["timeout"] == 0.05


def test_a_call_nested_in_a_batch_call_keeps_its_own_shorter_deadline() -> None:
    registry = ToolRegistry([nap])
    ex = ToolExecutor(registry)

    @registry.register
    async def outer() -> str:
        """Run a nested call with a shorter deadline; answer how it ended."""
        inner = await ex.run("nap", {"seconds": 10}, timeout=0.05)
        return str(inner.error_kind)

    results = asyncio.run(ex.execute_all([ToolCall("o", "outer", {})] * 2, timeout=5))
    assert [r.output for r in results] == [str(ErrorKind.TIMEOUT)] * 2


def test_a_handler_that_swallows_the_cancellation_then_answers_still_times_out() -> None:
    ex = ToolExecutor(ToolRegistry([swallow_once]))
    results = asyncio.run(ex.execute_all([ToolCall("s", "swallow_once", {})] * 3, timeout=0.05))
    assert [r.error_kind for r in results] == [ErrorKind.TIMEOUT] * 3


def test_a_sync_handler_on_a_thread_times_out_in_a_batch() -> None:
    ex = ToolExecutor(ToolRegistry([block]))
    calls = [ToolCall("b", "block", {"seconds": 10}), ToolCall("q", "block", {"seconds": 0})]
    results = asyncio.run(ex.execute_all(calls, timeout=0.05))
    assert [r.error_kind for r in results] == [ErrorKind.TIMEOUT, None]


def test_after_hooks_see_a_timeout_in_a_batch_as_they_do_alone() -> None:
    seen: list[Any] = []

    class Record:
        def after_call(self, call: Any, result: ToolResult) -> None:
            seen.append(result.error_kind)

    ex = ToolExecutor(ToolRegistry([nap]), hooks=[Record()])
    calls = [ToolCall("a", "nap", {"seconds": 10}), ToolCall("b", "nap", {"seconds": 0})]
    results = asyncio.run(ex.execute_all(calls, timeout=0.05))
    assert [r.error_kind for r in results] == [ErrorKind.TIMEOUT, None]
    assert sorted(seen, key=str) == sorted([ErrorKind.TIMEOUT, None], key=str)


def test_a_batch_leaves_no_timer_armed() -> None:
    ex = ToolExecutor(ToolRegistry([nap]))

    async def go() -> int:
        await ex.execute_all([ToolCall(f"c{i}", "nap", {"seconds": 0}) for i in range(50)])
        await ex.execute_all([ToolCall("t", "nap", {"seconds": 10})] * 2, timeout=0.02)
        return live_timers(asyncio.get_running_loop())

    assert asyncio.run(go()) == 0


def test_cancelling_a_batch_wins_over_its_deadline() -> None:
    """The caller's cancellation propagates; no call is reported as timed out."""
    ex = ToolExecutor(ToolRegistry([nap]))

    async def go() -> None:
        batch = asyncio.create_task(
            ex.execute_all([ToolCall("c", "nap", {"seconds": 10})] * 5, timeout=5)
        )
        await asyncio.sleep(0.02)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch

    asyncio.run(go())


def test_cancelling_a_batch_does_not_wait_for_a_call_left_behind() -> None:
    """A call that ignored its deadline runs on; cancelling the batch later returns at once."""
    gate = asyncio.Event()

    @tool(timeout=0.05)
    async def stubborn() -> str:
        """Ignore every cancellation until the gate opens."""
        while not gate.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.005)
        return "late"

    ex = ToolExecutor(ToolRegistry([stubborn, nap]), context=ExecutionContext(timeout=30))

    async def go() -> None:
        batch = asyncio.create_task(
            ex.execute_all([ToolCall("s", "stubborn", {}), ToolCall("n", "nap", {"seconds": 30})])
        )
        while abandoned_tasks() == 0:  # the stubborn call has been left behind
            await asyncio.sleep(0.005)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        assert abandoned_tasks() == 1  # still running: the batch did not wait for it
        gate.set()
        while abandoned_tasks():
            await asyncio.sleep(0.005)

    asyncio.run(asyncio.wait_for(go(), 10))


def test_a_handler_raising_in_a_batch_fails_alone() -> None:
    async def broken(x: int) -> int:
        """Fail after a first wait."""
        await asyncio.sleep(0)
        raise ValueError("no")

    ex = ToolExecutor(ToolRegistry([broken, nap]))
    calls = [ToolCall("b", "broken", {"x": 1}), ToolCall("n", "nap", {"seconds": 0})]
    results = asyncio.run(ex.execute_all(calls, timeout=5))
    assert [r.error_kind for r in results] == [ErrorKind.TOOL_ERROR, None]
