"""Deadlines and concurrency limits hold whatever a handler does.

A handler that swallows its cancellation must not hold the caller past the
deadline, and a call left running after its deadline keeps its concurrency
slot until it really ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, ToolResult, tool
from forge.tools.execution._deadline import abandoned_tasks
from forge.tools.execution.executor import ToolExecutor

GATE = threading.Event()  # lets the stubborn handlers end
STARTED = threading.Event()
ENDED = threading.Event()


@pytest.fixture(autouse=True)
def gate() -> Iterator[None]:
    GATE.clear()
    STARTED.clear()
    ENDED.clear()
    yield
    GATE.set()


async def stubborn() -> str:
    """Ignore every cancellation until the test opens the gate."""
    STARTED.set()
    try:
        while not GATE.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.005)
        return "late"
    finally:
        ENDED.set()


class Before:
    """A hook, so calls take the general pipeline instead of a fast path."""

    def before_call(self, call: Any) -> None:
        return None


def executors() -> dict[str, ToolExecutor]:
    registry = ToolRegistry([stubborn])
    return {
        "fast": ToolExecutor(registry),
        "pipeline": ToolExecutor(registry, hooks=[Before()]),
        "limited": ToolExecutor(registry, max_concurrency=4),
    }


CALL = ToolCall(id="c1", name="stubborn", arguments={})

ASYNC_ENTRIES: dict[str, Callable[[ToolExecutor], Awaitable[Any]]] = {
    "execute": lambda ex: ex.execute("stubborn", ExecutionContext(timeout=0.05)),
    "run": lambda ex: ex.run("stubborn", {}, timeout=0.05),
    "run_text": lambda ex: ex.run("stubborn", "{}", timeout=0.05),
    "execute_call": lambda ex: ex.execute_call(CALL, timeout=0.05),
    "execute_all": lambda ex: ex.execute_all([CALL, CALL], timeout=0.05),
    "execute_all_sequential": lambda ex: ex.execute_all([CALL], parallel=False, timeout=0.05),
    "execute_all_limited": lambda ex: ex.execute_all([CALL] * 3, max_concurrency=2, timeout=0.05),
}

SYNC_ENTRIES: dict[str, Callable[[ToolExecutor], Any]] = {
    "execute_sync": lambda ex: ex.execute_sync("stubborn", ExecutionContext(timeout=0.05)),
    "run_sync": lambda ex: ex.run_sync("stubborn", {}, timeout=0.05),
    "run_sync_text": lambda ex: ex.run_sync("stubborn", "{}", timeout=0.05),
    "execute_call_sync": lambda ex: ex.execute_call_sync(CALL, timeout=0.05),
    "execute_all_sync": lambda ex: ex.execute_all_sync([CALL, CALL], timeout=0.05),
    "execute_all_sync_sequential": lambda ex: ex.execute_all_sync(
        [CALL], parallel=False, timeout=0.05
    ),
}


def timed_out(out: ToolResult | list[ToolResult]) -> None:
    results = out if isinstance(out, list) else [out]
    assert results
    for result in results:
        assert result.error_kind is ErrorKind.TIMEOUT, result


@pytest.mark.parametrize("path", ["fast", "pipeline", "limited"])
@pytest.mark.parametrize("entry", list(ASYNC_ENTRIES))
def test_an_async_handler_swallowing_its_cancellation_does_not_hold_the_caller(
    path: str, entry: str
) -> None:
    """The caller gets its timeout result while the stubborn handler is still running."""
    executor = executors()[path]

    async def go() -> None:
        timed_out(await ASYNC_ENTRIES[entry](executor))
        assert not ENDED.is_set()  # the result came back before the handler ended
        assert abandoned_tasks() >= 1
        GATE.set()
        while abandoned_tasks():
            await asyncio.sleep(0.005)

    asyncio.run(go())
    assert ENDED.is_set()


@pytest.mark.parametrize("path", ["fast", "pipeline", "limited"])
@pytest.mark.parametrize("entry", list(SYNC_ENTRIES))
def test_a_sync_caller_is_not_held_by_a_stubborn_async_handler(path: str, entry: str) -> None:
    """From sync code too: the private event loop is not waited for past the deadline."""
    timed_out(SYNC_ENTRIES[entry](executors()[path]))
    assert not ENDED.is_set()
    GATE.set()
    assert ENDED.wait(10)  # the handler still ends, in the background


def test_the_registry_run_methods_are_bounded_too() -> None:
    """`ToolRegistry.execute_all` (the contextless engine) returns at the deadline."""

    @tool(timeout=0.05)
    async def stubborn_tool() -> str:
        """Ignore cancellation until the gate opens."""
        return await stubborn()

    registry = ToolRegistry([stubborn_tool])
    call = ToolCall(id="r1", name="stubborn_tool", arguments={})
    timed_out(registry.execute_all([call]))
    assert not ENDED.is_set()
    GATE.set()
    assert ENDED.wait(10)


# -- concurrency slots outlive the deadline of the call that holds them -------------------


class Gauge:
    """How many handlers run at once, at most."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def capped_tools(gauge: Gauge) -> ToolRegistry:
    @tool(max_concurrency=1)
    def blocking() -> str:
        """Block until the gate opens."""
        with gauge:
            STARTED.set()
            GATE.wait(10)
            return "done"

    @tool(max_concurrency=1)
    async def swallowing() -> str:
        """Ignore cancellation until the gate opens."""
        with gauge:
            return await stubborn()

    return ToolRegistry([blocking, swallowing])


@pytest.mark.parametrize("name", ["blocking", "swallowing"])
@pytest.mark.parametrize("caller", ["async", "sync"])
def test_a_timed_out_call_keeps_its_slot_until_it_really_ends(name: str, caller: str) -> None:
    """``max_concurrency=1`` never runs two at once, even after a timeout."""
    gauge = Gauge()
    executor = ToolExecutor(capped_tools(gauge))

    def still_held(first: ToolResult, second: ToolResult) -> None:
        assert first.error_kind is ErrorKind.TIMEOUT
        assert STARTED.is_set()
        assert not ENDED.is_set()
        assert gauge.now == 1
        assert second.error_kind is ErrorKind.TIMEOUT  # the first handler still has the slot
        assert "limit of 1 call at a time (max_concurrency)" in (second.error or "")
        GATE.set()

    if caller == "sync":
        still_held(
            executor.run_sync(name, {}, timeout=0.05), executor.run_sync(name, {}, timeout=0.05)
        )
        third = executor.run_sync(name, {}, timeout=10)
    else:

        async def go() -> ToolResult:  # one event loop: a detached handler lives on it
            still_held(
                await executor.run(name, {}, timeout=0.05),
                await executor.run(name, {}, timeout=0.05),
            )
            return await executor.run(name, {}, timeout=10)

        third = asyncio.run(go())
    assert third.output in {"done", "late"}
    assert gauge.peak == 1


def test_an_executor_wide_limit_is_kept_by_abandoned_threads() -> None:
    """The executor's own ``max_concurrency`` counts a thread left running after a timeout."""
    gauge = Gauge()

    def hold() -> str:
        """Block until the gate opens."""
        with gauge:
            GATE.wait(10)
            return "done"

    executor = ToolExecutor(ToolRegistry([hold]), max_concurrency=1)
    calls = [ToolCall(id=f"h{i}", name="hold", arguments={}) for i in range(3)]
    results = asyncio.run(executor.execute_all(calls, timeout=0.05))
    assert [r.error_kind for r in results] == [ErrorKind.TIMEOUT] * 3
    assert gauge.peak == 1
    GATE.set()
    assert executor.run_sync("hold", {}, timeout=10).output == "done"
    assert gauge.peak == 1


async def nap_async() -> str:
    """Suspend briefly, so the call's deadline is armed."""
    await asyncio.sleep(0.001)
    return "rested"


def test_private_event_loops_are_not_kept_alive_by_deadlines() -> None:
    """Sync calls of an async tool with a deadline leave no event loop behind (soak finding)."""
    import gc

    before = {id(o) for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)}
    executor = ToolExecutor(ToolRegistry([nap_async]))
    for _ in range(30):
        assert executor.run_sync("nap_async", {}, timeout=5).output == "rested"
    gc.collect()
    loops = [
        o
        for o in gc.get_objects()
        if isinstance(o, asyncio.AbstractEventLoop) and id(o) not in before
    ]
    # One loop may stay: the deadline module caches the latest loop it served.
    holders = [type(r).__name__ for r in gc.get_referrers(loops[-1])] if len(loops) > 1 else []
    assert len(loops) <= 1, f"{len(loops)} private loops kept alive, the last one by {holders}"


def _waits_for_gate() -> str:
    GATE.wait(5)
    return "late"


async def _awaits_gate() -> str:
    while not GATE.is_set():
        await asyncio.sleep(0.005)
    return "late"


@pytest.mark.parametrize("handler", [_waits_for_gate, _awaits_gate], ids=["sync", "async"])
@pytest.mark.parametrize(
    "context",
    [None, ExecutionContext(timeout=60)],
    ids=["no context", "context"],
)
def test_a_tools_own_timeout_holds_on_every_fast_path(
    handler: Callable[..., Any], context: ExecutionContext | None
) -> None:
    """A tool's own timeout holds from sync and async code, with or without a context:
    the fast paths never run it unguarded."""
    slow = tool(handler, name="slow", timeout=0.05)
    registry = ToolRegistry([slow])
    executor = ToolExecutor(registry, context=context)
    try:
        for result in (
            executor.run_sync("slow", {}),
            asyncio.run(executor.run("slow", {})),
            registry.execute("slow", {}, context=context),
        ):
            assert result.error_kind == ErrorKind.TIMEOUT, result
    finally:
        GATE.set()
        executor.close()
