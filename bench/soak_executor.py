"""Soak the executor: 100,000 mixed calls, no lost result, memory flat.

Run it with ``python bench/soak_executor.py`` (``--calls N`` for another size). The calls
go through every entry point (``execute_all`` and ``execute_all_sync``, parallel and in
sequence, ``run`` and ``run_sync``) in rounds of ``--batch`` calls. They mix:

* good calls of sync and async tools, quick and slow (1 ms on a worker thread or awaited);
* bad arguments: a wrong type, JSON that does not parse, an unknown tool;
* failing handlers: an exception, ``SystemExit``, an output JSON cannot carry;
* timeouts: a sync handler that sleeps 200 ms past its 10 ms deadline (its thread is
  abandoned),
  an async one that does, and an async one that swallows its cancellation.

Every result must answer its call (same ``call_id``) with the outcome its kind expects.
The resident set size is read from ``/proc/self/statm`` after a warm-up (a tenth of the
calls) and at the end, both after a garbage collection; the run fails if it grew by more
than 10 %. The exit status is 0 when everything held.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from forge.tools import ErrorKind, ToolCall, ToolRegistry, ToolResult, tool
from forge.tools.execution._deadline import abandoned_tasks
from forge.tools.execution.executor import ToolExecutor

# -- the tools -----------------------------------------------------------------------------


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def add_async(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    await asyncio.sleep(0)
    return a + b


@tool
def nap(ms: int) -> str:
    """Sleep ``ms`` milliseconds (on a worker thread from async code)."""
    time.sleep(ms / 1000)
    return "rested"


@tool
async def nap_async(ms: int) -> str:
    """Sleep ``ms`` milliseconds, awaited."""
    await asyncio.sleep(ms / 1000)
    return "rested"


@tool
def fail(reason: str) -> str:
    """Raise an exception."""
    raise ValueError(reason)


@tool
async def exit_async() -> str:
    """Raise SystemExit from async code."""
    await asyncio.sleep(0)
    raise SystemExit(2)


@tool
def numbers() -> Any:
    """Return a generator (an output JSON cannot carry)."""
    return (i for i in range(3))


@tool(timeout=0.01)
def stall() -> str:
    """Sleep 200 ms with a 10 ms deadline."""
    time.sleep(0.2)
    return "late"


@tool(timeout=0.01)
async def stall_async() -> str:
    """Sleep one second with a 10 ms deadline."""
    await asyncio.sleep(1)
    return "late"


@tool(timeout=0.01)
async def stubborn() -> str:
    """Swallow the first cancellation, then end 20 ms later."""
    try:
        await asyncio.sleep(1)
    except asyncio.CancelledError:
        await asyncio.sleep(0.02)
    return "late"


TOOLS = [add, add_async, nap, nap_async, fail, exit_async, numbers, stall, stall_async, stubborn]

# -- the mix: how to make each kind of call, and what its result must be -------------------


@dataclass(frozen=True)
class Kind:
    """One kind of call in the mix."""

    name: str
    weight: int
    call: Callable[[str], ToolCall]
    expected: ErrorKind | None  # None: a success


def _call(tool_name: str, arguments: Any) -> Callable[[str], ToolCall]:
    def make(call_id: str) -> ToolCall:
        if isinstance(arguments, str):
            return ToolCall.from_raw(call_id, tool_name, arguments)
        return ToolCall(id=call_id, name=tool_name, arguments=arguments)

    return make


MIX = [
    Kind("good sync", 30, _call("add", {"a": 1, "b": 2}), None),
    Kind("good async", 20, _call("add_async", {"a": 1, "b": 2}), None),
    Kind("slow sync (thread)", 4, _call("nap", {"ms": 1}), None),
    Kind("slow async", 6, _call("nap_async", {"ms": 1}), None),
    Kind("wrong argument type", 8, _call("add", {"a": "x", "b": 2}), ErrorKind.INVALID_ARGUMENTS),
    Kind("arguments not JSON", 5, _call("add", '{"a": 1, "b": '), ErrorKind.INVALID_JSON),
    Kind("unknown tool", 3, _call("nope", {}), ErrorKind.UNKNOWN_TOOL),
    Kind("handler raises", 8, _call("fail", {"reason": "boom"}), ErrorKind.TOOL_ERROR),
    Kind("SystemExit (async)", 3, _call("exit_async", {}), ErrorKind.TOOL_ERROR),
    Kind("generator output", 3, _call("numbers", {}), ErrorKind.TOOL_ERROR),
    Kind("sync timeout", 4, _call("stall", {}), ErrorKind.TIMEOUT),
    Kind("async timeout", 4, _call("stall_async", {}), ErrorKind.TIMEOUT),
    Kind("swallowed cancellation", 2, _call("stubborn", {}), ErrorKind.TIMEOUT),
]


def plan(count: int, start: int) -> list[tuple[Kind, ToolCall]]:
    """``count`` calls of the mix, in a fixed interleaving, with ids from ``start``."""
    wheel = [kind for kind in MIX for _ in range(kind.weight)]
    return [
        (kind, kind.call(f"call_{start + i}"))
        for i, kind in ((i, wheel[(i * 7) % len(wheel)]) for i in range(count))
    ]


# -- running -------------------------------------------------------------------------------


def run_round(executor: ToolExecutor, round_no: int, calls: list[ToolCall]) -> list[ToolResult]:
    """Run one round of calls through the entry point whose turn it is."""
    way = round_no % 5
    if way == 0:
        return asyncio.run(executor.execute_all(calls))
    if way == 1:
        return executor.execute_all_sync(calls)
    if way == 2:
        return executor.execute_all_sync(calls, parallel=False)
    if way == 3:

        async def each() -> list[ToolResult]:
            return list(await asyncio.gather(*(executor.execute_call(c) for c in calls)))

        return asyncio.run(each())
    return [executor.execute_call_sync(c) for c in calls]


def rss_mib() -> float:
    """The resident set size now, in MiB (Linux), else the peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # pragma: no cover - not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def settled_rss() -> float:
    """RSS once background handlers have ended and garbage is collected."""
    deadline = time.monotonic() + 5
    while (abandoned_tasks() or threading.active_count() > 40) and time.monotonic() < deadline:
        time.sleep(0.01)
    gc.collect()
    return rss_mib()


@dataclass
class Report:
    calls: int = 0
    lost: int = 0
    wrong: int = 0
    seconds: float = 0.0
    rss_warm: float = 0.0
    rss_end: float = 0.0
    peak_abandoned_threads: int = 0
    outcomes: Counter[str] | None = None


def soak(total: int, batch: int, warmup: int) -> Report:
    """Run ``total`` calls; return what was measured."""
    executor = ToolExecutor(ToolRegistry(TOOLS), redact=True)
    report = Report(outcomes=Counter())
    started = time.perf_counter()
    done, round_no = 0, 0
    while done < total:
        size = min(batch, total - done)
        planned = plan(size, done)
        results = run_round(executor, round_no, [call for _, call in planned])
        report.lost += size - len(results)
        for (kind, call), result in zip(planned, results, strict=False):
            if result.call_id != call.id or result.error_kind is not kind.expected:
                report.wrong += 1
                if report.wrong <= 5:
                    print(f"unexpected result for {kind.name}: {result!r}", file=sys.stderr)
            report.outcomes[str(result.error_kind or "success")] += 1  # type: ignore[index]
        report.peak_abandoned_threads = max(
            report.peak_abandoned_threads, executor.abandoned_threads
        )
        done += size
        round_no += 1
        if report.rss_warm == 0 and done >= warmup:
            report.rss_warm = settled_rss()
    report.seconds = time.perf_counter() - started
    report.calls = done
    report.rss_end = settled_rss()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000, help="how many calls in all")
    parser.add_argument("--batch", type=int, default=500, help="calls per round")
    parser.add_argument(
        "--no-memory-check", action="store_true", help="report RSS but do not fail on growth"
    )
    args = parser.parse_args(argv)
    report = soak(args.calls, args.batch, warmup=max(args.calls // 10, args.batch))
    growth = report.rss_end / report.rss_warm - 1
    print("| measure | value |\n|---|---|")
    print(f"| calls | {report.calls:,} |")
    print(f"| lost results | {report.lost} |")
    print(f"| wrong or misrouted results | {report.wrong} |")
    print(f"| wall time | {report.seconds:.1f} s ({report.calls / report.seconds:,.0f} calls/s) |")
    print(f"| RSS after warm-up | {report.rss_warm:.1f} MiB |")
    print(f"| RSS at the end | {report.rss_end:.1f} MiB ({growth:+.1%}) |")
    print(f"| most abandoned threads at once | {report.peak_abandoned_threads} |")
    assert report.outcomes is not None
    mix = ", ".join(f"{k} {v:,}" for k, v in sorted(report.outcomes.items()))
    print(f"| outcomes | {mix} |")
    ok = True
    if report.lost or report.wrong:
        print("FAIL: results were lost or wrong", file=sys.stderr)
        ok = False
    if not args.no_memory_check and growth > 0.10:
        print(f"FAIL: RSS grew {growth:.1%} after warm-up (limit 10 %)", file=sys.stderr)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
