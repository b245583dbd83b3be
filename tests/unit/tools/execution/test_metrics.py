"""Execution metrics: exact counts and latency percentiles as a snapshot."""

import asyncio
import json
import threading
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, ToolResult, tool
from forge.tools.execution.executor import ToolExecutor
from forge.tools.execution.metrics import ExecutionMetrics
from forge.tools.execution.permissions import RuleBasedPolicy


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def maybe_fail(fail: bool) -> str:
    """Fail when asked."""
    await asyncio.sleep(0)
    if fail:
        raise ValueError("asked to fail")
    return "fine"


async def slow(seconds: float) -> str:
    """Sleep."""
    await asyncio.sleep(seconds)
    return "slept"


@tool(name="stuck", timeout=0.1)
async def stuck_tool() -> str:
    """Never finish: only its own 0.1 s limit ends it."""
    await asyncio.Event().wait()
    return "unreachable"


@tool(name="forbidden")
def forbidden_tool() -> str:
    """Never allowed."""
    return "ran"


def test_counts_are_exact_after_a_mixed_workload() -> None:
    """Successes, failures by kind, timeouts, denials, unknown tools and dry runs add up exactly."""
    ex = ToolExecutor(
        ToolRegistry([add, maybe_fail, stuck_tool, slow, forbidden_tool]),
        metrics=True,
        permissions=RuleBasedPolicy(deny=["forbidden"]),
    )
    calls = (
        [ToolCall.create("add", {"a": i, "b": 1}) for i in range(7)]
        + [ToolCall.create("add", {"a": "x", "b": 1}) for _ in range(3)]
        + [ToolCall.create("maybe_fail", {"fail": i % 2 == 0}) for i in range(10)]
        + [ToolCall.create("stuck") for _ in range(4)]
        + [ToolCall.create("slow", {"seconds": 0}) for _ in range(2)]
        + [ToolCall.create("forbidden") for _ in range(2)]
        + [ToolCall.create("ghost") for _ in range(5)]
    )
    # Only `stuck` has a time limit, so a loaded machine cannot turn a quick call into a timeout.
    asyncio.run(ex.execute_all(calls))
    for _ in range(3):
        ex.run_sync("add", {"a": 1, "b": 1})
    ex.run_sync("add", {"a": 1, "b": 1}, ExecutionContext(dry_run=True))

    assert ex.metrics is not None
    snap = ex.metrics.snapshot()
    assert set(snap.tools) == {"add", "maybe_fail", "stuck", "slow", "forbidden"}
    names = ("add", "maybe_fail", "stuck", "slow", "forbidden")
    add_m, fail_m, stuck_m, slow_m, denied_m = (snap[n] for n in names)
    assert (add_m.calls, add_m.successes, add_m.failures) == (13, 10, 3)
    assert dict(add_m.errors) == {"invalid_arguments": 3}
    assert (fail_m.calls, fail_m.successes, fail_m.failures) == (10, 5, 5)
    assert dict(fail_m.errors) == {"tool_error": 5}
    assert (stuck_m.calls, stuck_m.failures, stuck_m.timeouts) == (4, 4, 4)
    assert (slow_m.calls, slow_m.successes, slow_m.failures) == (2, 2, 0)
    assert (denied_m.calls, denied_m.failures, dict(denied_m.errors)) == (2, 2, {"denied": 2})
    assert (snap.unknown_tool_calls, snap.dry_runs) == (5, 1)
    for m in snap.tools.values():
        assert m.calls == m.successes + m.failures + m.cancelled
        assert m.latency.count == m.calls


def test_latency_percentiles() -> None:
    """Latency count, mean and nearest-rank percentiles come from the recorded durations."""
    metrics = ExecutionMetrics()
    ok = ToolResult.ok(1)
    for ms in range(1, 101):
        metrics.record("t", ok, ms / 1000)
    lat = metrics.snapshot()["t"].latency
    assert lat.count == 100
    assert lat.mean_ms == pytest.approx(50.5)
    assert (lat.p50_ms, lat.p95_ms, lat.p99_ms, lat.max_ms) == pytest.approx((50, 95, 99, 100))


def test_percentiles_cover_a_window_of_recent_calls() -> None:
    """With a window of 10, percentiles describe the last 10 calls; count and mean cover all."""
    metrics = ExecutionMetrics(window=10)
    ok = ToolResult.ok(1)
    for _ in range(90):
        metrics.record("t", ok, 1.0)
    for _ in range(10):
        metrics.record("t", ok, 0.001)
    lat = metrics.snapshot()["t"].latency
    assert lat.count == 100
    assert lat.p99_ms == pytest.approx(1.0)
    assert lat.mean_ms == pytest.approx((90 * 1000 + 10 * 1) / 100)
    with pytest.raises(ValueError, match="window"):
        ExecutionMetrics(window=0)


def test_cancelled_calls_are_counted_apart() -> None:
    """Calls cancelled from outside count as cancelled, not as failures."""
    metrics = ExecutionMetrics()
    ex = ToolExecutor(ToolRegistry([slow]), hooks=[metrics])

    async def go() -> None:
        task = asyncio.create_task(ex.execute_all([ToolCall.create("slow", {"seconds": 5})] * 3))
        await asyncio.sleep(0.02)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())
    m = metrics.snapshot()["slow"]
    assert (m.calls, m.cancelled, m.failures, m.successes) == (3, 3, 0, 0)


def test_snapshot_is_a_copy_and_reset_clears() -> None:
    """A snapshot does not change afterwards; reset forgets everything."""
    metrics = ExecutionMetrics()
    metrics.record("t", ToolResult.ok(1), 0.01)
    snap = metrics.snapshot()
    metrics.record("t", ToolResult.fail("x", error_kind=ErrorKind.TIMEOUT), 0.01)
    assert snap["t"].calls == 1
    assert metrics.snapshot()["t"].timeouts == 1
    metrics.reset()
    assert metrics.snapshot().tools == {}


def test_snapshot_to_dict_is_json() -> None:
    """to_dict gives plain JSON-ready data."""
    metrics = ExecutionMetrics()
    metrics.record("t", ToolResult.ok(1), 0.002)
    data: dict[str, Any] = metrics.snapshot().to_dict()
    assert json.loads(json.dumps(data))["tools"]["t"]["latency"]["count"] == 1


def test_metrics_are_thread_safe() -> None:
    """Counting from many threads loses nothing."""
    ex = ToolExecutor(ToolRegistry([add]), metrics=True)

    def work() -> None:
        for i in range(200):
            ex.run_sync("add", {"a": i, "b": 1})

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ex.metrics is not None
    assert ex.metrics.snapshot()["add"].successes == 800


def test_an_existing_collector_can_be_shared() -> None:
    """metrics= accepts a collector, which is installed once even if also passed as a hook."""
    shared = ExecutionMetrics()
    one = ToolExecutor(ToolRegistry([add]), metrics=shared, hooks=[shared])
    two = ToolExecutor(ToolRegistry([add]), metrics=shared)
    one.run_sync("add", {"a": 1, "b": 1})
    two.run_sync("add", {"a": 1, "b": 1})
    assert one.metrics is shared
    assert len(one.hooks) == 1
    assert shared.snapshot()["add"].calls == 2
    assert ToolExecutor(ToolRegistry([add])).metrics is None
