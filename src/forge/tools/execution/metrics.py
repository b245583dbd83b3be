"""Execution metrics (EX-8): per-tool counts and latency percentiles, read as a snapshot.

`ExecutionMetrics` is an execution hook: install it with
``ToolExecutor(registry, metrics=True)`` (then read ``executor.metrics``) or
pass an instance in ``hooks=``. Every finished call of a registered tool is
counted exactly once as a success, a failure or a cancellation, so
``calls == successes + failures + cancelled``; ``timeouts`` is the part of
``failures`` that timed out, and ``errors`` breaks failures down by kind.
Calls of unknown tools are counted apart (``unknown_tool_calls``) so that
made-up names cannot grow the table, and dry runs only in ``dry_runs``.

Latency is the time from the start of the call to its result. Count and mean
cover every call; the percentiles (nearest rank) cover the latest ``window``
calls of each tool.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forge.tools.execution.hooks import ExecutionHook
from forge.tools.values.results import ErrorKind

if TYPE_CHECKING:
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.values.results import ToolResult

__all__ = ["ExecutionMetrics", "LatencyStats", "MetricsSnapshot", "ToolMetrics"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyStats:
    """Latency of one tool's calls, in milliseconds."""

    count: int
    """Calls measured."""
    mean_ms: float
    """Mean over every call."""
    p50_ms: float
    """Median over the window."""
    p95_ms: float
    """95th percentile over the window."""
    p99_ms: float
    """99th percentile over the window."""
    max_ms: float
    """Slowest call in the window."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMetrics:
    """Counts and latency of one tool."""

    calls: int
    """Finished calls: ``successes + failures + cancelled``."""
    successes: int
    """Calls that returned a successful result."""
    failures: int
    """Calls that returned a failed result (cancellations excluded)."""
    timeouts: int
    """Failures that timed out."""
    cancelled: int
    """Calls cancelled before they finished."""
    errors: Mapping[str, int]
    """Failures by error kind (``invalid_arguments``, ``tool_error``, ...)."""
    latency: LatencyStats
    """How long the calls took."""

    def to_dict(self) -> dict[str, Any]:
        """Return the metrics as plain JSON-ready data."""
        return {
            "calls": self.calls,
            "successes": self.successes,
            "failures": self.failures,
            "timeouts": self.timeouts,
            "cancelled": self.cancelled,
            "errors": dict(self.errors),
            "latency": {
                "count": self.latency.count,
                "mean_ms": self.latency.mean_ms,
                "p50_ms": self.latency.p50_ms,
                "p95_ms": self.latency.p95_ms,
                "p99_ms": self.latency.p99_ms,
                "max_ms": self.latency.max_ms,
            },
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricsSnapshot:
    """Every tool's metrics at one moment."""

    tools: Mapping[str, ToolMetrics]
    """Per tool name, in the order tools were first called."""
    unknown_tool_calls: int = 0
    """Calls naming a tool that does not exist."""
    dry_runs: int = 0
    """Dry runs (not counted anywhere else)."""
    taken_at: float = field(default_factory=time.time)
    """When the snapshot was taken (Unix time)."""

    def __getitem__(self, name: str) -> ToolMetrics:
        return self.tools[name]

    def to_dict(self) -> dict[str, Any]:
        """Return the snapshot as plain JSON-ready data."""
        return {
            "tools": {name: m.to_dict() for name, m in self.tools.items()},
            "unknown_tool_calls": self.unknown_tool_calls,
            "dry_runs": self.dry_runs,
            "taken_at": self.taken_at,
        }


class _Counts:
    __slots__ = (
        "calls", "cancelled", "errors", "failures", "next", "samples", "successes", "timeouts",
        "total",
    )  # fmt: skip

    def __init__(self) -> None:
        self.calls = self.successes = self.failures = self.timeouts = self.cancelled = 0
        self.errors: dict[str, int] = {}
        self.total = 0.0
        self.samples: list[float] = []
        self.next = 0


class ExecutionMetrics(ExecutionHook):
    """Collects per-tool metrics from the calls it sees (thread-safe).

    Args:
        window: How many recent calls of each tool the percentiles cover.
    """

    def __init__(self, *, window: int = 4096) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        self.window = window
        self._lock = threading.Lock()
        self._tools: dict[str, _Counts] = {}
        self._unknown = 0
        self._dry_runs = 0

    def after_call(self, call: ToolInvocation, result: ToolResult) -> None:
        """Count one finished call (the hook method)."""
        if call.tool is None:
            with self._lock:
                self._unknown += 1
            return
        self.record(call.name, result, time.perf_counter() - call.started)

    def record(self, name: str, result: ToolResult, seconds: float) -> None:
        """Count one result of tool ``name`` that took ``seconds``."""
        if result.success and result.metadata.get("dry_run") is True:
            with self._lock:
                self._dry_runs += 1
            return
        kind = result.error_kind
        with self._lock:
            counts = self._tools.get(name)
            if counts is None:
                counts = self._tools[name] = _Counts()
            counts.calls += 1
            if result.success:
                counts.successes += 1
            elif kind is ErrorKind.CANCELLED:
                counts.cancelled += 1
            else:
                counts.failures += 1
                key = str(kind) if kind is not None else "tool_error"
                counts.errors[key] = counts.errors.get(key, 0) + 1
                if kind is ErrorKind.TIMEOUT:
                    counts.timeouts += 1
            counts.total += seconds
            if len(counts.samples) < self.window:
                counts.samples.append(seconds)
            else:
                counts.samples[counts.next] = seconds
                counts.next = (counts.next + 1) % self.window

    def snapshot(self) -> MetricsSnapshot:
        """Return the metrics so far (later calls do not change it)."""
        with self._lock:
            raw = [
                (name, c.calls, c.successes, c.failures, c.timeouts, c.cancelled,
                 dict(c.errors), c.total, list(c.samples))
                for name, c in self._tools.items()
            ]  # fmt: skip
            unknown, dry = self._unknown, self._dry_runs
        tools = {}
        for name, calls, ok, failed, timeouts, cancelled, errors, total, samples in raw:
            tools[name] = ToolMetrics(
                calls=calls, successes=ok, failures=failed, timeouts=timeouts,
                cancelled=cancelled, errors=errors, latency=_latency(calls, total, samples),
            )  # fmt: skip
        return MetricsSnapshot(tools=tools, unknown_tool_calls=unknown, dry_runs=dry)

    def reset(self) -> None:
        """Forget everything counted so far."""
        with self._lock:
            self._tools.clear()
            self._unknown = self._dry_runs = 0


def _latency(count: int, total: float, samples: list[float]) -> LatencyStats:
    if not samples:
        return LatencyStats(
            count=count, mean_ms=0.0, p50_ms=0.0, p95_ms=0.0, p99_ms=0.0, max_ms=0.0
        )
    ordered = sorted(samples)

    def rank(q: float) -> float:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1e3

    return LatencyStats(
        count=count,
        mean_ms=total / count * 1e3,
        p50_ms=rank(0.50),
        p95_ms=rank(0.95),
        p99_ms=rank(0.99),
        max_ms=ordered[-1] * 1e3,
    )
