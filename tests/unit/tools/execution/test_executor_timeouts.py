"""Timeouts and cancellation through the executor."""

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, tool
from forge.tools.execution.executor import ToolExecutor
from forge.tools.execution.metrics import ExecutionMetrics

RELEASE = threading.Event()  # lets the abandoned sync handlers end when a test finishes
ON_TIME = 5.0
"""Seconds within which a timed-out or cancelled call must return: far below the 10 s its
handler would take, and far above its deadline, as a loaded machine needs."""


@pytest.fixture(autouse=True)
def release_threads() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


async def sleep_async(seconds: float) -> str:
    """Sleep asynchronously."""
    await asyncio.sleep(seconds)
    return "woke"


def sleep_sync(seconds: float) -> str:
    """Sleep on the calling thread (until released at the end of the test)."""
    RELEASE.wait(seconds)
    return "woke"


@tool(timeout=0.2)
async def slow_with_own_timeout() -> str:
    """Sleep ten seconds; the tool's own timeout is 0.2 s."""
    await asyncio.sleep(10)
    return "woke"


@tool(timeout=0.2)
def slow_sync_with_own_timeout() -> str:
    """Block ten seconds; the tool's own timeout is 0.2 s."""
    RELEASE.wait(10)
    return "woke"


def registry() -> ToolRegistry:
    return ToolRegistry(
        [sleep_async, sleep_sync, slow_with_own_timeout, slow_sync_with_own_timeout]
    )


def timed(fn: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - started


# -- timeouts --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sleep_async", "sleep_sync"])
def test_a_ten_second_handler_times_out_in_under_a_second(name: str) -> None:
    """Async and sync handlers sleeping 10 s with a 0.2 s timeout return a timeout result < 1 s."""
    ex = ToolExecutor(registry())
    ctx = ExecutionContext(timeout=0.2)
    result, elapsed = timed(lambda: asyncio.run(ex.execute(name, ctx, seconds=10)))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert result.success is False
    assert "0.2 s" in (result.error or "")
    assert result.metadata["timeout"] == 0.2
    assert elapsed < ON_TIME


@pytest.mark.parametrize("name", ["slow_with_own_timeout", "slow_sync_with_own_timeout"])
def test_the_tools_own_timeout_applies(name: str) -> None:
    """A tool's timeout overrides the context's (async entry point)."""
    ex = ToolExecutor(registry())
    result, elapsed = timed(lambda: asyncio.run(ex.execute(name, ExecutionContext(timeout=60))))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert elapsed < ON_TIME


def test_the_per_call_timeout_wins() -> None:
    """A per-call timeout overrides both the tool's and the context's."""
    ex = ToolExecutor(registry())
    result, elapsed = timed(
        lambda: asyncio.run(ex.run("sleep_async", {"seconds": 10}, timeout=0.1))
    )
    assert result.metadata["timeout"] == 0.1
    assert elapsed < ON_TIME


def test_sync_entry_point_enforces_an_explicit_timeout_on_a_sync_handler() -> None:
    """From sync code, a per-call or per-tool timeout moves a sync handler to a worker thread."""
    ex = ToolExecutor(registry())
    result, elapsed = timed(lambda: ex.run_sync("sleep_sync", {"seconds": 10}, timeout=0.2))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert elapsed < ON_TIME
    result, elapsed = timed(lambda: ex.run_sync("slow_sync_with_own_timeout"))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert elapsed < ON_TIME
    assert ex.abandoned_threads >= 1


def test_sync_entry_point_runs_an_async_handler_within_its_timeout() -> None:
    """From sync code an async handler is cancelled at its deadline too."""
    ex = ToolExecutor(registry())
    result, elapsed = timed(lambda: ex.run_sync("sleep_async", {"seconds": 10}, timeout=0.2))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert elapsed < ON_TIME


def test_a_timed_out_sync_handler_is_abandoned_not_killed() -> None:
    """The thread of a timed-out sync handler runs on; abandoned_threads counts it until it ends."""
    ex = ToolExecutor(registry())
    result = asyncio.run(ex.run("sleep_sync", {"seconds": 10}, timeout=0.1))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert ex.abandoned_threads == 1
    RELEASE.set()
    deadline = time.monotonic() + 5
    while ex.abandoned_threads and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ex.abandoned_threads == 0


def test_a_timed_out_async_handler_is_cancelled() -> None:
    """An async handler past its deadline receives CancelledError and stops."""
    seen: list[str] = []

    async def careful() -> None:
        """Record the cancellation."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    ex = ToolExecutor(ToolRegistry([careful]))
    result = asyncio.run(ex.run("careful", timeout=0.05))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert seen == ["cancelled"]


def test_a_handler_that_swallows_the_cancellation_still_times_out() -> None:
    """A handler that catches the deadline's CancelledError and returns still gets a timeout."""

    async def stubborn() -> str:
        """Ignore cancellation."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "ignored"
        return "slept"

    ex = ToolExecutor(ToolRegistry([stubborn]))

    async def go() -> tuple[Any, int]:
        result = await ex.run("stubborn", timeout=0.05)
        task = asyncio.current_task()
        assert task is not None
        return result, task.cancelling()

    result, cancelling = asyncio.run(go())
    assert result.error_kind is ErrorKind.TIMEOUT
    assert cancelling == 0


def test_a_handler_raising_timeout_error_itself_is_a_tool_error() -> None:
    """A TimeoutError raised by the handler (not the deadline) is the tool's own error."""

    async def gives_up() -> None:
        """Raise TimeoutError immediately."""
        await asyncio.sleep(0)
        raise TimeoutError("upstream took too long")

    ex = ToolExecutor(ToolRegistry([gives_up]))
    result = asyncio.run(ex.run("gives_up"))
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "upstream took too long" in (result.error or "")


def test_deadlines_of_many_calls_are_independent() -> None:
    """Short and long deadlines in one batch: only the short ones expire."""
    ex = ToolExecutor(registry())
    calls = [
        ToolCall(f"c{i}", "sleep_async", {"seconds": 0.3 if i % 2 else 0.01}) for i in range(20)
    ]

    async def go() -> list[Any]:
        return await ex.execute_all(calls, timeout=0.15)

    results = asyncio.run(go())
    kinds = [r.error_kind for r in results]
    assert kinds == [None if i % 2 == 0 else ErrorKind.TIMEOUT for i in range(20)]


def test_a_shorter_deadline_armed_later_fires_first() -> None:
    """A call with a short deadline started while a long one is armed still times out on time."""
    ex = ToolExecutor(registry())

    async def go() -> tuple[Any, float]:
        long_call = asyncio.create_task(ex.run("sleep_async", {"seconds": 30}, timeout=60))
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        short = await ex.run("sleep_async", {"seconds": 10}, timeout=0.05)
        elapsed = time.perf_counter() - started
        assert not long_call.done()
        long_call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await long_call
        return short, elapsed

    short, elapsed = asyncio.run(go())
    assert short.error_kind is ErrorKind.TIMEOUT
    assert elapsed < ON_TIME


# -- cancellation ------------------------------------------------------------------------


def test_cancelling_a_batch_of_100_leaves_no_handler_running() -> None:
    """Cancelling the task awaiting a batch of 100 running calls stops every handler first."""
    running = 0

    async def hold() -> None:
        """Run until cancelled."""
        nonlocal running
        running += 1
        try:
            await asyncio.sleep(10)
        finally:
            running -= 1

    metrics = ExecutionMetrics()
    ex = ToolExecutor(ToolRegistry([hold]), hooks=[metrics])

    async def go() -> None:
        batch = asyncio.create_task(ex.execute_all([ToolCall.create("hold")] * 100))
        while running < 100:
            await asyncio.sleep(0.001)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        assert running == 0

    asyncio.run(go())
    stats = metrics.snapshot()["hold"]
    assert (stats.calls, stats.cancelled, stats.failures) == (100, 100, 0)


@pytest.mark.parametrize("hooked", [False, True])
def test_cancelling_a_batch_before_its_calls_start_waits_for_every_one(hooked: bool) -> None:
    """Cancelled with its calls before they start (as at shutdown), a batch still ends."""
    started = 0

    async def hold() -> None:
        """Count the start, then run until cancelled."""
        nonlocal started
        started += 1
        await asyncio.sleep(10)

    hooks = [ExecutionMetrics()] if hooked else []
    ex = ToolExecutor(ToolRegistry([hold]), hooks=hooks)

    async def go() -> None:
        batch = asyncio.create_task(ex.execute_all([ToolCall.create("hold")] * 50))
        await asyncio.sleep(0)  # the batch has created its tasks; none has run yet
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert len(others) == 51
        for task in others:  # what asyncio.run does to the tasks left at its end
            task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(batch, 5)
        assert all(task.done() for task in others)

    asyncio.run(go())
    assert started == 0


def test_cancelling_a_plain_batch_leaves_no_handler_running() -> None:
    """Without hooks (the batch fast path), cancelling a batch stops every handler first."""
    running = 0

    async def hold() -> None:
        """Run until cancelled."""
        nonlocal running
        running += 1
        try:
            await asyncio.sleep(10)
        finally:
            running -= 1

    ex = ToolExecutor(ToolRegistry([hold]))

    async def go() -> None:
        batch = asyncio.create_task(ex.execute_all([ToolCall.create("hold")] * 100))
        while running < 100:
            await asyncio.sleep(0.001)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        assert running == 0

    asyncio.run(go())


def test_a_plain_batch_keeps_call_order_ids_and_deadlines() -> None:
    """Mixed outcomes in one plain batch: results in call order, each with its call id."""

    async def nap(seconds: float) -> float:
        """Sleep, then answer the seconds slept."""
        await asyncio.sleep(seconds)
        return seconds

    @tool(timeout=0.05)
    async def short(x: int) -> int:
        """Sleep past the tool's own deadline."""
        await asyncio.sleep(10)
        return x

    # The batch's deadline leaves the quick calls a hundred times what they need, under load too.
    ex = ToolExecutor(ToolRegistry([nap, short]), context=ExecutionContext(timeout=1.0))
    calls = [
        ToolCall("a", "nap", {"seconds": 0.01}),
        ToolCall("b", "nap", {"seconds": 5}),
        ToolCall("c", "short", {"x": 1}),
        ToolCall("d", "nap", {"seconds": "soon"}),
        ToolCall("e", "nap", {"seconds": 0}),
    ]
    results = asyncio.run(ex.execute_all(calls))
    assert [r.call_id for r in results] == ["a", "b", "c", "d", "e"]
    assert [r.error_kind for r in results] == [
        None, ErrorKind.TIMEOUT, ErrorKind.TIMEOUT, ErrorKind.INVALID_ARGUMENTS, None,
    ]  # fmt: skip
    assert [r.output for r in results] == [0.01, None, None, None, 0]
    assert all(r.tool_name == c.name for r, c in zip(results, calls, strict=True))


def test_cancelling_a_single_call_propagates_and_is_not_a_tool_error() -> None:
    """The awaiting task gets CancelledError; hooks record it as cancelled, not tool_error."""
    results: list[Any] = []

    class Recorder:
        def after_call(self, call: Any, result: Any) -> None:
            results.append(result)

    ex = ToolExecutor(registry(), hooks=[Recorder()])

    async def go() -> None:
        task = asyncio.create_task(ex.run("sleep_async", {"seconds": 10}, call_id="c1"))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert [(r.error_kind, r.call_id) for r in results] == [(ErrorKind.CANCELLED, "c1")]


def test_cancelling_the_caller_of_a_fast_path_call_propagates() -> None:
    """Without hooks, cancellation of the awaiting task propagates the same way."""
    ex = ToolExecutor(registry())

    async def go() -> None:
        task = asyncio.create_task(ex.execute("sleep_async", seconds=10))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())


def test_cancelling_a_sync_handler_call_abandons_its_thread() -> None:
    """Cancelling a call whose sync handler runs on a thread returns at once; the thread runs on."""
    ex = ToolExecutor(registry())

    async def go() -> None:
        task = asyncio.create_task(ex.run("sleep_sync", {"seconds": 10}))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _, elapsed = timed(lambda: asyncio.run(go()))
    assert elapsed < ON_TIME
    assert ex.abandoned_threads == 1


def test_a_handler_that_raises_cancelled_error_by_itself_is_cancelled() -> None:
    """A stray CancelledError from the handler (caller not cancelled) is a cancelled result."""

    async def gives_in() -> None:
        """Await a future that something else cancelled."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        future.cancel()
        await future

    ex = ToolExecutor(ToolRegistry([gives_in]))
    result = asyncio.run(ex.run("gives_in"))
    assert result.error_kind is ErrorKind.CANCELLED
    assert result.metadata["retryable"] is False
    batch = asyncio.run(ex.execute_all([ToolCall.create("gives_in")] * 3))
    assert [r.error_kind for r in batch] == [ErrorKind.CANCELLED] * 3


def test_after_timeouts_the_task_can_still_be_cancelled() -> None:
    """Timeouts leave no stray cancellation requests on the caller's task."""
    ex = ToolExecutor(registry())

    async def go() -> int:
        for _ in range(3):
            result = await ex.run("sleep_async", {"seconds": 10}, timeout=0.01)
            assert result.error_kind is ErrorKind.TIMEOUT
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)
        return task.cancelling()

    assert asyncio.run(go()) == 0
