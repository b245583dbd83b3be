"""Batches and concurrency limits."""

import asyncio
import threading
import time
from typing import Any

import pytest

from forge.tools import ErrorKind, ToolCall, ToolRegistry, tool
from forge.tools.execution import Limiter
from forge.tools.execution.executor import ToolExecutor


async def nap(i: int) -> int:
    """Sleep 50 ms, then return i."""
    await asyncio.sleep(0.05)
    return i


def double(i: int) -> int:
    """Return 2 * i (sync)."""
    return 2 * i


def fail_on_odd(i: int) -> int:
    """Fail for odd i."""
    if i % 2:
        raise ValueError(f"odd {i}")
    return i


class Gauge:
    """Counts how many handlers run at once."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def test_1000_concurrent_async_calls_complete_in_order() -> None:
    """1,000 concurrent calls of a 50 ms async tool all complete, results in call order."""
    ex = ToolExecutor(ToolRegistry([nap]))
    calls = [ToolCall(f"c{i}", "nap", {"i": i}) for i in range(1000)]
    results = asyncio.run(ex.execute_all(calls))
    assert [r.output for r in results] == list(range(1000))
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert all(r.success for r in results)


def test_a_failure_does_not_affect_the_other_calls() -> None:
    """Bad calls, unknown tools and handler errors fail alone; the rest succeed, in order."""
    ex = ToolExecutor(ToolRegistry([double, fail_on_odd]))
    calls: list[Any] = [
        ToolCall("a", "double", {"i": 1}),
        ToolCall("b", "fail_on_odd", {"i": 1}),
        ToolCall("c", "nope", {}),
        ToolCall("d", "double", {"i": "x"}),
        {"id": "e", "name": "fail_on_odd", "arguments": {"i": 2}},
        7,
    ]
    for parallel in (True, False):
        results = asyncio.run(ex.execute_all(calls, parallel=parallel))
        assert [r.error_kind for r in results] == [
            None,
            ErrorKind.TOOL_ERROR,
            ErrorKind.UNKNOWN_TOOL,
            ErrorKind.INVALID_ARGUMENTS,
            None,
            ErrorKind.INVALID_JSON,
        ]
        assert [r.call_id for r in results[:5]] == ["a", "b", "c", "d", "e"]


def test_parallel_calls_overlap_and_sequential_calls_do_not() -> None:
    """parallel=True runs 10 calls at once (each waits until all ten run); parallel=False one
    after another."""
    gauge = Gauge()
    all_in: list[asyncio.Event] = []

    @tool
    async def meet(i: int) -> int:
        """Wait until ten calls run at once, then return i."""
        gauge.enter()
        if gauge.now == 10:
            all_in[0].set()
        await all_in[0].wait()
        gauge.leave()
        return i

    @tool
    async def step(i: int) -> int:
        """Count the calls running now; return i."""
        gauge.enter()
        await asyncio.sleep(0.005)
        gauge.leave()
        return i

    ex = ToolExecutor(ToolRegistry([meet, step]))

    async def parallel() -> list[Any]:
        all_in.append(asyncio.Event())
        calls = [ToolCall.create("meet", {"i": i}) for i in range(10)]
        return await ex.execute_all(calls, timeout=60)  # calls that never meet time out

    assert [r.output for r in asyncio.run(parallel())] == list(range(10))
    assert gauge.peak == 10
    gauge.peak = 0
    calls = [ToolCall.create("step", {"i": i}) for i in range(10)]
    results = asyncio.run(ex.execute_all(calls, parallel=False))
    assert [r.output for r in results] == list(range(10))
    assert gauge.peak == 1


@pytest.mark.parametrize("limit", [1, 3])
def test_batch_max_concurrency_caps_running_calls(limit: int) -> None:
    """execute_all(max_concurrency=N) never runs more than N calls at once."""
    gauge = Gauge()

    async def measured(i: int) -> int:
        """Record concurrency."""
        gauge.enter()
        await asyncio.sleep(0.01)
        gauge.leave()
        return i

    ex = ToolExecutor(ToolRegistry([measured]))
    calls = [ToolCall.create("measured", {"i": i}) for i in range(12)]
    results = asyncio.run(ex.execute_all(calls, max_concurrency=limit))
    assert [r.output for r in results] == list(range(12))
    assert gauge.peak == limit


def test_executor_max_concurrency_caps_every_call() -> None:
    """ToolExecutor(max_concurrency=N) caps calls across batches and single calls."""
    gauge = Gauge()

    async def measured() -> None:
        """Record concurrency."""
        gauge.enter()
        await asyncio.sleep(0.01)
        gauge.leave()

    ex = ToolExecutor(ToolRegistry([measured]), max_concurrency=2)

    async def go() -> None:
        batch = [ToolCall.create("measured")] * 6
        await asyncio.gather(ex.execute_all(batch), ex.execute_all(batch), ex.run("measured"))

    asyncio.run(go())
    assert gauge.peak == 2


def test_a_tool_not_safe_for_concurrent_use_runs_alone() -> None:
    """max_concurrency=1 on a tool serialises its calls; other tools still run alongside."""
    gauge = Gauge()
    others = Gauge()

    @tool(max_concurrency=1)
    async def exclusive() -> None:
        """Not safe to run twice at once."""
        gauge.enter()
        await asyncio.sleep(0.01)
        gauge.leave()

    async def free() -> None:
        """Safe to run in parallel."""
        others.enter()
        await asyncio.sleep(0.02)
        others.leave()

    ex = ToolExecutor(ToolRegistry([exclusive, free]))
    calls = [ToolCall.create("exclusive")] * 5 + [ToolCall.create("free")] * 5
    results = asyncio.run(ex.execute_all(calls))
    assert all(r.success for r in results)
    assert gauge.peak == 1
    assert others.peak == 5


def test_a_per_tool_cap_holds_across_sync_threads_and_async_code() -> None:
    """A tool capped at 1 never overlaps, whether called from threads or an event loop."""
    gauge = Gauge()

    @tool(max_concurrency=1)
    def exclusive() -> None:
        """Not safe to run twice at once."""
        gauge.enter()
        time.sleep(0.005)
        gauge.leave()

    ex = ToolExecutor(ToolRegistry([exclusive]))
    threads = [threading.Thread(target=lambda: ex.run_sync("exclusive")) for _ in range(4)]
    for t in threads:
        t.start()
    asyncio.run(ex.execute_all([ToolCall.create("exclusive")] * 4))
    for t in threads:
        t.join()
    assert gauge.peak == 1


def test_waiting_for_a_slot_counts_towards_the_timeout() -> None:
    """A call queued behind a capped tool times out if no slot frees up in time."""

    @tool(max_concurrency=1)
    async def hog() -> str:
        """Hold the only slot for a while."""
        await asyncio.sleep(0.3)
        return "done"

    ex = ToolExecutor(ToolRegistry([hog]))

    async def go() -> list[Any]:
        first = asyncio.create_task(ex.run("hog"))
        await asyncio.sleep(0.01)
        second = await ex.run("hog", timeout=0.05)
        return [await first, second]

    first, second = asyncio.run(go())
    assert first.output == "done"
    assert second.error_kind is ErrorKind.TIMEOUT
    sync_result = _sync_waiter_times_out()
    assert sync_result.error_kind is ErrorKind.TIMEOUT


def _sync_waiter_times_out() -> Any:
    release = threading.Event()
    holding = threading.Event()

    @tool(max_concurrency=1)
    def hog_sync() -> str:
        """Hold the only slot until released."""
        holding.set()
        release.wait(30)
        return "done"

    ex = ToolExecutor(ToolRegistry([hog_sync]))
    holder = threading.Thread(target=lambda: ex.run_sync("hog_sync"))
    holder.start()
    assert holding.wait(30)
    try:
        return ex.run_sync("hog_sync", timeout=0.05)
    finally:
        release.set()
        holder.join()


def test_cancelled_waiters_do_not_keep_slots() -> None:
    """Cancelling calls queued for a capped tool leaves the tool usable."""

    @tool(max_concurrency=1)
    async def slot() -> str:
        """Hold the slot briefly."""
        await asyncio.sleep(0.02)
        return "ok"

    ex = ToolExecutor(ToolRegistry([slot]))

    async def go() -> str:
        tasks = [asyncio.create_task(ex.run("slot")) for _ in range(5)]
        await asyncio.sleep(0.005)
        for t in tasks[1:]:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return str((await ex.run("slot", timeout=1)).output)

    assert asyncio.run(go()) == "ok"


def test_sync_tools_in_a_batch_run_on_worker_threads() -> None:
    """A parallel batch of sync calls is spread over worker threads and keeps order."""
    ex = ToolExecutor(ToolRegistry([double]), max_threads=4)
    calls = [ToolCall.create("double", {"i": i}) for i in range(200)]
    results = asyncio.run(ex.execute_all(calls))
    assert [r.output for r in results] == [2 * i for i in range(200)]
    ex.close()
    ex.close()


def test_a_batch_of_cheap_sync_calls_runs_inline_in_order() -> None:
    """Cheap sync calls in a parallel batch run inline (no tasks) and keep their order."""

    @tool(placement="inline")
    def cheap_double(i: int) -> int:
        """Return 2 * i, inline."""
        return 2 * i

    ex = ToolExecutor(ToolRegistry([cheap_double, nap]))
    only_cheap = [ToolCall(f"c{i}", "cheap_double", {"i": i}) for i in range(50)]
    results = asyncio.run(ex.execute_all(only_cheap))
    assert [(r.call_id, r.output) for r in results] == [(f"c{i}", 2 * i) for i in range(50)]
    mixed = [ToolCall.create("nap", {"i": 1}), ToolCall.create("cheap_double", {"i": 2})]
    assert [r.output for r in asyncio.run(ex.execute_all(mixed))] == [1, 4]


# -- the limiter itself --------------------------------------------------------------------


def test_limiter_hands_slots_over_in_order_across_threads_and_loops() -> None:
    """Waiters on threads and on event loops are served first come, first served."""
    limiter = Limiter(1)
    order: list[str] = []
    assert limiter.acquire_sync(0)

    def thread_waiter() -> None:
        assert limiter.acquire_sync(5)
        order.append("thread")
        limiter.release()

    async def loop_waiter() -> None:
        await limiter.acquire()
        order.append("loop")
        limiter.release()

    t = threading.Thread(target=thread_waiter)
    t.start()
    assert _queued(limiter, 1)
    other = threading.Thread(target=lambda: asyncio.run(loop_waiter()))
    other.start()
    assert _queued(limiter, 2)
    limiter.release()
    t.join()
    other.join()
    assert order == ["thread", "loop"]
    assert limiter.active == 0


def _queued(limiter: Limiter, waiters: int) -> bool:
    """Wait (30 s at most) until ``waiters`` callers queue for a slot."""
    deadline = time.monotonic() + 30
    while len(limiter._waiters) < waiters and time.monotonic() < deadline:
        time.sleep(0.005)
    return len(limiter._waiters) == waiters


def test_limiter_sync_timeout_gives_up() -> None:
    """acquire_sync returns False after its timeout and takes no slot."""
    limiter = Limiter(1)
    assert limiter.acquire_sync(None)
    assert not limiter.acquire_sync(0.01)
    limiter.release()
    assert limiter.active == 0
